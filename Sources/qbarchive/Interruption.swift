import Dispatch
import Foundation

/// Runs work that SIGINT or SIGTERM cancel (so a crawl finishes its page and records the run) instead
/// of killing the process.
enum Interruption {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await work() }
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber)
            source.setEventHandler { task.cancel() }
            source.resume()
            sources.append(source)
        }
        defer { for source in sources { source.cancel() } }
        return try await task.value
    }
}

/// Standard output and error as `@Sendable` writers, unbuffered.
struct StandardStreams: Sendable {
    let out: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }
    let error: @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
}
