import Foundation
import QuickBlox
import Testing

/// What a newcomer trips over first: a mistyped command, a config file written for a shell, a directory or a
/// missing folder given as the archive — each a clear message and a distinct exit code (the built binary).
@Suite("A newcomer's first mistakes get clear answers (the built binary)")
struct NewcomerCommandTests {
    @Test(arguments: [
        ("crawll", "crawl"), ("serach", "search"), ("exprot", "export"), ("stauts", "status"), ("bakcup", "backup"),
        ("verfy", "verify"), ("chek", "check"), ("emulater", "emulator"),
    ])
    func aMistypedCommandNamesTheNearest(typed: String, meant: String) async throws {
        let run = try await CommandRunner.run([typed, "--archive", "x.sqlite"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("`\(typed)` is not a qbarchive command; did you mean `\(meant)`?"), "\(run.stderr)")
    }

    @Test func aWordFarFromEveryCommandListsThemAll() async throws {
        let run = try await CommandRunner.run(["xyzzy"])
        #expect(run.status == 2 && !run.stderr.contains("did you mean") && run.stderr.contains("crawl, status"))
        let help = try await CommandRunner.run(["help", "backup"])
        #expect(help.status == 0 && help.stdout.contains("Never cp a live archive"))
    }

    @Test func aDirectoryOrAMissingFolderAsTheArchiveIsNamed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("newcomer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in [
            ["status"], ["search", "refund"], ["stats"], ["export"], ["check"], ["backup", "--out", "b.sqlite"],
        ] {
            let asDirectory = try await CommandRunner.run(
                Array(command.prefix(1)) + ["--archive", directory.path] + command.dropFirst())
            #expect(
                asDirectory.status == 10 && asDirectory.stderr.contains("is a directory"), "\(command): \(asDirectory)")
            let missing = directory.appendingPathComponent("no-such-folder/chat.sqlite").path
            let inMissing = try await CommandRunner.run(
                Array(command.prefix(1)) + ["--archive", missing] + command.dropFirst())
            #expect(inMissing.status == 10 && inMissing.stderr.contains("does not exist"), "\(command): \(inMissing)")
        }
        let crawl = try await CommandRunner.run(
            ["crawl", "--archive", directory.path, "--scope", "app"],
            environment: ["QB_ENDPOINT": "http://127.0.0.1:9", "QB_API_KEY": "k"])
        #expect(crawl.status == 10 && crawl.stderr.contains("is a directory"), "\(crawl)")
    }

    @Test func aConfigFileWrittenForAShellIsRead() async throws {
        try await CrawlCommandTests.run { _, environment, directory in
            // `export`, CRLF line ends, quotes, comments and a variable for another program.
            var text = "# written for a shell\r\n"
            for (key, value) in environment.sorted(by: { $0.key < $1.key }) { text += "export \(key)=\"\(value)\"\r\n" }
            text += "export PGHOST=/run/postgresql\r\n"
            let config = directory.appendingPathComponent("shell.conf").path
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let archive = directory.appendingPathComponent("c.sqlite").path
            let crawl = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--config", config], environment: [:])
            #expect(crawl.status == 0 && crawl.stdout.hasPrefix("crawl complete"), "\(crawl)")

            // A mistyped setting is named with its line, never ignored and then reported missing.
            try (text + "QB_PASWORD=x\n").write(toFile: config, atomically: true, encoding: .utf8)
            let typo = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--config", config], environment: [:])
            let line = environment.count + 3
            #expect(
                typo.status == 2 && typo.stderr.contains("shell.conf:\(line): QB_PASWORD is not a qbarchive setting"))
            #expect(typo.stderr.contains("did you mean QB_PASSWORD?"), "\(typo.stderr)")
            for secret in environment.values where secret.count > 8 { #expect(!typo.stderr.contains(secret)) }
        }
    }
}
