import Archive
import Foundation
import QuickBlox
import Synchronization

/// `/healthz`'s check of one database the service uses (the archive, or its read replica): one cheap read
/// (the archive's identity) on a pool of its own, timed, and bounded by ``timeout`` so that a database that
/// does not answer makes health say so instead of hanging.
struct DatabaseProbe: Sendable {
    /// What `/healthz` says of the database.
    struct Report: Sendable, Equatable {
        /// `postgresql` or `sqlite`.
        var backend: String
        var reachable: Bool
        /// How long the probe's read took, in whole milliseconds (at least 0); `nil` when unreachable.
        var latencyMilliseconds: Int?
        /// For a replica: whether it is a hot standby, and how far behind its primary it is, in seconds.
        var standby: Bool?
        var lagSeconds: Double?
        /// A SQLite archive whose path no longer names the file the service opened (moved, or replaced by a
        /// restored backup): the service still reads and audits the file it opened, so it is not healthy.
        var replaced = false

        /// The JSON `/healthz` shows: never a location, so never a password.
        var json: JSONValue {
            var object: [String: JSONValue] = ["backend": .string(backend), "reachable": .bool(reachable)]
            if let latencyMilliseconds { object["latency_ms"] = .int(latencyMilliseconds) }
            if let standby { object["standby"] = .bool(standby) }
            if let lagSeconds { object["replay_lag_seconds"] = .double((lagSeconds * 1000).rounded() / 1000) }
            if replaced {
                object["problem"] = .string(
                    "the archive file at the path is not the one this service opened (moved or replaced): restart it")
            }
            return .object(object)
        }
    }

    /// The longest a probe waits for its database: less than a load balancer's usual probe timeout.
    static let timeout: Duration = .seconds(2)

    let backend: String
    let reader: any ArchiveReader
    /// Reads the replica's lag; `nil` for the archive itself.
    let lag: (@Sendable (any ArchiveReader) async throws -> Double?)?
    /// A SQLite archive's path and the file (device and inode) it named when the service opened it.
    var file: FileIdentity?

    /// A file as the kernel names it: the same device and inode are the same file whatever its path.
    struct FileIdentity: Sendable, Equatable {
        var path: String
        var device: UInt64
        var inode: UInt64

        /// What `path` names now (`nil` when nothing is there).
        static func of(_ path: String) -> FileIdentity? {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            return FileIdentity(path: path, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        }
    }

    /// The backend a location names: a `postgresql://` or `postgres://` URL, or else a SQLite file.
    static func backendName(of location: String) -> String {
        let lowered = location.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") ? "postgresql" : "sqlite"
    }

    func check() async -> Report {
        if let file, FileIdentity.of(file.path) != file {
            var report = Report(backend: backend, reachable: false)
            report.replaced = true
            return report
        }
        let reader = reader
        let lag = lag
        let started = ContinuousClock.now
        let answer = await Self.within(Self.timeout) { () async throws -> [Double?] in
            _ = try await reader.identity()
            guard let lag else { return [] }
            return [try await lag(reader)]
        }
        guard let answer else { return Report(backend: backend, reachable: false) }
        let elapsed = ContinuousClock.now - started
        let milliseconds =
            Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        var report = Report(backend: backend, reachable: true, latencyMilliseconds: max(0, milliseconds))
        if let lagAnswer = answer.first {
            report.standby = lagAnswer != nil
            report.lagSeconds = lagAnswer
        }
        return report
    }

    /// `work`'s result, or `nil` when it throws or has not finished within `limit`. Returns at the limit even
    /// when `work` ignores cancellation (a pool that keeps retrying a connection): it is cancelled and left
    /// to end on its own.
    static func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async -> T? {
        let resumed = Mutex(false)
        let holder = Mutex<[Task<Void, Never>]>([])
        let result: T? = await withCheckedContinuation { continuation in
            let finish: @Sendable (T?) -> Void = { value in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                guard first else { return }
                continuation.resume(returning: value)
            }
            let worker = Task {
                do {
                    finish(try await work())
                } catch {
                    finish(nil)
                }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                finish(nil)
            }
            holder.withLock { $0 = [worker, timer] }
        }
        for task in holder.withLock({ $0 }) { task.cancel() }
        return result
    }
}
