import GRDB
internal import GRDBSQLite

/// When an archive's writer copies its write-ahead log into the archive file (a checkpoint).
///
/// A checkpoint writes each page the log holds once, however many transactions wrote it. The pages a crawl or an
/// import writes most are leaves of the indexes on `messages` by id, sender and date: each page of a dialog puts
/// a hundred messages all over their range, because sixteen dialogs are read at once and each spans the whole
/// period. Those leaves are a fixed share of the archive, so a log of a fixed size coalesces fewer of them as the
/// archive grows: with SQLite's `wal_autocheckpoint` at 10,000 pages (40 MiB), a crawl of 1M messages wrote 19
/// KB a message to disk and one of 5M 26 KB, and the 5M crawl's writer spent a tenth of its time in `fdatasync`
/// (docs/performance.md, *checkpoints that grow with the archive*).
///
/// The policy checkpoints once the log holds as many pages as the archive file (what the last checkpoint left in
/// it), never sooner than ``minimumPages`` nor later than ``maximumPages``: the log costs at most the archive's
/// size again on disk, and 1 GiB at most, while a crawl or an import runs; SQLite removes it when the archive
/// is closed. It replaces SQLite's automatic checkpoints on writing connections (a `wal_hook`), running the same
/// passive checkpoint: readers are never waited for.
struct CheckpointPolicy: Sendable, Equatable {
    /// Pages the log may always hold: SQLite's `wal_autocheckpoint` as qbarchive set it before (40 MiB).
    var minimumPages: Int
    /// Pages the log never holds more than, however large the archive (1 GiB of 4 KiB pages).
    var maximumPages: Int

    /// The policy of every archive.
    static let standard = CheckpointPolicy(minimumPages: 10_000, maximumPages: 262_144)

    /// How many pages the log may hold before a checkpoint, for an archive file of `archivePages` pages.
    func threshold(archivePages: Int) -> Int {
        min(max(archivePages, minimumPages), maximumPages)
    }
}

extension CheckpointPolicy {
    /// Installs the policy on a writing connection, in place of SQLite's automatic checkpoints.
    ///
    /// SQLite calls the hook after each commit with the pages the log holds. The hook is a C function and cannot
    /// capture the policy, so both bounds travel in its context pointer (``packed``); the archive file's size comes
    /// from its VFS handle, in pages of the connection's size.
    func install(on db: Database) throws {
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        let context = UnsafeMutableRawPointer(bitPattern: packed(pageSize: pageSize))
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, frames in
                guard let connection, let (policy, pageSize) = CheckpointPolicy.unpack(context) else {
                    return SQLITE_OK
                }
                // Below the minimum no threshold can be reached: the file's size is not asked for.
                guard Int(frames) >= policy.minimumPages else { return SQLITE_OK }
                let archivePages = CheckpointPolicy.fileSize(connection, name) / pageSize
                if Int(frames) >= policy.threshold(archivePages: archivePages) {
                    // What SQLite's own hook does (`sqlite3WalDefaultHook`): a failure is left to the next commit.
                    sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, context)
    }

    /// Both bounds and the page size in one word: the minimum in bits 0–23, the maximum in bits 24–51, the page
    /// size's base-2 logarithm in bits 52–56.
    func packed(pageSize: Int) -> UInt {
        let minimum = UInt(clamping: min(minimumPages, (1 << 24) - 1))
        let maximum = UInt(clamping: min(maximumPages, (1 << 28) - 1))
        let shift = UInt(pageSize.trailingZeroBitCount)
        return minimum | maximum << 24 | shift << 52
    }

    /// The policy and page size ``packed(pageSize:)`` put in a context pointer.
    static func unpack(_ context: UnsafeMutableRawPointer?) -> (CheckpointPolicy, Int)? {
        guard let context else { return nil }
        let word = UInt(bitPattern: context)
        let policy = CheckpointPolicy(minimumPages: Int(word & 0xFF_FFFF), maximumPages: Int((word >> 24) & 0xFFF_FFFF))
        return (policy, 1 << Int((word >> 52) & 0x1F))
    }

    /// The size in bytes of the database file `name` of `connection`, 0 when it cannot be read.
    private static func fileSize(_ connection: OpaquePointer, _ name: UnsafePointer<CChar>?) -> Int {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(connection, name, SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file,
            let size = file.pointee.pMethods?.pointee.xFileSize
        else { return 0 }
        var bytes: sqlite3_int64 = 0
        return size(file, &bytes) == SQLITE_OK ? Int(bytes) : 0
    }
}
