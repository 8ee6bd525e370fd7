import GRDB

extension Archive {
    /// How long a write waits for another process's transaction before failing with `SQLITE_BUSY`.
    ///
    /// The crawler holds an archive lock, so the only other writers are short ones (a `status`
    /// checkpoint, a service); five seconds is generous.
    static let busyTimeout: Double = 5

    /// The GRDB configuration of every archive connection.
    ///
    /// WAL comes with `DatabasePool`. Foreign keys on; a busy timeout; `synchronous=NORMAL` set explicitly, because Debian's SQLite
    /// defaults WAL databases to `FULL` (an fsync per commit, with no gain in consistency).
    static func makeConfiguration(readOnly: Bool) -> Configuration {
        var config = Configuration()
        config.readonly = readOnly
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "qbarchive"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return config
    }
}
