import ArchivePostgres
import ArchiveTestSupport
import Foundation
import PostgresNIO
import Testing

/// The throwaway cluster itself: it starts on a socket only, and leaves nothing behind.
struct PostgresClusterTests {
    @Test(.postgres)
    func startsOnASocketOnlyAndStopsLeavingNothing() async throws {
        let cluster = try await PostgresCluster.start()
        let pid = try #require(cluster.postmasterPID)
        #expect(PostgresCluster.isRunning(pid))
        #expect(FileManager.default.fileExists(atPath: cluster.socketDirectory + "/.s.PGSQL.\(PostgresCluster.port)"))

        let location = try PostgresLocation(parsing: cluster.url())
        let (database, user, listening) = try await withClient(location) { client in
            var result: (String, String, String)?
            let rows = try await client.query(
                "SELECT current_database(), current_user, current_setting('listen_addresses')")
            for try await row in rows.decode((String, String, String).self) { result = row }
            return try #require(result)
        }
        #expect(database == PostgresCluster.database)
        #expect(user == PostgresCluster.user)
        #expect(listening == "", "the server must listen on no TCP address")

        cluster.stop()
        for path in [cluster.dataDirectory, cluster.socketDirectory, cluster.directory] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left after stop")
        }
        #expect(!PostgresCluster.isRunning(pid), "the postmaster \(pid) still runs after stop")
        cluster.stop()  // A second stop does nothing.
    }

    @Test(.postgres)
    func makesFreshDatabases() async throws {
        try await PostgresCluster.with { cluster in
            let first = try await cluster.createDatabase()
            let second = try await cluster.createDatabase()
            #expect(first != second)
            let names = try await withClient(PostgresLocation(parsing: cluster.url())) { client in
                try await column(client, "SELECT datname FROM pg_database ORDER BY datname", as: String.self)
            }
            #expect(Set([first, second, PostgresCluster.database]).isSubset(of: names))
        }
    }

    /// Without the binaries the error names the missing tools and how to install them; it needs no server.
    @Test func missingBinariesAreNamedWithTheirRemedy() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("qbarchive-no-pg-\(UUID())").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect {
            try PostgresCluster.Tools.binDirectory(path: empty, libraryRoot: empty + "/postgresql")
        } throws: { error in
            let text = "\(error)"
            return error as? PostgresCluster.Failure == .binariesMissing(tools: ["initdb", "pg_ctl", "createdb"])
                && text.contains("initdb, pg_ctl, createdb") && text.contains("make deps")
                && text.contains("QB_SKIP_PG=1")
        }
    }
}
