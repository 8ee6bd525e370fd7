import Archive
import Foundation

/// Hands batches from a thread that blocks (a cursor stepping through SQLite) to an async consumer, one at
/// a time, with back-pressure: the producer waits while the consumer has not taken the last batch, so a
/// stream of a million rows holds at most two batches in memory.
///
/// Written by hand because the libraries at hand bridge the other way (`AsyncStream` never makes its
/// producer wait; swift-async-algorithms' channels need an async producer). The producer calls
/// ``send(_:)`` and ``finish(throwing:)`` from its thread; the consumer reads ``stream``. When the
/// consumer stops reading (cancelled, an error, the snapshot's scope ends), ``cancel()`` makes the
/// producer's next ``send(_:)`` throw, so its cursor and transaction end.
public final class BlockingChannel<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffered: Element?
    private var waiting: CheckedContinuation<Element?, any Error>?
    private var ended = false
    private var failure: (any Error)?
    private var cancelled = false

    public init() {}

    /// Gives one element to the consumer, waiting while the previous one has not been taken.
    ///
    /// - Throws: `CancellationError` once the consumer is gone.
    public func send(_ element: Element) throws {
        condition.lock()
        while buffered != nil, !cancelled { condition.wait() }
        guard !cancelled else {
            condition.unlock()
            throw CancellationError()
        }
        if let waiting {
            self.waiting = nil
            condition.unlock()
            waiting.resume(returning: element)
            return
        }
        buffered = element
        condition.unlock()
    }

    /// Ends the stream after what was sent, with `error` when the producer failed.
    public func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        ended = true
        failure = error
        let waiting = self.waiting
        self.waiting = nil
        condition.unlock()
        if let error { waiting?.resume(throwing: error) } else { waiting?.resume(returning: nil) }
    }

    /// The consumer is gone: the producer's next send throws, and its waits end.
    public func cancel() {
        condition.lock()
        cancelled = true
        buffered = nil
        let waiting = self.waiting
        self.waiting = nil
        condition.broadcast()
        condition.unlock()
        waiting?.resume(throwing: CancellationError())
    }

    /// The next element, `nil` at the end.
    public func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                condition.lock()
                if let element = buffered {
                    buffered = nil
                    condition.signal()
                    condition.unlock()
                    continuation.resume(returning: element)
                } else if cancelled {
                    condition.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if ended {
                    let failure = self.failure
                    condition.unlock()
                    if let failure {
                        continuation.resume(throwing: failure)
                    } else {
                        continuation.resume(returning: nil)
                    }
                } else {
                    waiting = continuation
                    condition.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The elements as an async stream for the consumer.
    public var stream: AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream(unfolding: { [self] in try await next() })
    }
}
