import Archive
import Foundation
import Testing

/// What qbarchive creates holds people's messages: owner-only, whatever the umask.
@Suite("files qbarchive creates are readable by their owner only (the built binary)")
struct PrivateFilesCommandTests {
    /// Runs `qbarchive` with umask 000, under which a file made with the usual 0644 would be world-writable.
    static func runOpen(_ arguments: [String], environment: [String: String], in directory: String) async throws
        -> CommandRunner.Result
    {
        try await CommandRunner.run(
            ["-c", "umask 000; exec \"$0\" \"$@\"", CommandRunner.binary.path] + arguments, environment: environment,
            executable: URL(fileURLWithPath: "/bin/sh"), in: directory)
    }

    static func mode(_ path: String) -> Int? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return attributes?[.posixPermissions] as? Int
    }

    @Test func archivesAttachmentsExportsChecksumsAndBackupsAreOwnerOnly() async throws {
        try await AttachmentCommandTests.run { environment, directory in
            let folder = directory.path
            let archive = folder + "/private.sqlite"
            let crawl = try await Self.runOpen(
                ["crawl", "--archive", archive, "--scope", "app", "--attachments", "files", "--quiet"],
                environment: environment, in: folder)
            #expect(crawl.status == 0, "\(crawl.stderr)")
            var files = [archive]
            for suffix in ["-wal", "-shm", ".lock"] where FileManager.default.fileExists(atPath: archive + suffix) {
                files.append(archive + suffix)
            }
            // The attachment store: every folder and file in it.
            let store = FileStore(archivePath: archive)
            #expect(!store.allDigests().isEmpty)
            var folders = [store.root]
            let walker = FileManager.default.enumerator(atPath: store.root)
            while let relative = walker?.nextObject() as? String {
                let path = store.root + "/" + relative
                var isDirectory: ObjCBool = false
                FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                if isDirectory.boolValue { folders.append(path) } else { files.append(path) }
            }
            // Exports: to a named file, a bundle with its checksum, and into the default exports/ folder.
            let jsonl = folder + "/out.jsonl"
            let bundle = folder + "/case.tar.gz"
            for arguments in [
                ["export", "--archive", archive, "--format", "jsonl", "--out", jsonl],
                ["export", "--archive", archive, "--format", "bundle", "--out", bundle],
                ["export", "--archive", archive, "--format", "csv"],
                ["backup", "--archive", archive, "--out", folder + "/copy.sqlite", "--quiet"],
            ] {
                let result = try await Self.runOpen(arguments, environment: environment, in: folder)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
            }
            files += [jsonl, bundle, bundle + ".sha256", folder + "/exports/private.csv", folder + "/copy.sqlite"]
            folders.append(folder + "/exports")
            for file in files { #expect(Self.mode(file) == 0o600, "\(file)") }
            for folder in folders { #expect(Self.mode(folder) == 0o700, "\(folder)") }
            // The copy still opens and answers: the mode did not cost a reader.
            let count = try await Self.runOpen(
                ["search", "--archive", folder + "/copy.sqlite", "--count", "date > 2000"], environment: environment,
                in: folder)
            #expect(count.status == 0 && Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines))! > 0)
        }
    }
}
