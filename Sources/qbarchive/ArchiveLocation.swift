import Archive
import ArchivePostgres
import ArchiveSQLite
import ArgumentParser
import Crawler
import Foundation

/// The one place that turns an `--archive` value into a storage backend and opens it: every other module
/// works with `ArchiveReader` and `ArchiveWriter` and never learns which backend it got.
enum ArchiveLocation {
    /// The backend for `location`: a `postgresql://` (or `postgres://`) URL is a PostgreSQL archive, a file path
    /// a SQLite archive.
    ///
    /// - Throws: exit code 2 for a URL naming a backend this build does not have, or a PostgreSQL URL that does not
    ///   parse (saying where); exit code 10 for a path that is a directory or lies in a directory that does not
    ///   exist (``checkPath(_:)``).
    static func backend(for location: String) throws -> any ArchiveBackend {
        if let scheme = location.split(separator: ":", maxSplits: 1).first, location.contains("://"),
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" })
        {
            guard isPostgres(location) else {
                throw CommandFailure(
                    "--archive \(scheme)://…: this qbarchive stores archives in SQLite files and PostgreSQL "
                        + "databases; give a file path or a postgresql:// URL",
                    code: .usage)
            }
            do {
                _ = try PostgresLocation(parsing: location)
            } catch {
                throw CommandFailure("--archive: \(error.localizedDescription)", code: .usage)
            }
            return PostgresBackend()
        }
        try checkPath(location)
        return SQLiteBackend(upgradeProgress: UpgradeReporter().observer)
    }

    /// Whether `location` names a PostgreSQL archive.
    static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Refuses, with exit code 10 and words a user can act on, an `--archive` that is a directory, or whose
    /// directory does not exist (a typo there would otherwise read as "no archive" or a lock-file error).
    static func checkPath(_ location: String) throws {
        guard !location.contains("://") else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure(
                "--archive \(location) is a directory; give the archive's file, for example "
                    + "\(location.hasSuffix("/") ? location : location + "/")chat.sqlite", code: ExitCode(10))
        }
        let parent = URL(fileURLWithPath: location).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw CommandFailure(
                "--archive \(location): the directory \(parent) does not exist (create it first, or check the path)",
                code: ExitCode(10))
        }
    }

    /// Opens an existing archive for reading; exit code 10 when it is missing or not an archive.
    static func reader(_ location: String) async throws -> any ArchiveReader {
        let backend = try backend(for: location)
        do {
            return try await backend.openReader(at: location, statementTimeout: nil)
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
    }

    /// Opens an existing archive for reading and writing; exit code 10 when it cannot be.
    static func writer(_ location: String) async throws -> any ArchiveWriter {
        let backend = try backend(for: location)
        do {
            return try await backend.openWriter(at: location)
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
    }

    /// Takes the archive's crawl lock for a command that rewrites it (erase, retain): exit 10 when the lock
    /// file cannot be made or the database not opened, 11 (saying what to do) while a crawl holds it. On
    /// PostgreSQL the crawl lock is taken exclusively, so crawl workers (which hold it shared) keep it out too.
    static func lockForMaintenance(_ location: String, command: String) async throws -> MaintenanceLock {
        _ = try backend(for: location)
        if isPostgres(location) {
            let store = try await writer(location)
            guard let archive = store as? PostgresArchive, let lock = try await archive.lockForCrawl(shared: false)
            else {
                throw CommandFailure(
                    "a crawl (or crawl workers) holds \(store.location)'s crawl lock; run \(command) when no crawl "
                        + "runs (stop the timer or the workers first)",
                    code: ExitCode(11))
            }
            return .session(lock, archive: archive)
        }
        // A wrong path is said before any lock file is made beside it (erase and retain never create an archive).
        guard FileManager.default.fileExists(atPath: location) else {
            throw CommandFailure(ArchiveError.missing(path: location).localizedDescription, code: ExitCode(10))
        }
        do {
            return .file(try ArchiveLock(archivePath: location))
        } catch {
            if error.archiveUnusable { throw CommandFailure(error.localizedDescription, code: ExitCode(10)) }
            throw CommandFailure(
                error.localizedDescription + "; run \(command) when no crawl runs (stop the timer first)",
                code: ExitCode(11))
        }
    }
}
