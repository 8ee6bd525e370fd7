import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

/// Runs an emulator in-process on an ephemeral loopback port and talks to it over real HTTP.
struct EmulatorHarness: Sendable {
    let emulator: Emulator
    let client: any TestClientProtocol

    static let apiKey = "test-api-key"

    /// A small, fast data set: 8 users, 20 dialogs, 1,500 messages, seed 7, API key enabled.
    static func configuration(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration()
        configuration.seed = 7
        configuration.users = 8
        configuration.dialogs = 20
        configuration.messages = 1500
        configuration.apiKey = apiKey
        configure(&configuration)
        return configuration
    }

    static func run<T: Sendable>(
        _ configure: (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: @Sendable (EmulatorHarness) async throws -> T
    ) async throws -> T {
        let emulator = try Emulator(configuration: configuration(configure))
        var logger = Logger(label: "emulator-test")
        logger.logLevel = .warning
        return try await emulator.buildApplication(logger: logger).test(.live) { client in
            try await body(EmulatorHarness(emulator: emulator, client: client))
        }
    }

    var port: Int { client.port! }

    // MARK: Requests

    func request(
        _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], body: String? = nil
    ) async throws -> TestResponse {
        try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    /// `Authorization: ApiKey` acting on behalf of `user`.
    static func asUser(_ user: Int) -> HTTPFields {
        var fields = HTTPFields()
        fields[.authorization] = "ApiKey \(apiKey)"
        fields[HTTPField.Name("On-Behalf-Of")!] = String(user)
        return fields
    }

    /// GET as `user` and parse the JSON body; the status must be `expect`.
    func json(
        _ uri: String, as user: Int = 100_001, expect status: HTTPResponse.Status = .ok,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let response = try await request(.get, uri, headers: Self.asUser(user))
        #expect(response.status == status, "\(uri): \(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try JSONValue(parsing: Data(response.body.readableBytesView))
    }

    /// The messages of a dialog page as `user`, never marking them read.
    func messages(_ dialog: String, _ query: String = "", as user: Int = 100_001) async throws -> [Message] {
        let json = try await json(
            "/chat/Message.json?chat_dialog_id=\(dialog)&mark_as_read=0\(query.isEmpty ? "" : "&" + query)", as: user)
        return try Page<Message>(json: json).items
    }

    /// Every dialog `user` can see.
    func dialogs(as user: Int = 100_001, _ query: String = "") async throws -> [Dialog] {
        let json = try await json("/chat/Dialog.json?limit=100\(query.isEmpty ? "" : "&" + query)", as: user)
        return try Page<Dialog>(json: json).items
    }

    /// A signed `POST /session.json` form body.
    func sessionBody(
        credentials: SessionRequest.Credentials = .login("user1", password: "password1"),
        timestamp: Int = Int(Date().timeIntervalSince1970), nonce: Int = Int.random(in: 1...Int(Int32.max)),
        secret: String = "emulator-auth-secret"
    ) -> String {
        SessionRequest(
            applicationID: 1, authKey: "emulator-auth-key", credentials: credentials, timestamp: timestamp, nonce: nonce
        ).formBody(signedWith: secret)
    }

    /// Creates a session and returns its token.
    func token(_ credentials: SessionRequest.Credentials = .login("user1", password: "password1")) async throws
        -> String
    {
        let response = try await request(
            .post, "/session.json", headers: [.contentType: "application/x-www-form-urlencoded"],
            body: sessionBody(credentials: credentials))
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try Session(json: JSONValue(parsing: Data(response.body.readableBytesView))).token
    }

    /// The truth dump, parsed, line by line.
    func truth() async throws -> [JSONValue] {
        try await emulator.truthLines().map { try JSONValue(parsing: $0) }
    }

    /// The truth's current messages, by id.
    func truthMessages() async throws -> [String: Message] {
        var messages: [String: Message] = [:]
        for line in try await truth() where line["kind"] == "message" {
            let message = try Message(json: line["record"]!)
            messages[message.id] = message
        }
        return messages
    }

    /// The dialog with the most messages that `user` occupies (private or group).
    func busiestDialog(of user: Int = 100_001) async throws -> (Dialog, [Message]) {
        let truth = try await truthMessages()
        let dialogs = try await dialogs(as: user).filter { $0.occupantIDs.contains(user) }
        let counts = Dictionary(grouping: truth.values, by: \.chatDialogID)
        let best = try #require(dialogs.max { (counts[$0.id]?.count ?? 0) < (counts[$1.id]?.count ?? 0) })
        let messages = (counts[best.id] ?? []).sorted { ($0.dateSent, $0.id) < ($1.dateSent, $1.id) }
        return (best, messages)
    }
}

extension TestResponse {
    var json: JSONValue {
        get throws { try JSONValue(parsing: Data(body.readableBytesView)) }
    }
    var text: String { String(buffer: body) }
}
