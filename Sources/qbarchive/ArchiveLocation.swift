import Archive
import ArchiveSQLite
import ArgumentParser
import Foundation

/// The one place that turns an `--archive` value into a storage backend and opens it: every other module
/// works with `ArchiveReader` and `ArchiveWriter` and never learns which backend it got.
enum ArchiveLocation {
    /// The backend for `location`: a file path is a SQLite archive.
    ///
    /// - Throws: exit code 2 for a URL naming a backend this build does not have.
    static func backend(for location: String) throws -> any ArchiveBackend {
        if let scheme = location.split(separator: ":", maxSplits: 1).first, location.contains("://"),
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" })
        {
            throw CommandFailure(
                "--archive \(scheme)://…: this qbarchive stores archives in SQLite files only; give a file path",
                code: .usage)
        }
        return SQLiteBackend(upgradeProgress: UpgradeReporter().observer)
    }

    /// Opens an existing archive for reading; exit code 10 when it is missing or not an archive.
    static func reader(_ location: String) throws -> any ArchiveReader {
        let backend = try backend(for: location)
        do {
            return try backend.openReader(at: location, statementTimeout: nil)
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
    }

    /// Opens an existing archive for reading and writing; exit code 10 when it cannot be.
    static func writer(_ location: String) throws -> any ArchiveWriter {
        let backend = try backend(for: location)
        do {
            return try backend.openWriter(at: location)
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
    }
}
