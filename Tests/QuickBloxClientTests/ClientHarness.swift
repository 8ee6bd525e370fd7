import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator
import Testing

/// An emulator on an ephemeral loopback port, and clients pointed at it over real HTTP (libcurl).
struct ClientHarness: Sendable {
    let emulator: Emulator
    let port: Int
    let hooks: any TestClientProtocol

    static let secret = "s3cr3t-auth-secret"
    static let apiKey = "client-test-api-key"

    static func run<T: Sendable>(
        _ configure: @Sendable (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: @Sendable (ClientHarness) async throws -> T
    ) async throws -> T {
        var configuration = EmulatorConfiguration()
        configuration.seed = 3
        configuration.users = 6
        configuration.dialogs = 12
        configuration.messages = 800
        configuration.authSecret = secret
        configuration.apiKey = apiKey
        configure(&configuration)
        let emulator = try Emulator(configuration: configuration)
        var logger = Logger(label: "client-test")
        logger.logLevel = .warning
        return try await emulator.buildApplication(logger: logger).test(.live) { client in
            try await body(ClientHarness(emulator: emulator, port: client.port!, hooks: client))
        }
    }

    var endpoint: String { "http://localhost:\(port)" }

    /// A client for `userN` (password `passwordN`), fast retries, no pacing unless asked.
    func client(
        user: Int = 1, secret: String = ClientHarness.secret, password: String? = nil, attempts: Int = 6,
        requestsPerSecond: Double = 0
    ) -> QuickBloxClient {
        var configuration = ClientConfiguration(
            endpoint: endpoint,
            credentials: .user(
                applicationID: 1, authKey: "emulator-auth-key", authSecret: secret, login: "user\(user)",
                password: password ?? "password\(user)"))
        configuration.retry = RetryPolicy(
            maxAttempts: attempts, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200))
        configuration.maxRequestsPerSecond = requestsPerSecond
        return QuickBloxClient(configuration: configuration, logger: Self.quiet)
    }

    func apiKeyClient(
        _ key: String = ClientHarness.apiKey, attempts: Int = 3, maxDelay: Duration = .seconds(1)
    ) -> QuickBloxClient {
        var configuration = ClientConfiguration(endpoint: endpoint, credentials: .apiKey(key))
        configuration.retry = RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(20), maxDelay: maxDelay)
        configuration.maxRequestsPerSecond = 0
        return QuickBloxClient(configuration: configuration, logger: Self.quiet)
    }

    static var quiet: Logger {
        var logger = Logger(label: "client-test")
        logger.logLevel = .critical
        return logger
    }

    /// Calls a test hook of the emulator (`/_emulator/...`).
    @discardableResult
    func hook(_ method: HTTPRequest.Method, _ uri: String) async throws -> JSONValue {
        let response = try await hooks.execute(uri: uri, method: method)
        return try JSONValue(parsing: Data(response.body.readableBytesView))
    }

    func truth() async -> [String] { await emulator.truthLines() }
}
