import Foundation
import QuickBlox
import Testing

/// What a moderator reads from `qbarchive search`: mistakes refused with a caret, "nothing" that says how it was
/// understood, totals and paging, JSON, time zones, words in every script — through the built binary.
@Suite("qbarchive search: answers to trust (the built binary)")
struct SearchTrustCommandTests {
    @Test func mistakenQueriesAreRefusedWithACaretAndNeverRunAsWords() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            for (query, says) in [
                ("before 2024-01-01 refund", "write before:2024-01-01"),
                ("refund from user2", "write from:user2"),
                ("text like refund", #"write message ctn "refund""#),
                ("message ~ refund", "regular-expression match"),
                ("limit:10", "--limit"),
                ("refund order by date", "--sort"),
                ("channel:general", "did you mean `in`?"),
                ("after:2025-01-01 before:2024-01-01", "cannot both hold"),
                ("from:nobody", "the nearest are"),
                ("in:nowhere", "no archived dialog has the id or name"),
                ("++", "message ctn"),
                ("on:2024-02-30", "is not a date"),
            ] {
                let result = try await CommandRunner.run(["search", "--archive", archive, query])
                #expect(result.status == 2, "\(query): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(query)")
                #expect(result.stderr.contains("invalid query:\n\(query)\n"), "\(query): \(result.stderr)")
                #expect(result.stderr.contains("^"), "\(query)")
                #expect(result.stderr.contains(says), "\(query): \(result.stderr)")
            }
        }
    }

    @Test func nothingFoundSaysHowTheQueryWasUnderstood() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let none = try await CommandRunner.run(["search", "--archive", archive, "zzqqxx before:2001-01-01"])
            #expect(none.status == 0)
            #expect(none.stdout.isEmpty)
            #expect(
                none.stderr
                    == "no messages match — understood as: word \"zzqqxx\" AND sent before 2001-01-01 00:00 UTC\n")
            for format in ["jsonl", "csv"] {
                let machine = try await CommandRunner.run([
                    "search", "--archive", archive, "--format", format, "zzqqxx",
                ])
                #expect(machine.status == 0)
                #expect(machine.stderr.hasPrefix("no messages match — understood as:"))
            }
            let count = try await CommandRunner.run(["search", "--archive", archive, "--count", "zzqqxx"])
            #expect(count.stdout == "0\n")
            #expect(count.stderr.hasPrefix("no messages match — understood as: word \"zzqqxx\""))
            let explain = try await CommandRunner.run([
                "search", "--archive", archive, "--explain", "from:user2 has:link",
            ])
            #expect(explain.stdout.hasPrefix("understood as: sender is user2 ("))
            #expect(explain.stdout.contains("AND has a link\n"))
        }
    }

    @Test func totalsPagingAndJSON() async throws {
        try await SearchCommandTests.withArchive { archive, total in
            let everything = "date > 2000-01-01"
            let first = try await CommandRunner.run(["search", "--archive", archive, "--limit", "2", everything])
            #expect(first.status == 0)
            #expect(first.stdout.split(separator: "\n").count == 2)
            #expect(
                first.stderr
                    == "showing 1–2 of \(Self.grouped(total)) matching messages — --limit, --offset or --all for more\n"
            )
            let second = try await CommandRunner.run([
                "search", "--archive", archive, "--limit", "2", "--offset", "2", everything,
            ])
            #expect(second.stderr.hasPrefix("showing 3–4 of \(Self.grouped(total)) matching messages"))
            #expect(Set(first.stdout.split(separator: "\n")).isDisjoint(with: second.stdout.split(separator: "\n")))
            let past = try await CommandRunner.run([
                "search", "--archive", archive, "--offset", "\(total + 5)", everything,
            ])
            #expect(past.stderr.hasPrefix("showing none of \(Self.grouped(total)) matching messages"))

            let all = try await CommandRunner.run([
                "search", "--archive", archive, "--all", "--format", "jsonl", everything,
            ])
            let ids = all.stdout.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0))["id"] }
            #expect(ids.count == total)
            #expect(Set(ids.map { "\($0)" }).count == total)
            let table = try await CommandRunner.run(["search", "--archive", archive, "--all", everything])
            #expect(table.stderr == "showing all \(Self.grouped(total)) matching messages\n")

            let json = try await CommandRunner.run([
                "search", "--archive", archive, "--json", "--limit", "3", everything,
            ])
            #expect(json.status == 0, "\(json.stderr)")
            let document = try JSONValue(parsing: json.stdout)
            #expect(document["total"] == .int(total))
            #expect(document["shown"] == 3)
            #expect(document["limit"] == 3)
            #expect(document["offset"] == 0)
            #expect(document["hits"]?.arrayValue?.count == 3)
            #expect(document["understood_as"] == .string("sent at or after 2000-01-02 00:00 UTC"))
            let counted = try await CommandRunner.run(["search", "--archive", archive, "--count", "--json", everything])
            #expect(try JSONValue(parsing: counted.stdout)["total"] == .int(total))

            let clash = try await CommandRunner.run(["search", "--archive", archive, "--all", "--offset", "3", "x"])
            #expect(clash.status == 2)
            // --all with --limit (even --limit 50, the default): refused, not one of them silently ignored.
            for limit in ["1", "50", "100000"] {
                let both = try await CommandRunner.run(["search", "--archive", archive, "--all", "--limit", limit, "x"])
                #expect(both.status == 2 && both.stderr.contains("--all reads every match; leave out --limit"))
            }
            let every = try await CommandRunner.run([
                "search", "--archive", archive, "--all", "--format", "jsonl", everything,
            ])
            #expect(every.stdout.split(separator: "\n").count == total)
        }
    }

    @Test func datesInAndOutInAZone() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let utc = try await CommandRunner.run([
                "search", "--archive", archive, "--format", "jsonl", "--limit", "1", "hi",
            ])
            let berlin = try await CommandRunner.run([
                "search", "--archive", archive, "--format", "jsonl", "--limit", "1", "--tz", "Europe/Berlin", "hi",
            ])
            let utcDate = try JSONValue(parsing: utc.stdout.trimmingCharacters(in: .newlines))["date"]?.stringValue
            let localDate = try JSONValue(parsing: berlin.stdout.trimmingCharacters(in: .newlines))["date"]?
                .stringValue
            #expect(utcDate?.hasSuffix("Z") == true)
            #expect(
                localDate?.hasSuffix("+01:00") == true || localDate?.hasSuffix("+02:00") == true, "\(localDate ?? "")")
            let zoned = try await CommandRunner.run([
                "search", "--archive", archive, "--explain", "--tz", "Asia/Tokyo", "on:2024-03-01",
            ])
            #expect(
                zoned.stdout.hasPrefix("understood as: sent from 2024-03-01 00:00 +09:00 until 2024-03-02 00:00 +09:00")
            )
            let bad = try await CommandRunner.run(["search", "--archive", archive, "--tz", "Mars/Olympus", "hi"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--tz Mars/Olympus: not a time zone"))
        }
    }

    @Test func wordsInEveryScriptAndTheStorageCheck() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            // The emulator's corpus holds 我们在北京开会, Καλημέρα σε όλους, مرحبا، كيف حالك؟ and 🎉🎉🎉.
            for word in ["北京", "καλημερα", "ΚΑΛΗΜΕΡΑ", "مرحبا", "🎉", "grusse", "munchen", "cam on"] {
                let found = try await CommandRunner.run(["search", "--archive", archive, "--count", word])
                #expect(found.status == 0, "\(word): \(found.stderr)")
                #expect((Int(found.stdout.trimmingCharacters(in: .newlines)) ?? 0) > 0, "\(word) found nothing")
            }
            let check = try await CommandRunner.run(["check", "--archive", archive])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            #expect(check.stdout.hasPrefix("sound"))
        }
    }

    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
