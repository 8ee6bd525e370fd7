import Archive
import Foundation
import QuickBlox
import QuickBloxEmulator
import Testing

/// `qbarchive backup` while a crawl writes: every copy is an archive of one instant, checked sound.
@Suite("qbarchive backup: a consistent, checked copy of a live archive (the built binary)")
struct BackupCommandTests {
    @Test func backupsTakenDuringALiveCrawlAreSoundAndWhole() async throws {
        try await CrawlCommandTests.run(latency: 10, configure: { $0.liveRate = 200 }) { _, environment, directory in
            let archive = directory.appendingPathComponent("live.sqlite").path
            // Live changes may take user1 out of a dialog mid-crawl: that dialog fails and the run is partial (3).
            let first = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--quiet"], environment: environment)
            #expect([0, 3].contains(first.status), "\(first.stderr)")
            // A second crawl writes the live changes while backups are taken.
            let crawl = try RunningCommand(
                ["crawl", "--archive", archive, "--quiet", "--reconcile", "--concurrency", "2"],
                environment: environment)
            var counts: [Int] = []
            for index in 0..<4 {
                let copy = directory.appendingPathComponent("copy-\(index).sqlite").path
                let backup = try await CommandRunner.run(["backup", "--archive", archive, "--out", copy, "--json"])
                #expect(backup.status == 0, "\(backup.stderr)")
                #expect(try JSONValue(parsing: backup.stdout)["checked"] == true)
                let check = try await CommandRunner.run(["check", "--archive", copy])
                #expect(check.status == 0, "\(check.stdout)")
                let count = try await CommandRunner.run(["search", "--archive", copy, "--count", "date > 2000"])
                counts.append(Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
                // The copy is an archive of its own: its identity is the original's, and it can be crawled on.
                #expect(!FileManager.default.fileExists(atPath: copy + ".lock"))
            }
            #expect([0, 3].contains(await crawl.wait()))
            #expect(counts.allSatisfy { $0 > 0 } && counts == counts.sorted(), "\(counts)")
            // After the crawl, a backup holds exactly what the archive holds.
            let final = directory.appendingPathComponent("final.sqlite").path
            #expect(
                try await CommandRunner.run(["backup", "--archive", archive, "--out", final, "--quiet"]).status == 0)
            for query in ["date > 2000", "is:deleted", "is:edited"] {
                let original = try await CommandRunner.run(["search", "--archive", archive, "--count", query])
                let copied = try await CommandRunner.run(["search", "--archive", final, "--count", query])
                #expect(original.stdout == copied.stdout, "\(query)")
            }

            // Refusals: an existing --out, the archive itself, a missing archive; --force replaces.
            let exists = try await CommandRunner.run(["backup", "--archive", archive, "--out", final])
            #expect(exists.status == 13 && exists.stderr.contains("exists"), "\(exists)")
            let forced = try await CommandRunner.run([
                "backup", "--archive", archive, "--out", final, "--force", "--quiet",
            ])
            #expect(forced.status == 0 && forced.stdout.isEmpty && forced.stderr.isEmpty, "\(forced)")
            let itself = try await CommandRunner.run(["backup", "--archive", archive, "--out", archive])
            #expect(itself.status == 2)
            let missing = try await CommandRunner.run(["backup", "--archive", archive + ".nope", "--out", final + "2"])
            #expect(missing.status == 10)
            let unwritable = try await CommandRunner.run([
                "backup", "--archive", archive, "--out", "/proc/nope/b.sqlite",
            ])
            #expect(unwritable.status == 13, "\(unwritable)")
            let litter = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                $0.contains(".backup-")
            }
            #expect(litter.isEmpty, "\(litter)")
        }
    }

    @Test func theAttachmentStoreIsCopiedAndOnlyWhatIsNew() async throws {
        try await AttachmentCommandTests.run { environment, directory in
            let archive = directory.appendingPathComponent("f.sqlite").path
            let crawl = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--scope", "app", "--attachments", "files", "--quiet"],
                environment: environment)
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let stored = FileStore(archivePath: archive).allDigests()
            #expect(!stored.isEmpty)
            let copy = directory.appendingPathComponent("copy.sqlite").path
            let backup = try await CommandRunner.run(["backup", "--archive", archive, "--out", copy, "--json"])
            let summary = try JSONValue(parsing: backup.stdout)
            #expect(summary["files_copied"]?.lenientInt == stored.count && summary["files_present"] == .int(0))
            let verify = try await CommandRunner.run(["verify-store", "--archive", copy])
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            let again = try await CommandRunner.run([
                "backup", "--archive", archive, "--out", copy, "--force", "--json",
            ])
            let second = try JSONValue(parsing: again.stdout)
            #expect(second["files_copied"] == .int(0) && second["files_present"]?.lenientInt == stored.count)
        }
    }
}
