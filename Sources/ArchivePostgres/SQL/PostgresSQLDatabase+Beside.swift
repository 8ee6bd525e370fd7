import ArchiveSQL
import Logging
import PostgresNIO
import Synchronization

extension PostgresSQLDatabase {
    /// `second` on another pooled connection while `first` runs, in a transaction that imports `first`'s
    /// snapshot (``ExportedSnapshot``), so both see the same archive. When no other connection has been leased
    /// by the time `first` ends (the pool at its size, every connection busy), `second` runs after `first` in
    /// `first`'s transaction instead, and the lease is given up: a read never waits for a second connection, so
    /// reads that each hold one cannot wait for each other. So too on a hot standby, which exports no snapshot.
    ///
    /// A search's total reads every match's row — 24,904 rows for `invoice` at a million messages, 25–35 ms —
    /// while its page reads a few hundred: counted beside the page, the page no longer adds to the search's time
    /// where the server has a core to spare (docs/performance.md, "the total counted beside the page").
    func read<First: Sendable, Second: Sendable>(
        _ first: @escaping @Sendable (any SQLConnection) throws -> First,
        beside second: @escaping @Sendable (any SQLConnection) throws -> Second
    ) async throws -> (First, Second) {
        let (client, logger, timeout) = (client, logger, statementTimeout)
        return try await client.withConnection { connection in
            try await Self.readTransaction(on: connection, timeout: timeout, logger: logger) {
                let snapshot = try await ExportedSnapshot.export(on: connection, logger: logger)
                let side = SideLease()
                return try await withThrowingTaskGroup(of: Second?.self) { group in
                    async let firstPart = BlockingThread.run {
                        try first(PostgresSQLConnection(connection: connection, logger: logger))
                    }
                    if let snapshot {
                        group.addTask {
                            try await client.withConnection { other in
                                guard side.begin() else { return nil }
                                return try await Self.readTransaction(
                                    on: other, timeout: timeout, snapshot: snapshot, logger: logger
                                ) {
                                    try await BlockingThread.run {
                                        try second(PostgresSQLConnection(connection: other, logger: logger))
                                    }
                                }
                            }
                        }
                    }
                    let firstResult = try await firstPart
                    if side.giveUp() {
                        group.cancelAll()
                        let secondResult = try await BlockingThread.run {
                            try second(PostgresSQLConnection(connection: connection, logger: logger))
                        }
                        return (firstResult, secondResult)
                    }
                    // Begun on the other connection: this transaction, whose snapshot it imports, stays open
                    // until it ends.
                    guard let secondResult = try await group.next() ?? nil else { throw SideLeaseLost() }
                    return (firstResult, secondResult)
                }
            }
        }
    }
}

/// Whether the other connection of ``PostgresSQLDatabase/read(_:beside:)`` began its part before the first part
/// ended, or the first connection runs it: whichever comes first decides.
private final class SideLease: Sendable {
    private enum State { case waiting, begun, givenUp }
    private let state = Mutex(State.waiting)

    /// Claims the part for the other connection; `false` when the first connection has taken it.
    func begin() -> Bool { claim(.begun) }
    /// Takes the part back for the first connection; `false` when the other connection has begun it.
    func giveUp() -> Bool { claim(.givenUp) }

    private func claim(_ next: State) -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = next
            return true
        }
    }
}

/// The other connection's part ended without a result after it began (cannot happen: it returns one or throws).
private struct SideLeaseLost: Error {}
