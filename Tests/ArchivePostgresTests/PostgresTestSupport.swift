import ArchivePostgres
import ArchiveTestSupport
import PostgresNIO
import Testing

extension Trait where Self == ConditionTrait {
    /// On a test or suite that needs a PostgreSQL server: it runs unless the environment sets `QB_SKIP_PG=1`,
    /// and then it is reported as skipped, never silently passed.
    static var postgres: Self {
        .enabled(if: PostgresCluster.isEnabled, "QB_SKIP_PG=1 skips the tests that need a PostgreSQL server")
    }
}

extension Trait where Self == SharedCluster {
    /// One throwaway cluster for the whole suite, stopped after its last test; each test makes its own
    /// database in it (``SharedCluster/database()``).
    static var sharedCluster: Self { SharedCluster() }
}

/// Starts one ``PostgresCluster`` around a suite, for its tests to make databases in: `initdb` costs seconds on
/// two cores, a database a fraction of one.
struct SharedCluster: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    @TaskLocal static var current: PostgresCluster?

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard PostgresCluster.isEnabled else { return try await function() }
        try await PostgresCluster.with { cluster in
            try await Self.$current.withValue(cluster) { try await function() }
        }
    }

    /// A new, empty database in the suite's cluster: its location.
    static func database(sourceLocation: SourceLocation = #_sourceLocation) async throws -> PostgresLocation {
        let cluster = try #require(current, "the suite has no .sharedCluster trait", sourceLocation: sourceLocation)
        let name = try await cluster.createDatabase()
        return try PostgresLocation(parsing: cluster.url(database: name))
    }
}

/// Runs `body` with a pooled client of `location`, run in a task that ends with `body`.
func withClient<Result: Sendable>(
    _ location: PostgresLocation, _ body: (PostgresClient) async throws -> Result
) async throws -> Result {
    let client = PostgresClient(configuration: location.clientConfiguration())
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        return try await body(client)
    }
}

/// Every value of the first column `query` selects, decoded as `Value`.
func column<Value: PostgresDecodable & Sendable>(
    _ client: PostgresClient, _ query: PostgresQuery, as type: Value.Type = Value.self
) async throws -> [Value] {
    var values: [Value] = []
    for try await value in try await client.query(query).decode(Value.self) { values.append(value) }
    return values
}

/// The message the server gave for `error` (postgres-nio's description hides it, lest it leak data).
func serverMessage(_ error: any Error) -> String {
    (error as? PSQLError)?.serverInfo?[.message] ?? String(reflecting: error)
}
