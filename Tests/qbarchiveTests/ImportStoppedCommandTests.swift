import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// An import that meets a record it cannot read, in a bundle whose checksums are right, through the built
/// binary: it stops there, says what it kept, and keeps the archive as safe as a finished import would.
@Suite("qbarchive import stopped by a record it cannot read (the built binary)")
struct ImportStoppedCommandTests {
    typealias F = ArchiveFixture

    /// A bundle of messages 1…9 (sender 2 wrote 1, 4 and 7; message 1 edited once), and the same bundle with
    /// message `unreadable`'s line replaced by a record no qbarchive reads, checksums made to match again.
    static func bundles(in directory: TemporaryDirectory, unreadable: Int) async throws -> (good: String, bad: String) {
        let old = try await F()
        try await old.write((1...9).map { F.message($0, text: "unique-old-\($0) kiwi", offset: $0) })
        try await old.write(
            [F.message(1, text: "unique-new-1 kiwi", offset: 1, updatedAt: F.baseTime + 500)], at: F.baseTime + 600)
        let good = directory.file("before.tar.gz")
        let exported = try await CommandRunner.run([
            "export", "--archive", old.directory.file("archive.sqlite"), "--out", good,
        ])
        #expect(exported.status == 0, "\(exported.stderr)")
        let bad = directory.file("unreadable.tar.gz")
        try BundleRewriting.rewrite(good, to: bad, file: "messages.jsonl") { bytes in
            var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
            let id = F.objectID(unreadable)
            guard let index = lines.firstIndex(where: { (try? JSONValue(parsing: $0))?["id"]?.stringValue == id })
            else { throw CocoaError(.fileReadCorruptFile) }
            lines[index] = Array(#"{"kind":"poll","id":"\#(id)","from":"a newer qbarchive"}"#.utf8)
            return Array(lines.joined(separator: [10]))
        }
        return (good, bad)
    }

    /// The archive's location for the binary: the SQLite file, or the PostgreSQL database's URL.
    static func location(_ fixture: F) throws -> String {
        fixture.backend.name == TestBackend.postgres.name
            ? try String(contentsOfFile: fixture.directory.file("postgres-url"), encoding: .utf8)
            : fixture.directory.file("archive.sqlite")
    }

    static func count(_ query: String, in archive: String) async throws -> String {
        let found = try await CommandRunner.run(["search", "--archive", archive, query, "--count"])
        #expect(found.status == 0, "\(found.stderr)")
        return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "Into an existing archive: what came before the unreadable record is kept and said so, exit 20",
        arguments: TestBackend.all)
    func anExistingArchiveKeepsWhatCameBeforeAndSaysSo(backend: TestBackend) async throws {
        let scratch = try TemporaryDirectory()
        let (good, bad) = try await Self.bundles(in: scratch, unreadable: 8)
        // The archive: messages 1…3 and the same edit; sender 2 is erased.
        let fixture = try await F(backend: backend)
        try await fixture.write((1...3).map { F.message($0, text: "unique-old-\($0) kiwi", offset: $0) })
        try await fixture.write(
            [F.message(1, text: "unique-new-1 kiwi", offset: 1, updatedAt: F.baseTime + 500)], at: F.baseTime + 600)
        let archive = try Self.location(fixture)
        let erased = try await CommandRunner.run(["erase", "--archive", archive, "--user", "2", "--reason", "req 7"])
        #expect(erased.status == 0, "\(erased.stderr)")

        let stopped = try await CommandRunner.run(["import", "--archive", archive, "--allow-unsigned", bad])
        #expect(stopped.status == 20, "\(stopped)")
        #expect(stopped.stderr.contains("import stopped: messages.jsonl line 8"), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("were stored"), "\(stopped.stderr)")
        #expect(
            stopped.stderr.contains("2 messages erased again"),
            "messages 4 and 7, new to this archive: \(stopped.stderr)")
        #expect(!stopped.stderr.contains("nothing was imported"), "\(stopped.stderr)")
        // Messages 1…7 are in, 8 and 9 are not; sender 2's (1, 4, 7) erased again.
        #expect(try await Self.count("kiwi", in: archive) == "4")
        #expect(try await Self.count("\"unique-old-5\"", in: archive) == "1")
        #expect(try await Self.count("\"unique-old-9\"", in: archive) == "0")
        #expect(try await Self.count("\"unique-old-4\"", in: archive) == "0")
        let log = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
        #expect(log.stdout.contains("stopped") && log.stdout.contains("line 8"), "the stop is audited: \(log.stdout)")
        let digest = ExportReading.sha256(try Data(contentsOf: URL(fileURLWithPath: bad)))
        #expect(log.stdout.contains(digest), "the audit entry names the bundle by its SHA-256")
        if backend.name == TestBackend.sqlite.name {
            let bytes = try ["", "-wal", "-shm"].map { suffix -> Data in
                (try? Data(contentsOf: URL(fileURLWithPath: archive + suffix))) ?? Data()
            }.reduce(Data(), +)
            for number in [1, 4, 7] {
                #expect(bytes.range(of: Data("unique-old-\(number) ".utf8)) == nil, "message \(number)")
            }
        }

        // A readable copy completes it (importing into an existing archive, twice, adds nothing twice).
        for _ in 1...2 {
            let completed = try await CommandRunner.run([
                "import", "--archive", archive, "--allow-unsigned", "--json", good,
            ])
            #expect(completed.status == 0, "\(completed.stderr)")
        }
        #expect(try await Self.count("kiwi", in: archive) == "6")
        let check = try await CommandRunner.run(["check", "--archive", archive])
        #expect(check.status == 0, "\(check)")
    }

    @Test("Into a new SQLite archive, an import that stops leaves no archive: nothing was imported, exit 20")
    func aNewArchiveIsRemoved() async throws {
        let scratch = try TemporaryDirectory()
        for unreadable in [1, 5, 9] {
            let (_, bad) = try await Self.bundles(in: scratch, unreadable: unreadable)
            let archive = scratch.file("new-\(unreadable).sqlite")
            let stopped = try await CommandRunner.run(["import", "--archive", archive, "--allow-unsigned", bad])
            #expect(stopped.status == 20, "\(stopped)")
            #expect(
                stopped.stderr.contains("messages.jsonl line \(unreadable)")
                    && stopped.stderr.contains("nothing was imported"), "\(stopped.stderr)")
            for suffix in ["", "-wal", "-shm", ".files"] {
                #expect(!FileManager.default.fileExists(atPath: archive + suffix), "\(archive + suffix)")
            }
            try? FileManager.default.removeItem(atPath: scratch.file("before.tar.gz"))
            try? FileManager.default.removeItem(atPath: scratch.file("before.tar.gz.sha256"))
            try? FileManager.default.removeItem(atPath: scratch.file("unreadable.tar.gz"))
        }
    }
}
