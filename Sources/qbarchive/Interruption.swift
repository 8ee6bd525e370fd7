import Dispatch
import Foundation
import Synchronization

/// Runs work that SIGINT or SIGTERM cancel (so a crawl finishes its page and records the run) instead
/// of killing the process.
///
/// The work starts only once both signal sources are registered, so every signal that arrives while it
/// runs is seen. On Linux, libdispatch installs its own handler when a signal source registers;
/// ignoring the signal beforehand (`SIG_IGN`, which kqueue needs) would only drop a signal arriving in
/// between, and the crawl would then run to its end, so there a signal before registration keeps its
/// default action and ends the process before any work began.
enum Interruption {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let target = CancelTarget()
        let sources = [SIGINT, SIGTERM].map { signalNumber -> any DispatchSourceSignal in
            #if !os(Linux)
                signal(signalNumber, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: signalNumber)
            source.setEventHandler { target.cancel() }
            return source
        }
        defer { for source in sources { source.cancel() } }
        await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
            let pending = Mutex(sources.count)
            for source in sources {
                source.setRegistrationHandler {
                    let left = pending.withLock {
                        $0 -= 1
                        return $0
                    }
                    if left == 0 { registered.resume() }
                }
                source.resume()
            }
        }
        let task = Task { try await work() }
        target.set { task.cancel() }
        return try await task.value
    }
}

/// What a signal cancels: the work's task once it exists; a signal before that cancels it on arrival.
private final class CancelTarget: Sendable {
    private let state = Mutex<(cancel: (@Sendable () -> Void)?, requested: Bool)>((nil, false))

    func cancel() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.requested = true
            return state.cancel
        }
        cancel?()
    }

    func set(_ cancel: @escaping @Sendable () -> Void) {
        let requested = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.requested
        }
        if requested { cancel() }
    }
}

/// Standard output and error as `@Sendable` writers, unbuffered.
struct StandardStreams: Sendable {
    let out: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }
    let error: @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
}
