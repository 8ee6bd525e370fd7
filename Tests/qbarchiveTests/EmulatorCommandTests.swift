import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Testing

@Suite("qbarchive emulator (the built binary)")
struct EmulatorCommandTests {
    @Test("--help teaches: subcommands, flags, the login pattern, exit 0")
    func help() async throws {
        let root = try await CommandRunner.run(["--help"])
        #expect(root.status == 0)
        #expect(root.stdout.contains("emulator"))
        let emulator = try await CommandRunner.run(["emulator", "--help"])
        #expect(emulator.status == 0)
        for flag in [
            "--host", "--port", "--seed", "--users", "--dialogs", "--messages", "--fixture", "--app-id", "--auth-key",
            "--auth-secret", "--api-key", "--max-limit", "--token-ttl", "--latency-ms", "--jitter-ms", "--fail-rate",
            "--rate-limit", "--reset-rate", "--truncate-rate", "--bad-length-rate", "--large-file-rate",
            "--public-blob-rate", "--storage-url-ttl", "--live", "--dump-truth",
        ] {
            #expect(emulator.stdout.contains(flag), "help lists \(flag)")
        }
        #expect(emulator.stdout.contains("password1"))
    }

    @Test(
        "Bad flags and values exit 2 with a message naming them",
        arguments: [
            (["emulator", "--bogus"], "--bogus"),
            (["emulator", "--fail-rate", "2"], "--fail-rate"),
            (["emulator", "--port", "notanumber"], "--port"),
            (["emulator", "--users", "1"], "--users"),
        ])
    func usageErrors(arguments: [String], mentions: String) async throws {
        let result = try await CommandRunner.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(mentions))
        #expect(result.stdout.isEmpty)
    }

    @Test("A missing fixture is an error (exit 1) that names the file")
    func missingFixture() async throws {
        let result = try await CommandRunner.run(["emulator", "--port", "0", "--fixture", "/nonexistent/truth.jsonl"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/truth.jsonl"))
    }

    @Test("Serves on the announced port, dumps truth on start, on SIGUSR1 and on exit, and stops on SIGTERM")
    func serveAndDump() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "qbarchive-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dump = directory.appendingPathComponent("truth.jsonl").path
        let emulator = try RunningCommand([
            "emulator", "--port", "0", "--users", "5", "--dialogs", "6", "--messages", "300", "--api-key", "k",
            "--dump-truth", dump,
        ])
        let line = try await emulator.firstLine()
        let match = try #require(line.wholeMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/))
        let port = try #require(Int(match.1))
        let initial = try String(contentsOfFile: dump, encoding: .utf8).split(separator: "\n")
        let records = initial.filter {
            !$0.hasPrefix("{\"kind\":\"revision\"") && !$0.hasPrefix("{\"kind\":\"blob\"")
        }
        #expect(records.count == 5 + 6 + 300)

        let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(10)))
        client.connect()
        let dialogs = try await client.execute(
            .init(
                "/chat/Dialog.json?count=1", method: .get,
                headers: [.authorization: "ApiKey k", HTTPField.Name("On-Behalf-Of")!: "100001"]))
        #expect(dialogs.status == .ok)
        #expect(try CountResponse.count(from: JSONValue(parsing: Data(dialogs.body!.readableBytesView))) > 0)
        let live = try await client.execute(.init("/_emulator/live?count=40", method: .post))
        #expect(live.status == .ok)
        try await client.shutdown()

        emulator.signal(SIGUSR1)
        var rewritten = initial
        for _ in 0..<100 where rewritten == initial {
            try await Task.sleep(for: .milliseconds(100))
            rewritten = (try? String(contentsOfFile: dump, encoding: .utf8).split(separator: "\n")) ?? initial
        }
        #expect(rewritten != initial)

        emulator.signal(SIGTERM)
        #expect(await emulator.wait() == 0)
        let final = try String(contentsOfFile: dump, encoding: .utf8)
        #expect(final.hasSuffix("\n"))
        #expect(!FileManager.default.fileExists(atPath: dump + ".tmp-\(emulator.process.processIdentifier)"))
    }
}
