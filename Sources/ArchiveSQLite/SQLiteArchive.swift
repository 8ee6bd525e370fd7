import ArchiveSQL
import Foundation
import GRDB

/// A qbarchive archive: one SQLite file holding a QuickBlox application's chat history.
///
/// `SQLiteArchive` owns the database connection pool and the schema migrator, as GRDB's `AppDatabase`
/// pattern recommends, and exposes a deliberately narrow API: the crawler writes pages, users,
/// dialogs, tombstones and runs; `status`, the exporters and the tests read through a few focused
/// queries. Nothing outside this module sees GRDB, so a PostgreSQL backend can later implement the
/// same surface.
///
/// The file is in WAL mode with `synchronous=NORMAL`: readers never block the writer, and a crash
/// (even `kill -9`) loses at most the last committed transactions, never consistency. Every write
/// method is one transaction.
///
/// ```swift
/// let archive = try SQLiteArchive.create(at: "chat.qbarchive")
/// try await archive.storeDialogs(rawItems: dialogPage.rawItems)
/// let counts = try await archive.storeMessages(dialogID: id, rawItems: page.rawItems, cursor: next)
/// ```
public final class SQLiteArchive: ArchiveWriter, SQLArchiveReading {
    /// The path of the SQLite file.
    public let path: String
    /// Where the archive is: its path.
    public var location: String { path }
    /// Whether this handle was opened with ``openReadOnly(at:)``.
    public let isReadOnly: Bool
    /// How long one read may run before its statements are interrupted (``openReadOnly(at:statementTimeout:)``);
    /// `nil` for no limit.
    public let statementTimeout: Duration?
    let pool: DatabasePool
    /// How the shared SQL reads run on this archive (``SQLArchiveReading``).
    public var sql: any SQLDatabase { database }
    /// The same, as the SQLite backend's own type (its GRDB connection reachable: ``SQLiteDatabase/writeOnGRDB(_:)``).
    var database: SQLiteDatabase { SQLiteDatabase(pool: pool, statementTimeout: statementTimeout) }
    /// The crawled pages waiting for the writer, committed together
    /// (``storeMessages(_:dialogID:cursor:observedAt:indexFiles:)``).
    let pages = GroupCommit<PageWrite, PageCounts>(maximumWeight: PageWrite.groupMessages) { $0.contents.count }

    private init(path: String, pool: DatabasePool, isReadOnly: Bool, statementTimeout: Duration? = nil) {
        self.path = path
        self.pool = pool
        self.isReadOnly = isReadOnly
        self.statementTimeout = statementTimeout
    }

    /// Creates a new, empty archive at `path` and returns it open for writing.
    ///
    /// Refuses an existing file so that a typo can never overwrite another database. The archive is made under
    /// a temporary name beside `path` (`NAME.creating-…`) and linked into place once complete: the migrations
    /// are several transactions, and a process killed between them must not leave at `path` a half-made file
    /// that no later command would take for an archive. A leftover temporary file is removed by the next create.
    ///
    /// - Throws: ``ArchiveError/alreadyExists(path:)``, or a database error when the directory is
    ///   not writable.
    public static func create(at path: String, now: Int = ArchiveTime.now()) throws -> SQLiteArchive {
        let files = FileManager.default
        guard !files.fileExists(atPath: path) else { throw ArchiveError.alreadyExists(path: path) }
        let url = URL(fileURLWithPath: path)
        let stem = url.lastPathComponent + ".creating-"
        let directory = url.deletingLastPathComponent().path
        for leftover in (try? files.contentsOfDirectory(atPath: directory)) ?? [] where leftover.hasPrefix(stem) {
            try? files.removeItem(atPath: directory + "/" + leftover)
        }
        let temporary = path + ".creating-" + UUID().uuidString.lowercased()
        func removeTemporary() {
            for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: temporary + suffix) }
        }
        do {
            // Made first, owner-only (``PrivateFiles``): SQLite would create it with the umask's mode.
            let failure = PrivateFiles.createEmpty(at: temporary)
            guard failure == 0 else {
                // What opening it would have thrown: a directory that cannot be written is said as before.
                throw DatabaseError(
                    resultCode: .SQLITE_CANTOPEN,
                    message: "cannot create \(path): \(String(cString: strerror(failure)))")
            }
            let pool = try DatabasePool(path: temporary, configuration: makeConfiguration(readOnly: false))
            try migrator.migrate(pool)
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO archive_meta (id, archive_id, created_at, format) VALUES (1, ?, ?, ?)",
                    arguments: [UUID().uuidString.lowercased(), now, formatName])
            }
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try pool.close()
        } catch {
            removeTemporary()
            throw error
        }
        // link(2) fails when `path` appeared meanwhile, where a rename would replace it.
        guard link(temporary, path) == 0 else {
            let failure = errno
            removeTemporary()
            if failure == EEXIST { throw ArchiveError.alreadyExists(path: path) }
            throw ArchiveError.notAnArchive(path: path, reason: String(cString: strerror(failure)))
        }
        removeTemporary()
        let pool = try DatabasePool(path: path, configuration: makeConfiguration(readOnly: false))
        return SQLiteArchive(path: path, pool: pool, isReadOnly: false)
    }

    /// Opens an existing archive for reading and writing, applying any pending migration.
    ///
    /// - Throws: ``ArchiveError/missing(path:)`` when there is no file,
    ///   ``ArchiveError/notAnArchive(path:reason:)`` when the file is not a qbarchive archive, and
    ///   ``ArchiveError/newerFormat(path:)`` when a newer qbarchive wrote it.
    /// - Parameter progress: receives the progress of a long upgrade (a rebuilt index), if one is needed.
    public static func open(at path: String, progress: UpgradeObserver? = nil) throws -> SQLiteArchive {
        try open(at: path, progress: progress, checkpoints: .standard)
    }

    /// ``open(at:progress:)`` with the writer's checkpoints as `checkpoints` says (tests use small bounds).
    static func open(at path: String, progress: UpgradeObserver?, checkpoints: CheckpointPolicy) throws -> SQLiteArchive
    {
        guard FileManager.default.fileExists(atPath: path) else { throw ArchiveError.missing(path: path) }
        try probe(path: path, requireComplete: false)
        let pool = try DatabasePool(
            path: path, configuration: makeConfiguration(readOnly: false, checkpoints: checkpoints))
        try makeMigrator(progress: progress).migrate(pool)
        return SQLiteArchive(path: path, pool: pool, isReadOnly: false)
    }

    /// Opens an existing archive for reading only, for services that must never write.
    ///
    /// An archive written by an older qbarchive is first upgraded (its pending migrations applied
    /// through a read-write connection, then closed) when the file can be written: otherwise a moderator
    /// who updated qbarchive could not search until the next backup ran. Archived data is never changed.
    ///
    /// With a `statementTimeout`, each read (a search, a count, a page of a transcript) is stopped with
    /// ``ArchiveError/timedOut(seconds:)`` once it has run that long: what the service uses, so one costly
    /// query cannot hold a connection and a core for minutes.
    ///
    /// - Throws: the errors of ``open(at:)``, and ``ArchiveError/needsUpgrade(path:)`` when the
    ///   archive's schema is older than this build's and the file cannot be written to upgrade it.
    public static func openReadOnly(
        at path: String, statementTimeout: Duration? = nil, progress: UpgradeObserver? = nil
    ) throws -> SQLiteArchive {
        guard FileManager.default.fileExists(atPath: path) else { throw ArchiveError.missing(path: path) }
        do {
            try probe(path: path, requireComplete: true)
        } catch ArchiveError.needsUpgrade {
            do {
                try open(at: path, progress: progress).close()
            } catch {
                throw ArchiveError.needsUpgrade(path: path)
            }
            try probe(path: path, requireComplete: true)
        }
        let pool = try DatabasePool(path: path, configuration: makeConfiguration(readOnly: true))
        return SQLiteArchive(path: path, pool: pool, isReadOnly: true, statementTimeout: statementTimeout)
    }

    /// Creates an archive whose schema stops at the migration `last`, as an earlier qbarchive made it: for
    /// tests of the migrations after it.
    package static func create(at path: String, migratedUpTo last: String, now: Int = ArchiveTime.now()) throws
        -> SQLiteArchive
    {
        let pool = try DatabasePool(path: path, configuration: makeConfiguration(readOnly: false))
        try migrator.migrate(pool, upTo: last)
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO archive_meta (id, archive_id, created_at, format) VALUES (1, ?, ?, ?)",
                arguments: [UUID().uuidString.lowercased(), now, formatName])
        }
        return SQLiteArchive(path: path, pool: pool, isReadOnly: false)
    }

    /// Closes the connections now rather than when the last reference goes.
    package func close() throws {
        try pool.close()
    }

    /// The value of `archive_meta.format`, which marks a SQLite file as a qbarchive archive.
    static let formatName = "qbarchive"

    /// Checks that the file at `path` is a qbarchive archive this build can open (perhaps after an upgrade),
    /// reading it only: what a crawl asks before it makes a lock file beside the path.
    /// - Throws: the errors of ``open(at:progress:)`` but ``ArchiveError/missing(path:)``.
    public static func checkExisting(at path: String) throws {
        try probe(path: path, requireComplete: false)
    }

    /// Verifies that `path` is a qbarchive archive this build can use, without changing the file.
    ///
    /// Checked through a read-only connection before the pool opens: a `DatabasePool` would switch
    /// a foreign SQLite file to WAL mode, and a migration would add tables to it.
    private static func probe(path: String, requireComplete: Bool) throws {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            try queue.read { db in try check(db, path: path, requireComplete: requireComplete) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw ArchiveError.notAnArchive(path: path, reason: "not a SQLite database")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
            // Most often the folder: SQLite makes the archive's -wal and -shm files beside it.
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let reason =
                access(folder, W_OK) != 0
                ? "its folder \(folder) cannot be written (\(String(cString: strerror(errno)))), and SQLite keeps "
                    + "the archive's -wal and -shm files beside it; copy it to a writable folder"
                : "SQLite could not open the file (\(error.message ?? "unable to open database file"))"
            throw ArchiveError.cannotOpen(path: path, reason: reason)
        }
    }

    private static func check(_ db: Database, path: String, requireComplete: Bool) throws {
        guard try db.tableExists("archive_meta") else {
            throw ArchiveError.notAnArchive(path: path, reason: "a SQLite database without an archive_meta table")
        }
        let format = try String.fetchOne(db, sql: "SELECT format FROM archive_meta WHERE id = 1")
        guard format == formatName else {
            throw ArchiveError.notAnArchive(path: path, reason: "archive_meta does not name the qbarchive format")
        }
        if try migrator.hasBeenSuperseded(db) { throw ArchiveError.newerFormat(path: path) }
        if requireComplete, try !migrator.hasCompletedMigrations(db) {
            throw ArchiveError.needsUpgrade(path: path)
        }
    }
}
