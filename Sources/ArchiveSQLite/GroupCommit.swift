import Synchronization

/// Writes the items that wait for the archive's writer together, in one transaction (a group commit).
///
/// A crawl stores one page of a dialog's messages at a time, and each page was its own transaction: every
/// commit wrote again to the log the index leaves the page touched and flushed a new segment into both full-text
/// indexes, which SQLite then merged again and again. With sixteen dialogs in flight the writer was the crawl's
/// bound (docs/performance.md, *the crawl's pages committed together*). While one transaction runs, the pages
/// that arrive wait; the next transaction writes all of them.
///
/// The first caller to find the writer idle leads: it writes its item with every item waiting, up to
/// ``maximumWeight``, in one call of `group`, and each waiting caller gets its own output. When the group fails,
/// every caller in it writes its item alone (`alone`, its own transaction), so an item fails only for its own
/// reasons, as if it had never been grouped; an item is never half written, since a failed transaction writes
/// nothing. Then the leader hands the writer to the first caller still waiting. No caller returns before its
/// item is committed, and each caller's items are written in the order it submitted them.
///
/// Hand-written: GRDB's writer queue runs one closure after another and offers no way to join them.
final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    /// What a waiting caller is told: its output, to lead the next group, or to write its item alone.
    private enum Turn: Sendable {
        case written(Output)
        case lead
        case alone
    }

    private struct Waiter: Sendable {
        let item: Item
        let turn: CheckedContinuation<Turn, Never>
    }

    private struct State: ~Copyable {
        var busy = false
        var waiting: [Waiter] = []
    }

    /// The largest total weight of a group: the leader's item always goes, others while they fit.
    let maximumWeight: Int
    private let weight: @Sendable (Item) -> Int
    private let state = Mutex(State())

    /// - Parameters:
    ///   - maximumWeight: The most a group may weigh (for pages: messages).
    ///   - weight: One item's weight.
    init(maximumWeight: Int, weight: @escaping @Sendable (Item) -> Int) {
        self.maximumWeight = maximumWeight
        self.weight = weight
    }

    /// How many callers wait for the writer (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }
    /// Whether a caller is writing (for tests).
    var isBusy: Bool { state.withLock { $0.busy } }

    /// Writes `item`, together with the items waiting when the writer is free, and returns its output.
    ///
    /// - Parameters:
    ///   - group: Writes several items in one transaction and returns their outputs in order; throwing, it
    ///     must have written none of them.
    ///   - alone: Writes one item in its own transaction.
    func submit(
        _ item: Item, group: ([Item]) async throws -> [Output], alone: (Item) async throws -> Output
    ) async throws -> Output {
        let turn = await withCheckedContinuation { (turn: CheckedContinuation<Turn, Never>) in
            let leads = state.withLock { state -> Bool in
                if state.busy {
                    state.waiting.append(Waiter(item: item, turn: turn))
                    return false
                }
                state.busy = true
                return true
            }
            if leads { turn.resume(returning: .lead) }
        }
        switch turn {
        case .written(let output): return output
        case .alone: return try await alone(item)
        case .lead: return try await lead(item, group: group, alone: alone)
        }
    }

    /// Writes the leader's item and the waiting ones that fit, answers them, and hands the writer on.
    private func lead(
        _ item: Item, group: ([Item]) async throws -> [Output], alone: (Item) async throws -> Output
    ) async throws -> Output {
        let followers = state.withLock { state -> [Waiter] in
            var total = weight(item)
            var taken = 0
            while taken < state.waiting.count {
                let next = weight(state.waiting[taken].item)
                guard total + next <= maximumWeight else { break }
                total += next
                taken += 1
            }
            defer { state.waiting.removeFirst(taken) }
            return Array(state.waiting.prefix(taken))
        }
        guard !followers.isEmpty else {
            defer { handOver() }
            return try await alone(item)
        }
        let outputs: [Output]
        do {
            outputs = try await group([item] + followers.map(\.item))
            precondition(outputs.count == followers.count + 1, "a group's write returned another number of outputs")
        } catch {
            for follower in followers { follower.turn.resume(returning: .alone) }
            handOver()
            return try await alone(item)
        }
        for (follower, output) in zip(followers, outputs.dropFirst()) {
            follower.turn.resume(returning: .written(output))
        }
        handOver()
        return outputs[0]
    }

    /// Gives the writer to the first caller waiting, or leaves it idle.
    private func handOver() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.turn.resume(returning: .lead)
    }
}
