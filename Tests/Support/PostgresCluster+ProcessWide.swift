extension PostgresCluster {
    /// One cluster for the whole test process, started on first use: the conformance suite runs each of its
    /// tests on both backends, and `initdb` costs seconds. It is never stopped by the tests: its watchdog stops
    /// the server and removes its directory when the process ends.
    package static let processWide = Task { try await PostgresCluster.start() }

    /// A new, empty database in ``processWide``: its URL.
    package static func processWideDatabase() async throws -> String {
        let cluster = try await processWide.value
        return cluster.url(database: try await cluster.createDatabase())
    }
}
