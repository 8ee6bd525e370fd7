import Archive
import Foundation
import QuickBlox
import Testing

/// Legal holds refuse erasure of what they keep; retention erases the old except what is held (the built binary).
@Suite("qbarchive hold and retain: held data is never erased (the built binary)")
struct HoldRetainCommandTests {
    /// Every archived message: id → (date_sent, sender_id, dialog_id, text).
    static func messages(_ archive: String, where query: String? = nil) async throws
        -> [String: (date: Int, sender: Int?, dialog: String, text: String?)]
    {
        let run = try await CommandRunner.run(
            ["export", "--archive", archive, "--format", "jsonl", "--out", "-"] + (query.map { ["--where", $0] } ?? []))
        var result: [String: (Int, Int?, String, String?)] = [:]
        for line in run.stdout.split(separator: "\n") {
            let record = try JSONValue(parsing: String(line))
            guard let id = record["id"]?.stringValue, let date = record["date_sent"]?.lenientInt,
                let dialog = record["dialog_id"]?.stringValue
            else { continue }
            result[id] = (date, record["sender_id"]?.lenientInt, dialog, record["text"]?.stringValue)
        }
        return result
    }

    @Test func holdsRefuseErasureAndRetentionErasesOnlyWhatIsOldAndUnheld() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let before = try await Self.messages(archive)
            let dates = before.values.map(\.date).sorted()
            let now = ArchiveTime.now()
            // A cutoff in the middle of the archive's history.
            let cutoff = dates[dates.count / 2]
            let days = (now - cutoff) / 86_400 + 1
            let boundary = now - days * 86_400

            // Three holds: a person, a dialog, a query.
            let heldUser = try #require(before.values.compactMap(\.sender).min())
            let heldDialog = try #require(before.values.map(\.dialog).sorted().last)
            for arguments in [
                ["--user", "\(heldUser)"], ["--dialog", heldDialog], ["--query", "refund or invoice"],
            ] {
                let add = try await CommandRunner.run(
                    ["hold", "add", "--archive", archive, "--reason", "case \(arguments[0])", "--json"] + arguments)
                #expect(add.status == 0, "\(add.stderr)")
                #expect(try JSONValue(parsing: add.stdout)["messages_kept"]?.lenientInt ?? 0 > 0)
            }
            let held = Set(try await Self.messages(archive, where: "sender_id = \(heldUser)").keys)
                .union(try await Self.messages(archive, where: "dialog = \"\(heldDialog)\"").keys)
                .union(try await Self.messages(archive, where: "refund or invoice").keys)

            // Erasure refused, naming the hold, and nothing changed.
            let person = try await CommandRunner.run(["erase", "--archive", archive, "--user", "\(heldUser)"])
            #expect(person.status == 15 && person.stderr.contains("legal hold #1"), "\(person)")
            let dialog = try await CommandRunner.run(["erase", "--archive", archive, "--dialog", heldDialog])
            #expect(dialog.status == 15 && dialog.stderr.contains("legal hold #"), "\(dialog)")
            let queried = try #require(
                try await Self.messages(archive, where: "refund").first {
                    $0.value.sender != heldUser && $0.value.dialog != heldDialog
                }?.key)
            let message = try await CommandRunner.run(["erase", "--archive", archive, "--message", queried])
            #expect(message.status == 15 && message.stderr.contains("legal hold #3"), "\(message)")
            #expect(
                try await Self.messages(archive).values.filter { $0.text == nil }.count
                    == before.values.filter { $0.text == nil }.count)

            // Retention: the dry run counts exactly the old, unheld messages; --apply erases exactly them.
            let expected = before.filter { $0.value.date < boundary && !held.contains($0.key) }
            let keptExpected = before.filter { $0.value.date < boundary && held.contains($0.key) }.count
            let dry = try await CommandRunner.run([
                "retain", "--archive", archive, "--older-than", "\(days)d", "--json", "--now", "\(now)",
            ])
            #expect(dry.status == 0, "\(dry.stderr)")
            let plan = try JSONValue(parsing: dry.stdout)
            #expect(plan["messages"]?.lenientInt == expected.count && plan["kept_by_holds"]?.lenientInt == keptExpected)
            #expect(plan["applied"] == false)
            #expect(
                try await Self.messages(archive).values.filter { $0.text == nil }.count
                    == before.values.filter { $0.text == nil }.count, "a dry run changes nothing")
            let apply = try await CommandRunner.run([
                "retain", "--archive", archive, "--older-than", "\(days)d", "--apply", "--json", "--now", "\(now)",
            ])
            #expect(try JSONValue(parsing: apply.stdout)["messages"]?.lenientInt == expected.count)
            let after = try await Self.messages(archive)
            #expect(after.count == before.count, "skeletons stay")
            for (id, message) in after {
                if expected[id] != nil {
                    #expect(message.text == nil, "\(id) is old and unheld: erased")
                } else {
                    #expect(message.text == before[id]?.text, "\(id) is held or recent: untouched")
                }
            }
            #expect(try await CommandRunner.run(["check", "--archive", archive]).status == 0)

            // Released, the person's messages can be erased — apart from what the other holds still keep.
            let release = try await CommandRunner.run([
                "hold", "release", "1", "--archive", archive, "--reason", "closed",
            ])
            #expect(release.status == 0, "\(release.stderr)")
            let list = try await CommandRunner.run(["hold", "list", "--archive", archive, "--all", "--json"])
            let holds = try #require(try JSONValue(parsing: list.stdout).arrayValue)
            #expect(holds.count == 3 && holds[0]["release_reason"] == "closed")
            let audit = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
            for action in ["\"hold\"", "\"hold_release\"", "\"erase\""] {
                #expect(audit.stdout.contains(action), "\(action)")
            }

            // Mistakes: an unknown person or dialog, a query that does not parse, an unknown hold, a short period.
            for (arguments, code) in [
                (["hold", "add", "--archive", archive, "--user", "nobody-at-all", "--reason", "x"], Int32(14)),
                (["hold", "add", "--archive", archive, "--dialog", "ffffffffffffffffffffffff", "--reason", "x"], 14),
                (["hold", "add", "--archive", archive, "--query", "sendr_id = 3", "--reason", "x"], 2),
                (["hold", "add", "--archive", archive, "--user", "1", "--reason", " "], 2),
                (["hold", "release", "99", "--archive", archive, "--reason", "x"], 14),
                (["retain", "--archive", archive, "--older-than", "5h"], 2),
            ] {
                let run = try await CommandRunner.run(arguments)
                #expect(run.status == code, "\(arguments): \(run)")
            }
        }
    }

    /// Weeks are a unit of --older-than (26w is 182 days); months and years, whose length depends on the
    /// calendar, are refused with the units that work.
    @Test func retentionTakesWeeks() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let now = 1_800_000_000
            for (text, days) in [("26w", 182), ("182d", 182), ("4368h", 182)] {
                let run = try await CommandRunner.run(
                    ["retain", "--archive", archive, "--older-than", text, "--json", "--now", "\(now)"])
                #expect(run.status == 0, "\(text): \(run)")
                #expect(try JSONValue(parsing: run.stdout)["cutoff"] == .string(ISO8601.format(now - days * 86_400)))
            }
            for text in ["6mo", "1y", "0w", "w"] {
                let run = try await CommandRunner.run(["retain", "--archive", archive, "--older-than", text])
                #expect(run.status == 2 && run.stderr.contains("104w"), "\(text): \(run)")
            }
        }
    }
}
