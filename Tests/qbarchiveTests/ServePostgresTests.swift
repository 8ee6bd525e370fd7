import Archive
import ArchivePostgres
import ArchiveSQL
import ArchiveTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuickBlox
import Service
import Testing

/// `qbarchive serve` on a PostgreSQL archive, in-process (``ArchiveService`` as the command builds it): health
/// reports the database, many moderators at once share a small pool, a read replica serves the reads while
/// the audit log goes to the archive, and a replica that is not one is refused.
@Suite("serve on a PostgreSQL archive (in-process)", .enabled(if: PostgresCluster.isEnabled))
struct ServePostgresTests {
    @Test("/healthz reports the PostgreSQL database: reachable, its latency, and never its location")
    func healthReportsTheDatabase() async throws {
        let fixture = try await PostgresServeFixture.make(messages: 100)
        defer { fixture.remove() }
        let service = try await fixture.service()
        try await PostgresServeFixture.serve(service) { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
            let json = try JSONValue(parsing: Array(buffer: response.body))
            #expect(json["status"] == "ok")
            #expect(json["queries"] == ["running": 0, "waiting": 0])
            let database = try #require(json["database"])
            #expect(database["backend"] == "postgresql")
            #expect(database["reachable"] == true)
            guard case .int(let latency)? = database["latency_ms"] else {
                Issue.record("no latency_ms in \(json)")
                return
            }
            #expect((0..<2000).contains(latency))
            #expect(json["read_replica"] == nil)
            let text = String(buffer: response.body)
            #expect(!text.contains("postgresql://") && !text.contains("qbarchive-pg-"), "\(text)")
        }
    }

    @Test("32 moderators at once on a pool of 3: every search answers as it does alone, none fails")
    func manyModeratorsOnASmallPool() async throws {
        let fixture = try await PostgresServeFixture.make()
        defer { fixture.remove() }
        let service = try await fixture.service(poolSize: 3) { configuration in
            configuration.limits.concurrentQueries = 32
            configuration.limits.queuedQueries = 64
        }
        let queries = [
            "/api/search?q=message+ctn+%22e%22&limit=50", "/api/search?q=from:user2&limit=20&sort=date",
            "/api/search?q=message+ctn+%22in%22&limit=100", "/api/search?q=has:attachment+OR+is:edited&limit=30",
        ]
        try await PostgresServeFixture.serve(service) { client in
            var serial: [String: String] = [:]
            for uri in queries {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                serial[uri] = String(buffer: response.body)
            }
            #expect(serial.values.filter { !$0.contains("\"count\":0,") }.count >= 3, "\(serial)")
            let port = try #require(client.port)
            let answers = try await withThrowingTaskGroup(of: (String, HTTPResponse.Status, String).self) { group in
                for index in 0..<32 {
                    let uri = queries[index % queries.count]
                    group.addTask {
                        let response = try await PostgresServeFixture.oneShot(port: port, uri)
                        return (uri, response.status, response.body.map { String(buffer: $0) } ?? "")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 32)
            for (uri, status, body) in answers {
                #expect(status == .ok, "\(uri): \(body)")
                #expect(body == serial[uri], "\(uri)")
            }
            // The pools' bounds held: reads at most 3 connections, the audit log's and health's at most 2 each.
            let open = try await fixture.fetchInt(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name IS DISTINCT FROM 'checker'
                """)
            #expect((1...7).contains(open ?? 0), "\(open ?? 0) connections")
        }
        let audit = try await PostgresArchive.open(
            PostgresLocation(parsing: fixture.url), files: fixture.files, readOnly: true)
        let entries = try await audit.auditEntries()
        await audit.close()
        #expect(entries.filter { $0.action == "search" }.count == 36)
    }

    @Test("--read-url: reads go to the replica's pool, the audit log to --archive; /healthz reports both")
    func readReplicaServesReads() async throws {
        let fixture = try await PostgresServeFixture.make(messages: 200)
        defer { fixture.remove() }
        let service = try await fixture.service(readLocation: fixture.secondURL)
        try await PostgresServeFixture.serve(service) { client in
            let search = try await client.execute(uri: "/api/search?q=message+ctn+%22e%22&limit=5", method: .get)
            #expect(search.status == .ok)
            #expect(!String(buffer: search.body).contains("\"count\":0,"))
            #expect(try await client.execute(uri: "/api/stats", method: .get).status == .ok)
            // The replica's URL names its connections: they exist because reads went through them.
            let replicaConnections = try await fixture.fetchInt(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = 'replica'
                """)
            #expect((replicaConnections ?? 0) >= 1)
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            let json = try JSONValue(parsing: Array(buffer: health.body))
            #expect(json["status"] == "ok")
            #expect(json["database"]?["reachable"] == true)
            let replica = try #require(json["read_replica"])
            #expect(replica["backend"] == "postgresql" && replica["reachable"] == true)
            // A second URL of the primary is no hot standby: it is never behind, so no lag is reported.
            #expect(replica["standby"] == false && replica["replay_lag_seconds"] == nil)
            #expect(!String(buffer: health.body).contains("postgresql://"))
        }
        let primary = try await PostgresArchive.open(
            PostgresLocation(parsing: fixture.url), files: fixture.files, readOnly: true)
        let actions = try await primary.auditEntries().map(\.action)
        await primary.close()
        #expect(actions == ["serve", "search", "stats"], "\(actions)")
    }

    @Test("A replica holding another archive, or none, is refused at start; no password is shown")
    func wrongReplicasAreRefused() async throws {
        let fixture = try await PostgresServeFixture.make(messages: 20)
        defer { fixture.remove() }
        let other = try await PostgresCluster.processWideDatabase()
        await (try PostgresArchive.open(PostgresLocation(parsing: other))).close()
        let secret = other + "&password=s3cret-replica"
        do {
            _ = try await fixture.service(readLocation: secret)
            Issue.record("another archive was accepted as the replica")
        } catch let error as ServiceSetupError {
            guard case .replicaMismatch = error else {
                Issue.record("\(error)")
                return
            }
            let text = error.localizedDescription
            #expect(text.contains("another archive") && !text.contains("s3cret"), "\(text)")
        }
        let empty = try await PostgresCluster.processWideDatabase()
        do {
            _ = try await fixture.service(readLocation: empty + "&password=s3cret-empty")
            Issue.record("a database without an archive was accepted as the replica")
        } catch let error as ServiceSetupError {
            guard case .replicaUnavailable = error else {
                Issue.record("\(error)")
                return
            }
            let text = error.localizedDescription
            #expect(text.contains("No archive") && !text.contains("s3cret"), "\(text)")
        }
    }

    @Test("A database that stops answering: /healthz is 503 unavailable within its probe's bound")
    func unreachableDatabaseIs503() async throws {
        let cluster = try await PostgresCluster.start()
        defer { cluster.stop() }
        let fixture = PostgresServeFixture(
            url: cluster.url(),
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("serve-pg-\(UUID().uuidString)"))
        defer { fixture.remove() }
        let service = try await fixture.service()
        try await PostgresServeFixture.serve(service) { client in
            // Healthy first: the probe's first connection may take longer than its 2 s bound while a whole test
            // run loads both cores, so this precondition is asked until it holds (up to a minute).
            var healthy = false
            for _ in 0..<30 where !healthy {
                healthy = try await client.execute(uri: "/healthz", method: .get).status == .ok
            }
            #expect(healthy)
            cluster.stop()
            let started = ContinuousClock.now
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(response.status == .serviceUnavailable)
            let json = try JSONValue(parsing: Array(buffer: response.body))
            #expect(json["status"] == "unavailable")
            #expect(json["database"] == ["backend": "postgresql", "reachable": false])
        }
    }
}
