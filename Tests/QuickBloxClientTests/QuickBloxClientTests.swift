import Foundation
import HTTPTypes
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator
import Testing

@Suite("QuickBlox client over libcurl, against the emulator")
struct QuickBloxClientTests {
    @Test("A user session lists dialogs and pages messages, and reading changes nothing on the server")
    func readsWithoutSideEffects() async throws {
        try await ClientHarness.run { harness in
            let client = harness.client()
            let before = await harness.truth()
            let dialogs = try await client.dialogs([("limit", "100"), ("sort_asc", "created_at")])
            #expect(!dialogs.items.isEmpty)
            #expect(dialogs.totalEntries == dialogs.items.count)
            let busiest = try #require(
                try await withThrowingTaskGroup(of: (String, Int).self) { group in
                    for dialog in dialogs.items where dialog.occupantIDs.contains(100_001) {
                        group.addTask { (dialog.id, try await client.messageCount(dialogID: dialog.id)) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }.max { $0.1 < $1.1 }
                })
            // Even a caller asking for mark_as_read=1 gets mark_as_read=0.
            let page = try await client.messages(dialogID: busiest.0, [("limit", "50"), ("mark_as_read", "1")])
            #expect(page.items.count == min(50, busiest.1))
            #expect(page.rawItems.count == page.items.count)
            #expect(await harness.truth() == before)
            let statistics = await client.currentStatistics()
            #expect(statistics.sessionsCreated == 1)
            #expect(statistics.retries == 0)
            #expect(statistics.bytesReceived > 0)
        }
    }

    @Test("An API key acts on behalf of any user")
    func apiKeyOnBehalfOf() async throws {
        try await ClientHarness.run { harness in
            let client = harness.apiKeyClient()
            let users = try await client.users(page: 1, perPage: 100)
            #expect(users.items.map(\.id) == (1...6).map { 100_000 + $0 })
            var seen: Set<String> = []
            for user in users.items {
                let page = try await client.dialogs([("limit", "100")], onBehalfOf: user.id)
                seen.formUnion(page.items.map(\.id))
            }
            #expect(seen.count == 12)
        }
    }

    @Test(
        "Refused credentials are an authentication error naming QuickBlox's reason, never the secret",
        arguments: [
            ("wrong secret", "Unexpected signature"), ("wrong password", "Unauthorized"),
            ("wrong key", "Required session does not exist"),
        ])
    func authenticationFailures(case name: String, reason: String) async throws {
        try await ClientHarness.run { harness in
            let client: QuickBloxClient
            switch name {
            case "wrong secret": client = harness.client(secret: "not-the-secret")
            case "wrong password": client = harness.client(password: "hunter2")
            default: client = harness.apiKeyClient("not-the-key")
            }
            let error = try #require(
                await Self.failure { () async throws(QuickBloxClientError) in
                    try await client.dialogs([], onBehalfOf: name == "wrong key" ? 100_001 : nil)
                })
            guard case .authenticationFailed = error else {
                Issue.record("expected authenticationFailed, got \(error)")
                return
            }
            let text = error.localizedDescription
            #expect(text.contains(reason))
            for secret in ["not-the-secret", ClientHarness.secret, "hunter2", "not-the-key", "password1"] {
                #expect(!text.contains(secret))
            }
        }
    }

    @Test("An expired session is replaced once, transparently, even under concurrent requests")
    func reauthentication() async throws {
        try await ClientHarness.run { harness in
            let client = harness.client()
            _ = try await client.dialogs([("limit", "1")])
            try await harness.hook(.post, "/_emulator/expire-tokens")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await client.dialogs([("limit", "1")]) } }
                try await group.waitForAll()
            }
            let statistics = await client.currentStatistics()
            #expect(statistics.sessionsCreated == 2)
            #expect(statistics.retries == 0)
        }
    }

    @Test("5xx, dropped connections and truncated bodies are retried until the answer is right")
    func retriesFaults() async throws {
        let clean = try await ClientHarness.run { harness in
            try await harness.client().dialogs([("limit", "100"), ("sort_asc", "created_at")]).items
        }
        try await ClientHarness.run({
            $0.failRate = 0.2
            $0.resetRate = 0.1
            $0.truncateRate = 0.2
        }) { harness in
            let client = harness.client(attempts: 12)
            for _ in 0..<25 {
                let page = try await client.dialogs([("limit", "100"), ("sort_asc", "created_at")])
                #expect(page.items.map(\.id) == clean.map(\.id))
            }
            let statistics = await client.currentStatistics()
            #expect(statistics.retries > 0)
            let faults = try await harness.hook(.get, "/_emulator/stats")["faults"]?.objectValue ?? [:]
            #expect(faults["reset"] != nil && faults["truncate"] != nil)
        }
    }

    @Test("429 with Retry-After is waited out, then succeeds")
    func rateLimited() async throws {
        try await ClientHarness.run({ $0.rateLimit = 2 }) { harness in
            let client = harness.apiKeyClient(attempts: 20)
            // Eight at once against a bucket of two: some must meet 429, however slow the machine.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await client.users(page: 1) } }
                try await group.waitForAll()
            }
            #expect(await client.currentStatistics().retries > 0)
        }
    }

    @Test("Retries are bounded: every attempt failing ends in one clear error")
    func retriesExhausted() async throws {
        try await ClientHarness.run({ $0.failRate = 1 }) { harness in
            let client = harness.apiKeyClient()
            let error = try #require(
                await Self.failure { () async throws(QuickBloxClientError) in try await client.users(page: 1) })
            if case .retriesExhausted(let endpoint, let attempts, _) = error {
                #expect(endpoint == "GET /users.json")
                #expect(attempts == 3)
            } else {
                Issue.record("got \(error)")
            }
            let stats = try await harness.hook(.get, "/_emulator/stats")
            #expect(stats["requests_total"] == 3)
        }
    }

    @Test("Client errors are not retried: an unknown dialog is one request and a 404")
    func notRetried() async throws {
        try await ClientHarness.run { harness in
            let client = harness.apiKeyClient()
            await #expect {
                _ = try await client.messages(dialogID: "000000000000000000000000", [], onBehalfOf: 100_001)
            } throws: { error in
                (error as? QuickBloxClientError)?.status == 404
                    && (error as? QuickBloxClientError)?.localizedDescription.contains("The resource wasn't found")
                        == true
            }
            #expect(await client.currentStatistics().requests == 1)
        }
    }

    @Test("Requests are paced under maxRequestsPerSecond")
    func pacing() async throws {
        try await ClientHarness.run { harness in
            let client = harness.client(requestsPerSecond: 20)
            let elapsed = try await ContinuousClock().measure {
                for _ in 0..<11 { _ = try await client.dialogs([("limit", "1")]) }
            }
            // 12 requests (a session and 11 pages) at 20 per second cannot take less than 0.55 s.
            #expect(elapsed >= .milliseconds(550))
        }
    }

    /// libcurl's transfers block their thread. On Dispatch's shared queue a machine with two cores ran two
    /// at once, the pool growing by about one thread a second while they blocked: a crawl at 20 ms a response
    /// listed 500 users' dialogs in 7 s instead of 2.5 (docs/performance.md), and these 32 requests took 30 s
    /// instead of one, some waiting so long they were sent again. The emulator counts the requests it answers
    /// at once.
    @Test("Concurrent requests are all in flight at once, whatever the number of cores")
    func concurrentRequestsOverlap() async throws {
        let requests = 32
        try await ClientHarness.run({ $0.latencyMilliseconds = 1_000 }) { harness in
            let client = harness.apiKeyClient()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for user in 0..<requests {
                    group.addTask { _ = try await client.dialogs([("limit", "1")], onBehalfOf: 100_001 + user % 6) }
                }
                try await group.waitForAll()
            }
            let stats = try await harness.hook(.get, "/_emulator/stats")
            #expect(stats["requests_in_flight_max"] == .int(requests))
            #expect(stats["requests_total"] == .int(requests))
        }
    }

    @Test("A server that is not there: connection refused, retried, then a clear error")
    func connectionRefused() async throws {
        var configuration = ClientConfiguration(endpoint: "http://127.0.0.1:9", credentials: .apiKey("k"))
        configuration.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        let client = QuickBloxClient(configuration: configuration, logger: ClientHarness.quiet)
        let error = try #require(
            await Self.failure { () async throws(QuickBloxClientError) in try await client.users(page: 1) })
        if case .retriesExhausted(_, let attempts, let last) = error {
            #expect(attempts == 2)
            #expect(last.contains("libcurl 7"))
        } else {
            Issue.record("got \(error)")
        }
    }

    /// The error a call ends with, or `nil` when it succeeds.
    static func failure<T>(_ body: () async throws(QuickBloxClientError) -> T) async -> QuickBloxClientError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test("A session request whose answer was lost is retried with a fresh nonce, not refused as a replay")
    func sessionRetrySignsAnew() async throws {
        // Half the answers are cut short after the emulator has taken the nonce.
        try await ClientHarness.run({ $0.truncateRate = 0.5 }) { harness in
            for _ in 0..<8 {
                _ = try await harness.client(attempts: 12).createSession()
            }
            let stats = try await harness.hook(.get, "/_emulator/stats")
            #expect((stats["faults"]?["truncate"]?.lenientInt ?? 0) > 0)
        }
    }
}
