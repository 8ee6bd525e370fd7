import Archive
import ArchivePostgres
import ArchiveSQL
import ArchiveTestSupport
import Crawler
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import QuickBloxClient
import QuickBloxEmulator
import Service

/// A PostgreSQL archive crawled from the emulator over real HTTP, in a database of its own in the test
/// process's cluster, served in-process by the real ``ArchiveService`` on an ephemeral loopback port.
///
/// These tests live beside the command tests because this target reaches `ArchivePostgres` and the shared
/// `ArchiveTestSupport` (the PostgreSQL cluster); `ServiceTests` reaches SQLite only.
struct PostgresServeFixture: Sendable {
    /// The archive's database.
    let url: String
    /// The test folder: attachment files, exports, saved queries.
    let directory: URL

    static let quiet: Logger = {
        var logger = Logger(label: "serve-postgres-test")
        logger.logLevel = .critical
        return logger
    }()

    var files: FileStore { FileStore(archivePath: directory.appendingPathComponent("archive").path) }
    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Crawls `messages` messages of a seeded emulator into the empty database at `url` (by default a new one in
    /// the test process's cluster).
    static func make(messages: Int = 400, url: String? = nil) async throws -> PostgresServeFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database: String
        if let url { database = url } else { database = try await PostgresCluster.processWideDatabase() }
        let fixture = PostgresServeFixture(url: database, directory: directory)
        let archive = try await PostgresArchive.open(PostgresLocation(parsing: fixture.url), files: fixture.files)
        var configuration = EmulatorConfiguration()
        configuration.seed = 31
        configuration.users = 6
        configuration.dialogs = 8
        configuration.messages = messages
        configuration.apiKey = "k"
        try await Emulator(configuration: configuration).buildApplication(logger: quiet).test(.live) { hooks in
            var client = ClientConfiguration(endpoint: "http://localhost:\(hooks.port!)", credentials: .apiKey("k"))
            client.maxRequestsPerSecond = 0
            var options = CrawlOptions()
            options.scope = .app
            _ = try await Crawl(
                client: QuickBloxClient(configuration: client, logger: quiet), archive: archive, options: options,
                logger: quiet
            ).run()
        }
        await archive.close()
        return fixture
    }

    /// The URL of the same database under another name (`application_name`): a second, distinct location
    /// for the same archive, as a replica's URL would be.
    var secondURL: String { url + "&application_name=replica" }

    func configuration(readLocation: String? = nil) -> ServiceConfiguration {
        var configuration = ServiceConfiguration(
            archivePath: url, host: "127.0.0.1", port: 0,
            exportsDirectory: directory.appendingPathComponent("exports").path,
            queriesDirectory: directory.appendingPathComponent("queries").path, toolVersion: "test")
        configuration.readLocation = readLocation
        return configuration
    }

    /// The service as `qbarchive serve` makes it for PostgreSQL: reads on a pool of `poolSize`, the audit log
    /// and health on pools of 2, the replica's lag read by ``PostgresArchive/replicationLag()``.
    func service(
        poolSize: Int = 6, readLocation: String? = nil, configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> ArchiveService {
        var configuration = configuration(readLocation: readLocation)
        configure(&configuration)
        let options = ServiceBackendOptions(
            upkeep: PostgresBackend(files: files, maximumConnections: 2),
            replicationLag: { reader in try await (reader as? PostgresArchive)?.replicationLag() })
        return try await ArchiveService(
            configuration: configuration, backend: PostgresBackend(files: files, maximumConnections: poolSize),
            options: options)
    }

    /// Runs `service` on an ephemeral loopback port for the duration of `body`.
    static func serve<T: Sendable>(
        _ service: ArchiveService, _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        try await service.buildApplication(logger: quiet).test(.live) { client in try await body(client) }
    }

    /// One request on a connection of its own (the live test client has one connection), for load.
    static func oneShot(port: Int, _ uri: String) async throws -> TestClient.Response {
        let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: .seconds(120)))
        client.connect()
        do {
            let response = try await client.execute(.init(uri, method: .get, authority: "localhost"))
            try await client.shutdown()
            return response
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Runs `statement` (one integer) on the archive's database through a pool of its own, whose connections are
    /// named `checker` (`application_name`).
    func fetchInt(_ statement: SQLFragment) async throws -> Int? {
        let archive = try await PostgresArchive.open(
            PostgresLocation(parsing: url + "&application_name=checker"), files: files, readOnly: true)
        do {
            let value = try await archive.sql.read { connection in try connection.fetchInt(statement) }
            await archive.close()
            return value
        } catch {
            await archive.close()
            throw error
        }
    }
}
