import Foundation
import QuickBlox
import Testing

@Suite("qbarchive export, verify and keygen (the built binary)")
struct ExportCommandTests {
    @Test func exportsVerifiesAndRefusesWithDistinctExitCodes() async throws {
        try await SearchCommandTests.withArchive { archive, total in
            let directory = URL(fileURLWithPath: archive).deletingLastPathComponent()
            let bundle = directory.appendingPathComponent("case.tar.zst").path
            let key = directory.appendingPathComponent("compliance").path
            let keygen = try await CommandRunner.run(["keygen", key])
            #expect(keygen.status == 0 && keygen.stdout.contains("fingerprint"), "\(keygen.stderr)")

            let export = try await CommandRunner.run([
                "export", "--archive", archive, "--bundle", "tar.zst", "--out", bundle, "--sign", key, "--json",
            ])
            #expect(export.status == 0, "\(export.stderr)")
            let summary = try JSONValue(parsing: export.stdout)
            #expect(summary["messages"] == .int(total))

            let verify = try await CommandRunner.run(["verify", bundle, "--key", key + ".pub"])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.hasPrefix("verified \(bundle) (tar.zst, sha256 "))
            #expect(verify.stdout.contains("signed by key"))

            var bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
            bytes[bytes.count - 3] ^= 0x10
            try bytes.write(to: URL(fileURLWithPath: bundle))
            let damaged = try await CommandRunner.run(["verify", bundle, "--json"])
            #expect(damaged.status == 20)
            #expect(damaged.stderr.contains("verification FAILED: case.tar.zst does not match its checksum file"))
            #expect(try JSONValue(parsing: damaged.stdout)["verified"] == false)

            let jsonl = try await CommandRunner.run([
                "export", "--archive", archive, "--format", "jsonl", "--where", "from:user2", "--out", "-",
            ])
            #expect(jsonl.status == 0)
            let lines = jsonl.stdout.split(separator: "\n")
            #expect(!lines.isEmpty)
            #expect(try lines.allSatisfy { try JSONValue(parsing: String($0))["sender_login"] == "user2" })

            let badQuery = try await CommandRunner.run(["export", "--archive", archive, "--where", "sendr_id = 3"])
            #expect(badQuery.status == 2)
            #expect(badQuery.stderr.contains("did you mean `sender_id`"))
            let badDate = try await CommandRunner.run(["export", "--archive", archive, "--since", "March"])
            #expect(badDate.status == 2 && badDate.stderr.contains("--since March is not a date"))
            let stdoutBundle = try await CommandRunner.run(["export", "--archive", archive, "--out", "-"])
            #expect(stdoutBundle.status == 2)
            let missing = try await CommandRunner.run(["export", "--archive", archive + ".nope", "--out", bundle])
            #expect(missing.status == 10)
            let unwritable = try await CommandRunner.run([
                "export", "--archive", archive, "--format", "csv", "--out", "/proc/nope/out.csv",
            ])
            #expect(unwritable.status == 13 && unwritable.stderr.contains("Cannot write /proc/nope/out.csv"))
            let notABundle = try await CommandRunner.run(["verify", archive])
            #expect(notABundle.status == 20)
            let folder = try await CommandRunner.run(["verify", directory.path])
            #expect(folder.status == 10 && folder.stderr.contains("is a folder, not a bundle"), "\(folder)")
            let empty = directory.appendingPathComponent("empty.tar.gz").path
            FileManager.default.createFile(atPath: empty, contents: Data())
            let emptyRun = try await CommandRunner.run(["verify", empty])
            #expect(emptyRun.status == 20 && emptyRun.stderr.contains("verification FAILED"))
            let again = try await CommandRunner.run(["keygen", key])
            #expect(again.status == 13)

            let split = directory.appendingPathComponent("split.tar.gz").path
            let parts = try await CommandRunner.run([
                "export", "--archive", archive, "--max-part-size", "1M", "--out", split, "--json",
            ])
            #expect(parts.status == 0, "\(parts.stderr)")
            let files = try #require(try JSONValue(parsing: parts.stdout)["files"]?.objectValue?.keys.sorted())
            #expect(files.count > 1 && files[0].hasSuffix("split.part01.tar.gz"))
            let all = try await CommandRunner.run(["verify"] + files)
            #expect(all.status == 0 && all.stdout.contains("all \(files.count) parts of the bundle are present"))
            let alone = try await CommandRunner.run(["verify", files[1]])
            #expect(alone.status == 0 && alone.stdout.contains("part 2 of \(files.count) verified alone"), "\(alone)")
            // Every part but the first (given twice when there are only two).
            let some = try await CommandRunner.run(
                ["verify"] + (files.count > 2 ? Array(files.dropFirst()) : [files[1], files[1]]))
            #expect(some.status == 20 && some.stderr.contains("part 1 of \(files.count) is missing"), "\(some.stderr)")
            let restored = directory.appendingPathComponent("restored.sqlite").path
            let imported = try await CommandRunner.run(
                ["import"] + files + ["--archive", restored, "--allow-unsigned"])
            #expect(imported.status == 0, "\(imported.stderr)")
            let count = try await CommandRunner.run(["search", "--archive", restored, "--count", "date > 2000"])
            #expect(count.stdout == "\(total)\n")
            let tooSmall = try await CommandRunner.run(["export", "--archive", archive, "--max-part-size", "10K"])
            #expect(tooSmall.status == 2 && tooSmall.stderr.contains("--max-part-size 10K"))
        }
    }
}
