import Archive
import ArchivePostgres
import ArchiveSQL
import ArchiveTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Service
import Testing

/// `--read-url` on a real streaming replica: a throwaway cluster, its hot standby made with
/// `pg_basebackup -R` (``PostgresStandby``), and the service reading from the standby while it audits on the
/// primary.
@Suite(
    "serve with a streaming replica (pg_basebackup -R)", .enabled(if: PostgresCluster.isEnabled),
    .timeLimit(.minutes(3)))
struct ServePostgresStandbyTests {
    @Test("--read-url on a hot standby: searches answer as on the primary, /healthz shows its lag, audits replicate")
    func servesFromAHotStandby() async throws {
        let cluster = try await PostgresCluster.start()
        defer { cluster.stop() }
        let database = try await cluster.createDatabase()
        let fixture = try await PostgresServeFixture.make(messages: 200, url: cluster.url(database: database))
        defer { fixture.remove() }
        let standby = try await PostgresStandby.start(from: cluster)
        do {
            try await check(fixture, replica: standby.url(database: database))
        } catch {
            await standby.stop()
            throw error
        }
        await standby.stop()
    }

    private func check(_ fixture: PostgresServeFixture, replica: String) async throws {
        let uris = ["/api/search?q=message+ctn+%22e%22&limit=20", "/api/search?q=from:user2&limit=10&sort=date"]
        let onPrimary = try await PostgresServeFixture.serve(try await fixture.service()) { client in
            var bodies: [String] = []
            for uri in uris { bodies.append(String(buffer: try await client.execute(uri: uri, method: .get).body)) }
            return bodies
        }
        #expect(!onPrimary[0].contains("\"count\":0,"), "\(onPrimary[0])")
        let service = try await fixture.service(poolSize: 3, readLocation: replica)
        try await PostgresServeFixture.serve(service) { client in
            for (uri, expected) in zip(uris, onPrimary) {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                #expect(String(buffer: response.body) == expected, "\(uri)")
            }
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            let json = try JSONValue(parsing: Array(buffer: health.body))
            let standby = try #require(json["read_replica"])
            #expect(standby["reachable"] == true && standby["standby"] == true, "\(json)")
            switch standby["replay_lag_seconds"] {
            case .int(let lag)?: #expect(lag >= 0)
            case .double(let lag)?: #expect(lag >= 0 && lag < 60)
            default: Issue.record("no replay_lag_seconds in \(json)")
            }
            #expect(json["database"]?["standby"] == nil)
        }
        // The audit log was written on the primary (a standby refuses writes) and reaches the standby by replication.
        let primaryEntries = try await Self.auditCount(fixture.url, fixture)
        var replicated = 0
        for _ in 0..<50 where replicated != primaryEntries {
            replicated = try await Self.auditCount(replica, fixture)
            if replicated != primaryEntries { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(primaryEntries == 6 && replicated == primaryEntries, "\(primaryEntries) / \(replicated)")
    }

    private static func auditCount(_ url: String, _ fixture: PostgresServeFixture) async throws -> Int {
        let archive = try await PostgresArchive.open(
            PostgresLocation(parsing: url), files: fixture.files, readOnly: true)
        let count = try await archive.auditEntries().count
        await archive.close()
        return count
    }
}
