import Foundation

/// Changes a SQLite archive behind qbarchive's back, the way an attacker or a broken disk would: with
/// Python's `sqlite3` module (Debian's `python3`), a tool qbarchive did not write. For tests of what only
/// the SQLite backend has (triggers, the hash chain's rows); other test code never opens the file.
package enum SQLiteSurgery {
    /// Runs `script` (several statements) on the file at `path` and commits.
    package static func run(_ path: String, _ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.executescript(sys.argv[2]); db.commit()",
            path, script,
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SurgeryFailed(
                message: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    package struct SurgeryFailed: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }
}
