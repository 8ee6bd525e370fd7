import Foundation
import Testing

/// Runs the built `qbarchive` binary, as a user or a cron job would.
struct CommandRunner {
    /// The folder holding the test bundle, and so the built `qbarchive` next to it.
    static var binary: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("qbarchive")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs to completion, waiting without blocking a thread: `qbarchive` unless another `executable` is named.
    static func run(
        _ arguments: [String], environment: [String: String]? = nil, executable: URL = binary,
        in directory: String? = nil
    ) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // Read while the process runs: output larger than a pipe's buffer (64 KiB) would otherwise block it.
        async let stdout = readAll(out.fileHandleForReading)
        async let stderr = readAll(err.fileHandleForReading)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                try? out.fileHandleForWriting.close()  // ends the readers
                try? err.fileHandleForWriting.close()
                continuation.resume(throwing: error)
            }
        }
        return Result(
            status: status, stdout: String(decoding: await stdout, as: UTF8.self),
            stderr: String(decoding: await stderr, as: UTF8.self))
    }

    /// Runs a `/bin/sh` command line in `directory`.
    static func shell(_ command: String, in directory: String = "/") async throws -> Result {
        try await run(["-c", command], executable: URL(fileURLWithPath: "/bin/sh"), in: directory)
    }

    /// Reads a pipe to its end on a thread of its own: a blocking read on the concurrency pool (two cores,
    /// two threads) would starve the in-process emulator the command talks to.
    private static func readAll(_ handle: FileHandle) async -> Data {
        await onOwnThread { handle.readDataToEndOfFile() }
    }

    /// Runs a blocking call (a read, a wait for a process) on a thread of its own, never on the concurrency
    /// pool: tests run in parallel, and two blocked pool threads would stop every in-process emulator.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}

/// A long-running `qbarchive` process (the emulator), with its first line of output.
final class RunningCommand: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()

    init(_ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = CommandRunner.binary
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// The first line printed on standard output (waits up to `timeout`).
    func firstLine(timeout: Duration = .seconds(30)) async throws -> String {
        try await Self.firstLine(of: output.fileHandleForReading, timeout: timeout) { _ in true }
    }

    /// The first line on standard output that contains `text` (waits up to `timeout`); the rest stays unread.
    func firstLine(containing text: String, timeout: Duration = .seconds(60)) async throws -> String {
        try await Self.firstLine(of: output.fileHandleForReading, timeout: timeout) { $0.contains(text) }
    }

    /// The first line on standard error that contains `text` (waits up to `timeout`); the rest stays unread.
    func firstErrorLine(containing text: String, timeout: Duration = .seconds(60)) async throws -> String {
        try await Self.firstLine(of: errors.fileHandleForReading, timeout: timeout) { $0.contains(text) }
    }

    /// The first line read from `handle` that `matches` (or all that was read, when it ends first).
    private static func firstLine(
        of handle: FileHandle, timeout: Duration, where matches: @escaping @Sendable (String) -> Bool
    ) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                while true {
                    let chunk = await CommandRunner.onOwnThread { handle.availableData }
                    if chunk.isEmpty { break }
                    bytes += chunk
                    while let newline = bytes.firstIndex(of: 0x0A) {
                        let line = String(decoding: bytes[..<newline], as: UTF8.self)
                        bytes.removeSubrange(...newline)
                        if matches(line) { return line }
                    }
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw CancellationError()
            }
            let line = try await group.next()!
            group.cancelAll()
            return line
        }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Whether the process has a handler installed for signal `number` (Linux: the `SigCgt` mask in
    /// `/proc/PID/status`), read without blocking.
    func catches(_ number: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(number - 1)) != 0
    }

    /// Waits for the process to end and returns its exit status.
    func wait() async -> Int32 {
        await CommandRunner.onOwnThread { [process] in
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// What the process printed on standard output (read to its end: call after ``wait()``).
    var standardOutput: String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    var standardError: String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
