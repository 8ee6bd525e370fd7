import Foundation
import Synchronization
import Testing

@testable import ArchiveSQLite

/// ``GroupCommit`` on its own: callers that arrive while a write runs are written together, every caller gets its own
/// output, and a failed group costs no caller anything but its own item's failure.
@Suite("Group commit")
struct GroupCommitTests {
    /// What a test's writer did: each transaction's items, the committed ones only.
    final class Log: Sendable {
        private let state = Mutex<(committed: [[Int]], attempts: Int)>(([], 0))
        var committed: [[Int]] { state.withLock { $0.committed } }
        var attempts: Int { state.withLock { $0.attempts } }

        /// Writes `items` in one "transaction" after `delay`, failing (and committing none) if one of them is bad.
        func write(_ items: [Int], bad: Set<Int>, delay: Duration) async throws -> [Int] {
            state.withLock { $0.attempts += 1 }
            try await Task.sleep(for: delay)
            if let item = items.first(where: bad.contains) { throw Refused(item: item) }
            state.withLock { $0.committed.append(items) }
            return items.map { $0 * 10 }
        }
    }

    struct Refused: Error, Equatable { let item: Int }

    /// Submits `callers` × `each` items from concurrent callers (each caller's items one after another) and returns,
    /// for every item, its output or its error.
    static func run(
        _ commit: GroupCommit<Int, Int>, callers: Int, each: Int, bad: Set<Int> = [], log: Log,
        delay: Duration = .milliseconds(2)
    ) async -> [Int: Result<Int, Refused>] {
        await withTaskGroup(of: [(Int, Result<Int, Refused>)].self) { group in
            for caller in 0..<callers {
                group.addTask {
                    var results: [(Int, Result<Int, Refused>)] = []
                    for index in 0..<each {
                        let item = caller * 1_000 + index
                        do {
                            let output = try await commit.submit(
                                item, group: { try await log.write($0, bad: bad, delay: delay) },
                                alone: { try await log.write([$0], bad: bad, delay: delay)[0] })
                            results.append((item, .success(output)))
                        } catch let error as Refused {
                            results.append((item, .failure(error)))
                        } catch {
                            Issue.record("unexpected error \(error)")
                        }
                    }
                    return results
                }
            }
            var all: [Int: Result<Int, Refused>] = [:]
            for await results in group { for (item, result) in results { all[item] = result } }
            return all
        }
    }

    @Test(arguments: [(1, 20), (8, 25), (40, 5)])
    func everyCallerGetsItsOwnOutputAndEveryItemIsWrittenOnce(callers: Int, each: Int) async throws {
        let log = Log()
        let commit = GroupCommit<Int, Int>(maximumWeight: 1_000) { _ in 1 }
        let results = await Self.run(commit, callers: callers, each: each, log: log)
        #expect(results.count == callers * each)
        for (item, result) in results { #expect(try result.get() == item * 10) }
        let written = log.committed.flatMap { $0 }
        #expect(written.count == callers * each)
        #expect(Set(written).count == written.count, "no item written twice")
        // Each caller's items in the order it submitted them.
        for caller in 0..<callers {
            let mine = written.filter { $0 / 1_000 == caller }
            #expect(mine == mine.sorted())
        }
        if callers > 1 {
            #expect(log.committed.contains { $0.count > 1 }, "callers that waited were written together")
            #expect(log.committed.count < callers * each)
        } else {
            #expect(log.committed.allSatisfy { $0.count == 1 })
        }
    }

    @Test(arguments: [1, 3, 7])
    func aGroupWeighsNoMoreThanItsMaximum(maximum: Int) async throws {
        let log = Log()
        // Items weigh 1, 2 or 3; a caller's item that alone outweighs the maximum still goes, alone.
        let commit = GroupCommit<Int, Int>(maximumWeight: maximum) { $0 % 3 + 1 }
        let results = await Self.run(commit, callers: 12, each: 6, log: log)
        #expect(results.values.allSatisfy { (try? $0.get()) != nil })
        for group in log.committed where group.count > 1 {
            #expect(group.map { $0 % 3 + 1 }.reduce(0, +) <= maximum)
        }
        #expect(log.committed.flatMap { $0 }.count == 72)
    }

    @Test(arguments: [[2_003], [0, 1_003, 7_001], Array(0..<40).map { $0 * 1_000 + 2 }])
    func anItemThatFailsFailsAloneAndTheOthersAreWritten(badItems: [Int]) async throws {
        let bad = Set(badItems)
        let log = Log()
        let commit = GroupCommit<Int, Int>(maximumWeight: 1_000) { _ in 1 }
        let results = await Self.run(commit, callers: 40, each: 4, bad: bad, log: log)
        #expect(results.count == 160)
        for (item, result) in results {
            if bad.contains(item) {
                #expect(result == .failure(Refused(item: item)))
            } else {
                #expect(try result.get() == item * 10)
            }
        }
        let written = log.committed.flatMap { $0 }
        #expect(Set(written) == Set(results.keys).subtracting(bad))
        #expect(written.count == 160 - bad.count, "nothing written twice, nothing bad written")
        // Every refused item was tried alone at least once (beside any group it failed in).
        #expect(log.attempts >= log.committed.count + bad.count)
    }

    @Test func anIdleWriterTakesTheNextCallerAtOnce() async throws {
        let log = Log()
        let commit = GroupCommit<Int, Int>(maximumWeight: 10) { _ in 1 }
        for item in 0..<5 {
            let output = try await commit.submit(
                item, group: { try await log.write($0, bad: [], delay: .zero) },
                alone: { try await log.write([$0], bad: [], delay: .zero)[0] })
            #expect(output == item * 10)
        }
        #expect(log.committed == [[0], [1], [2], [3], [4]])
        #expect(commit.waitingCount == 0)
    }
}
