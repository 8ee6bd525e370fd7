import Foundation

/// Runs blocking work (an export holding one read transaction for minutes) on a thread of its own.
///
/// Exports and verifications block on SQLite, file and libarchive calls for their whole length; on the
/// Swift concurrency pool that would take one of the machine's few cooperative threads away from the
/// service's requests.
public enum OwnThread {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
