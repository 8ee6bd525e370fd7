import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

@Suite("Fault injection")
struct FaultTests {
    /// A fresh connection per request, since some faults close the connection.
    static func fresh(_ port: Int, _ uri: String, headers: HTTPFields = EmulatorHarness.asUser(100_001)) async throws
        -> TestClient.Response
    {
        let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: .seconds(10)))
        client.connect()
        defer { Task { try? await client.shutdown() } }
        return try await client.execute(.init(uri, method: .get, headers: headers))
    }

    /// `curl` reports exactly what a crawler's libcurl sees: status, bytes received, and its exit code.
    ///
    /// Waits without blocking a thread: the in-process server needs the cooperative pool to answer.
    static func curl(_ url: String) async throws -> (exit: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "-s", "--max-time", "60", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
            "-H", "Authorization: ApiKey \(EmulatorHarness.apiKey)", "-H", "On-Behalf-Of: 100001", url,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, output)
    }

    @Test("--fail-rate 1: every QuickBlox endpoint answers 500, 502 or 503 with a JSON body; test hooks never fail")
    func failures() async throws {
        try await EmulatorHarness.run({ $0.failRate = 1 }) { harness in
            var statuses: Set<Int> = []
            for _ in 0..<30 {
                let response = try await harness.request(.get, "/users.json", headers: EmulatorHarness.asUser(100_001))
                statuses.insert(response.status.code)
                #expect(QuickBloxErrorBody(json: try response.json) != nil)
            }
            #expect(statuses == [500, 502, 503])
            let stats = try await harness.json("/_emulator/stats")
            #expect(stats["faults"]?["500"] != nil)
            #expect(stats["requests"]?["GET /users"] == 30 || stats["requests"]?["GET /users.json"] == 30)
        }
    }

    @Test("The same seed injects the same faults in the same order")
    func faultsAreReproducible() async throws {
        @Sendable func sequence(seed: UInt64) async throws -> [Int] {
            try await EmulatorHarness.run({
                $0.seed = seed
                $0.failRate = 0.5
            }) { harness in
                var codes: [Int] = []
                for _ in 0..<40 {
                    codes.append(
                        try await harness.request(.get, "/users.json", headers: EmulatorHarness.asUser(100_001)).status
                            .code)
                }
                return codes
            }
        }
        let first = try await sequence(seed: 11)
        #expect(try await sequence(seed: 11) == first)
        #expect(try await sequence(seed: 12) != first)
        #expect(first.contains(200) && first.contains { $0 >= 500 })
    }

    @Test("--rate-limit: requests over the limit get 429 with Retry-After and a JSON body")
    func rateLimit() async throws {
        try await EmulatorHarness.run({ $0.rateLimit = 1 }) { harness in
            // Ten requests at once, a few times over: sent one after the other on a loaded machine, each may take
            // longer than the limit's second and none would be over it.
            var limited: [TestResponse] = []
            for _ in 0..<5 where limited.isEmpty {
                limited = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            try await harness.request(.get, "/users.json", headers: EmulatorHarness.asUser(100_001))
                        }
                    }
                    return try await group.reduce(into: []) { if $1.status == .tooManyRequests { $0.append($1) } }
                }
            }
            #expect(!limited.isEmpty)
            let first = try #require(limited.first)
            #expect(first.headers[.retryAfter] == "1")
            #expect(first.text == #"{"errors":["Too Many Requests"]}"#)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(
                try await harness.request(.get, "/users.json", headers: EmulatorHarness.asUser(100_001)).status == .ok)
        }
    }

    @Test("--reset-rate 1: the connection closes without a response")
    func resets() async throws {
        try await EmulatorHarness.run({ $0.resetRate = 1 }) { harness in
            let result = try await Self.curl("http://127.0.0.1:\(harness.port)/users.json")
            // curl 52: empty reply from server (or 56: connection reset).
            #expect([52, 56].contains(result.exit), "curl said \(result)")
            #expect(result.output.hasPrefix("000"))
            await #expect(throws: (any Error).self) { try await Self.fresh(harness.port, "/users.json") }
        }
    }

    @Test("--truncate-rate 1: the body stops mid-JSON, short of its Content-Length")
    func truncation() async throws {
        try await EmulatorHarness.run({ $0.truncateRate = 1 }) { harness in
            let result = try await Self.curl("http://127.0.0.1:\(harness.port)/users.json?per_page=50")
            // curl 18: transfer closed with outstanding read data remaining.
            #expect(result.exit == 18, "curl said \(result)")
            let parts = result.output.split(separator: " ")
            #expect(parts.first == "200")
            #expect((Int(parts.last ?? "") ?? 0) > 0)
        }
    }

    @Test("--latency-ms delays every answer by at least that much")
    func latency() async throws {
        try await EmulatorHarness.run({ $0.latencyMilliseconds = 120 }) { harness in
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                for _ in 0..<3 {
                    _ = try await harness.request(.get, "/users.json", headers: EmulatorHarness.asUser(100_001))
                }
            }
            #expect(elapsed >= .milliseconds(360))
        }
    }

    @Test("--jitter-ms adds a random delay of up to that much on top")
    func jitter() async throws {
        try await EmulatorHarness.run({ $0.jitterMilliseconds = 300 }) { harness in
            let clock = ContinuousClock()
            var longest = Duration.zero
            for _ in 0..<8 {
                let elapsed = try await clock.measure {
                    _ = try await harness.request(.get, "/users.json", headers: EmulatorHarness.asUser(100_001))
                }
                longest = max(longest, elapsed)
            }
            // Eight uniform draws from 0...300 ms all staying under 50 ms has odds below 1 in a million.
            #expect(longest >= .milliseconds(50))
        }
    }
}
