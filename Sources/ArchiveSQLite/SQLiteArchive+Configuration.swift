import GRDB

extension SQLiteArchive {
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
            if !db.configuration.readonly {
                // The writer touches the B-trees of messages, their indexes and two FTS5 indexes on every
                // page: a 64 MiB page cache and checkpoints every ~40 MiB of WAL (instead of 4 MiB) keep it
                // from re-reading and re-writing the same pages (see docs/performance.md).
                try db.execute(sql: "PRAGMA cache_size = -65536")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 10000")
            }
            db.add(function: containsFunction)
        }
        return config
    }

    /// `qbarchive_contains(text, pattern)`: case-insensitive substring, for `ctn` patterns shorter than
    /// the trigram index can match. It folds case like the trigram tokenizer (all scripts, accents
    /// kept) and compares Unicode scalars, as the index does; `NULL` text never contains anything.
    static let containsFunction = DatabaseFunction("qbarchive_contains", argumentCount: 2, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) ?? Int.fromDatabaseValue(values[0]).map(String.init),
            let pattern = String.fromDatabaseValue(values[1])
        else { return false }
        return containsFolded(text, pattern)
    }

    /// Whether `text` contains `pattern`, both lower-cased, as sequences of Unicode scalars.
    static func containsFolded(_ text: String, _ pattern: String) -> Bool {
        let haystack = Array(text.lowercased().unicodeScalars)
        let needle = Array(pattern.lowercased().unicodeScalars)
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
