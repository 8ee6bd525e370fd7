import Archive
import ArchiveSQLite
import ArchiveTestSupport
import Foundation
import QuickBlox
import QuickBloxEmulator
import Testing

/// `qbarchive erase`: gone from every table, index and byte of the file, its WAL and SHM; skeletons kept; the
/// register and audit written; later crawls store it already erased (the built binary).
@Suite("qbarchive erase: gone from the bytes, skeletons kept, honoured by later crawls (the built binary)")
struct EraseCommandTests {
    typealias F = ArchiveFixture

    /// Every file of the archive as bytes: the database, its WAL and its SHM (when there).
    static func bytes(_ archive: String) throws -> [(String, Data)] {
        try ["", "-wal", "-shm"].compactMap { suffix in
            let path = archive + suffix
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    static func found(_ text: String, in files: [(String, Data)]) -> [String] {
        files.filter { $0.1.range(of: Data(text.utf8)) != nil }.map(\.0)
    }

    @Test func aPersonsTextsRevisionsAndProfileAreGoneFromEveryByte() async throws {
        let fixture = try await F()
        let archive = fixture.directory.file("archive.sqlite")
        // Users 1, 2, 3 (messages n go to sender 1 + n % 3), each text unique and findable.
        func unique(_ n: Int) -> String { "zq\(n)x marker-\(UUID().uuidString.prefix(8).lowercased())" }
        let users = [(1, "ana", "Ana Lima"), (2, "bruno", "Bruno Erasmo Vexley"), (3, "cleo", "Cleo Park")]
        try await fixture.archive.storeUsers(
            users.map { id, login, name in
                let user = User(
                    id: id, login: login, email: "\(login)@mail.example", fullName: name, phone: "+1555000\(id)",
                    createdAt: F.baseTime, updatedAt: F.baseTime)
                return (user, user.json)
            }, observedAt: F.baseTime)
        var texts: [Int: String] = [:]
        for n in 1...60 { texts[n] = unique(n) }
        try await fixture.write((1...60).map { F.message($0, text: texts[$0], offset: $0) })
        // Bruno's message 4 edited twice: its two earlier versions are revisions.
        var edits: [String] = []
        for round in 1...2 {
            let text = unique(1000 + round)
            edits.append(texts[4] ?? "")
            texts[4] = text
            try await fixture.write([F.message(4, text: text, offset: 4, updatedAt: F.baseTime + 100 * round)])
        }
        try fixture.sqlite.close()
        let brunos = (1...60).filter { 1 + $0 % 3 == 2 }.compactMap { texts[$0] } + edits
        let others = (1...60).filter { 1 + $0 % 3 != 2 }.compactMap { texts[$0] }
        #expect(Self.found(brunos[0], in: try Self.bytes(archive)).count > 0, "the scan can see a text")

        let dry = try await CommandRunner.run(["erase", "--archive", archive, "--user", "bruno", "--dry-run", "--json"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let counted = try JSONValue(parsing: dry.stdout)
        #expect(counted["messages"] == .int(20) && counted["revisions"] == .int(2) && counted["dry_run"] == true)
        #expect(counted["erasure"] == .null, "a dry run records no erasure: \(dry.stdout)")
        let afterDry = try await CommandRunner.run(["search", "--archive", archive, "--count", "marker"])
        #expect(afterDry.stdout == "62\n" || afterDry.stdout == "60\n", "\(afterDry)")

        let erase = try await CommandRunner.run([
            "erase", "--archive", archive, "--user", "bruno", "--reason", "GDPR request 2026-117", "--json",
        ])
        #expect(erase.status == 0, "\(erase.stderr)")
        let report = try JSONValue(parsing: erase.stdout)
        #expect(report["messages"] == .int(20) && report["revisions"] == .int(2) && report["users"] == .int(1))
        let pseudonym = try #require(report["pseudonym"]?.stringValue)
        #expect(pseudonym.hasPrefix("erased-") && pseudonym.count == 19)

        let files = try Self.bytes(archive)
        for text in brunos {
            #expect(Self.found(text, in: files).isEmpty, "\(text) is still in \(Self.found(text, in: files))")
        }
        for personal in ["Bruno Erasmo Vexley", "bruno@mail.example", "+15550002"] {
            #expect(
                Self.found(personal, in: files).isEmpty, "\(personal) is still in \(Self.found(personal, in: files))")
        }
        #expect(others.allSatisfy { !Self.found($0, in: files).isEmpty }, "no one else's text was touched")

        // The skeletons stay: counts and threads are truthful; no search finds an erased word.
        let all = try await CommandRunner.run(["search", "--archive", archive, "--count", "date > 2000"])
        #expect(all.stdout == "60\n")
        let bySender = try await CommandRunner.run(["search", "--archive", archive, "--count", "sender_id = 2"])
        #expect(bySender.stdout == "20\n")
        for text in brunos.prefix(5) {
            let word = String(text.split(separator: " ")[0])
            let search = try await CommandRunner.run(["search", "--archive", archive, "--count", word])
            #expect(search.stdout == "0\n", "\(word)")
            let substring = try await CommandRunner.run([
                "search", "--archive", archive, "--count", "text ctn \"\(text.suffix(8))\"",
            ])
            #expect(substring.stdout == "0\n")
        }
        let check = try await CommandRunner.run(["check", "--archive", archive])
        #expect(check.status == 0, "\(check.stdout)")

        // The register and the audit log say who, when, why and how many — and nothing erased.
        let audit = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
        #expect(audit.stdout.contains("GDPR request 2026-117") && audit.stdout.contains("\"erase\""), "\(audit)")
        #expect(brunos.allSatisfy { !audit.stdout.contains($0) } && !audit.stdout.contains("Vexley"))
        let verifyAudit = try await CommandRunner.run(["audit", "verify", "--archive", archive])
        #expect(verifyAudit.status == 0, "\(verifyAudit)")

        // Erasing again finds nothing left; unknown targets and bad arguments are refused.
        let again = try await CommandRunner.run(["erase", "--archive", archive, "--user", "2", "--json"])
        #expect(try JSONValue(parsing: again.stdout)["messages"] == .int(0))
        for (arguments, code) in [
            (["--user", "nobody-here"], Int32(14)), (["--message", "ffffffffffffffffffffffff"], 14),
            (["--dialog", "ffffffffffffffffffffffff"], 14), (["--user", "1", "--dialog", "x"], 2), ([String](), 2),
        ] {
            let run = try await CommandRunner.run(["erase", "--archive", archive] + arguments)
            #expect(run.status == code, "\(arguments): \(run)")
        }
    }

    @Test func aLaterCrawlStoresWhatTheServerStillHasAlreadyErased() async throws {
        try await CrawlCommandTests.run { emulator, environment, directory in
            let archive = directory.appendingPathComponent("e.sqlite").path
            let crawl = ["crawl", "--archive", archive, "--quiet"]
            #expect(try await CommandRunner.run(crawl, environment: environment).status == 0)
            // user2's texts that no one else wrote (the emulator's corpus repeats phrases).
            var bySender: [Int: Set<String>] = [:]
            for line in await emulator.truthLines() {
                let json = try JSONValue(parsing: line)
                guard json["kind"] == "message", let record = json["record"] else { continue }
                let message = try Message(json: record)
                guard let text = message.text, text.utf8.count > 12, let sender = message.senderID else { continue }
                bySender[sender, default: []].insert(text)
            }
            let target = 100_002
            let othersTexts = bySender.filter { $0.key != target }.values.reduce(into: Set<String>()) {
                $0.formUnion($1)
            }
            // (Nor as part of a longer text: the scan looks for the bytes anywhere.)
            let own = (bySender[target] ?? []).filter { text in !othersTexts.contains { $0.contains(text) } }
            let archived = own.filter { !Self.found($0, in: (try? Self.bytes(archive)) ?? []).isEmpty }
            #expect(archived.count > 5, "\(archived.count) texts only user2 wrote are archived")

            let erase = try await CommandRunner.run(["erase", "--archive", archive, "--user", "user2", "--json"])
            #expect(erase.status == 0, "\(erase.stderr)")
            // Crawled again, from scratch for these dialogs' changes and with a reconcile: nothing comes back.
            let next = try await CommandRunner.run(crawl + ["--reconcile"], environment: environment)
            #expect([0, 3].contains(next.status), "\(next.stderr)")
            let files = try Self.bytes(archive)
            let back = own.filter { !Self.found($0, in: files).isEmpty }
            #expect(back.isEmpty, "\(back.count) of user2's texts are back: \(back.prefix(3))")
            let export = try await CommandRunner.run([
                "export", "--archive", archive, "--format", "jsonl", "--where", "sender_id = \(target)", "--out", "-",
            ])
            let lines = export.stdout.split(separator: "\n")
            #expect(!lines.isEmpty)
            for line in lines {
                let record = try JSONValue(parsing: String(line))
                #expect(record["text"] == .null, "\(line.prefix(200))")
            }
            let status = try await CommandRunner.run(["search", "--archive", archive, "--count", "from:user2"])
            #expect(status.status == 2 && status.stderr.contains("no archived user"), "the login is gone too")
        }
    }
}

extension EraseCommandTests {
    @Test func killedAtAnyMomentAnErasureIsWholeOrAbsentAndTheNextCommandFinishesIt() async throws {
        try await CrawlCommandTests.run { _, environment, directory in
            let original = directory.appendingPathComponent("k.sqlite").path
            #expect(
                try await CommandRunner.run(["crawl", "--archive", original, "--quiet"], environment: environment)
                    .status == 0)
            let everything = try await CommandRunner.run([
                "export", "--archive", original, "--format", "jsonl", "--out", "-",
            ])
            var texts: [String] = []
            var othersTexts: [String] = []
            for line in everything.stdout.split(separator: "\n") {
                let record = try JSONValue(parsing: String(line))
                guard let text = record["text"]?.stringValue else { continue }
                if record["sender_id"] == .int(100_003) { texts.append(text) } else { othersTexts.append(text) }
            }
            let total = texts.count
            // Texts only user3 wrote, not even inside someone else's (the corpus repeats phrases).
            let own = texts.filter { text in text.utf8.count > 12 && !othersTexts.contains { $0.contains(text) } }
            #expect(own.count > 5)
            #expect(total > 10)
            var outcomes: Set<String> = []
            for round in 0..<6 {
                let archive = directory.appendingPathComponent("k\(round).sqlite").path
                try FileManager.default.copyItem(atPath: original, toPath: archive)
                let erase = try RunningCommand(["erase", "--archive", archive, "--user", "100003"])
                try await Task.sleep(for: .milliseconds(40 + 60 * round))
                erase.signal(SIGKILL)
                _ = await erase.wait()
                // Whole or absent: every message of user3 erased, or none.
                let left = try await CommandRunner.run([
                    "export", "--archive", archive, "--format", "jsonl", "--where", "sender_id = 100003", "--out", "-",
                ])
                let remaining = try left.stdout.split(separator: "\n").filter {
                    try JSONValue(parsing: String($0))["text"] != .null
                }.count
                #expect(remaining == 0 || remaining == total, "round \(round): \(remaining) of \(total) left")
                outcomes.insert(remaining == 0 ? "erased" : "untouched")
                #expect(try await CommandRunner.run(["check", "--archive", archive]).status == 0, "round \(round)")
                // The next erase finishes (or does) it: then no byte of it is left.
                let next = try await CommandRunner.run(["erase", "--archive", archive, "--user", "100003"])
                #expect(next.status == 0, "\(next.stderr)")
                let files = try Self.bytes(archive)
                let back = own.filter { !Self.found($0, in: files).isEmpty }
                #expect(back.isEmpty, "round \(round): \(back.count) of \(own.count) still in the bytes")
            }
        }
    }
}
