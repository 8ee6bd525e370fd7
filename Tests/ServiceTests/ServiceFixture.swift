import ArchiveSQLite
import Crawler
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator
import Service

/// An archive crawled from the emulator over real HTTP, plus one hostile dialog (names and text full
/// of HTML) with an edited message, served by the real service on an ephemeral loopback port.
struct ServiceFixture: Sendable {
    static let hostileDialogID = "0000000000000000000d1a10"
    static let hostileMessageID = "00000000000000000000bad1"
    static let hostileText = "<script>alert(\"xss\")</script> refund & <img src=x onerror=alert(1)>"
    static let hostileName = "<b onmouseover=alert('room')>Room</b>"
    static let hostileUser = "<script>alert('user')</script>"

    let directory: URL
    let archivePath: String
    let queriesDirectory: String

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: directory) }

    static let quiet: Logger = {
        var logger = Logger(label: "service-test")
        logger.logLevel = .critical
        return logger
    }()

    static func emulatorConfiguration(messages: Int = 600) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration()
        configuration.seed = 31
        configuration.users = 6
        configuration.dialogs = 8
        configuration.messages = messages
        configuration.apiKey = "k"
        return configuration
    }

    static func make(messages: Int = 600) async throws -> ServiceFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let archivePath = directory.appendingPathComponent("archive.sqlite").path
        let archive = try SQLiteArchive.create(at: archivePath)
        let emulator = try Emulator(configuration: emulatorConfiguration(messages: messages))
        try await emulator.buildApplication(logger: quiet).test(.live) { hooks in
            try await crawl(port: hooks.port!, into: archive)
        }
        try await addHostileDialog(to: archive)
        let queries = directory.appendingPathComponent("queries").path
        try FileManager.default.createDirectory(atPath: queries, withIntermediateDirectories: true)
        try "# title: Refund talk\n# purpose: money back requests\n# owner: trust-and-safety\nrefund\n".write(
            toFile: queries + "/refunds.qbq", atomically: true, encoding: .utf8)
        return ServiceFixture(directory: directory, archivePath: archivePath, queriesDirectory: queries)
    }

    static func crawl(port: Int, into archive: SQLiteArchive) async throws {
        var client = ClientConfiguration(endpoint: "http://localhost:\(port)", credentials: .apiKey("k"))
        client.maxRequestsPerSecond = 0
        var options = CrawlOptions()
        options.scope = .app
        _ = try await Crawl(
            client: QuickBloxClient(configuration: client, logger: quiet), archive: archive, options: options,
            logger: quiet
        ).run()
    }

    /// A group whose name, member and message are HTML, and whose message was edited once.
    static func addHostileDialog(to archive: SQLiteArchive) async throws {
        let now = ArchiveTime.now()
        try await archive.storeUsers(
            rawItems: [User(id: 990, login: "mallory", fullName: hostileUser, createdAt: 0, updatedAt: 0).json])
        try await archive.storeDialogs(rawItems: [
            Dialog(
                id: hostileDialogID, type: .group, name: hostileName, userID: 990, occupantIDs: [990, 100001],
                createdAt: now - 100, updatedAt: now
            ).json
        ])
        var message = Message(
            id: hostileMessageID, chatDialogID: hostileDialogID, text: "first version: wire me money",
            dateSent: now - 50,
            senderID: 990, recipientID: nil, attachments: [Attachment(type: "image", id: "<i>pic</i>")], readIDs: [],
            createdAt: now - 50, updatedAt: now - 50, extra: [:])
        _ = try await archive.storeMessages(dialogID: hostileDialogID, rawItems: [message.json], cursor: nil)
        message.text = hostileText
        message.updatedAt = now - 10
        _ = try await archive.storeMessages(dialogID: hostileDialogID, rawItems: [message.json], cursor: nil)
    }

    func configuration(token: String? = nil) -> ServiceConfiguration {
        ServiceConfiguration(
            archivePath: archivePath, host: "127.0.0.1", port: 0, token: token,
            exportsDirectory: path("exports"), queriesDirectory: queriesDirectory, toolVersion: "test")
    }

    /// Runs the service on an ephemeral loopback port for the duration of `body`; `configure` may change
    /// the configuration first (limits, proxy trust).
    func serve<T: Sendable>(
        token: String? = nil, configure: (inout ServiceConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        var configuration = configuration(token: token)
        configure(&configuration)
        let service = try await ArchiveService(configuration: configuration, backend: SQLiteBackend())
        return try await service.buildApplication(logger: Self.quiet).test(.live) { client in try await body(client) }
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    var json: JSONValue {
        get throws { try JSONValue(parsing: Array(buffer: body)) }
    }
}
