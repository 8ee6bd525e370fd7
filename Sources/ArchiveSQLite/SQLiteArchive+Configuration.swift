import GRDB
import QueryLanguage
import TextIndex

extension SQLiteArchive {
    /// How long a write waits for another process's transaction before failing with `SQLITE_BUSY`.
    ///
    /// The crawler holds an archive lock, so the only other writers are short ones (a `status`
    /// checkpoint, a service); five seconds is generous.
    static let busyTimeout: Double = 5

    /// The writer's page cache (`PRAGMA cache_size`, negative: KiB): 64 MiB.
    static let writerCacheSize = -65_536
    /// The writer's page cache while it refreshes the statistics roll-ups: 8 MiB, which also bounds each of the
    /// refresh's sorts in memory (``settleAfterBulkChange()``).
    static let refreshCacheSize = -8_192

    /// The GRDB configuration of every archive connection.
    ///
    /// WAL comes with `DatabasePool`. Foreign keys on; a busy timeout; `synchronous=NORMAL` set explicitly, because Debian's SQLite
    /// defaults WAL databases to `FULL` (an fsync per commit, with no gain in consistency).
    /// - Parameter checkpoints: when the writer copies its log into the archive (tests set small bounds).
    static func makeConfiguration(readOnly: Bool, checkpoints: CheckpointPolicy = .standard) -> Configuration {
        var config = Configuration()
        config.readonly = readOnly
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "qbarchive"
        // A restore holds its batches in one transaction across several accesses (``SQLiteImportSession``), which
        // always ends it; every other write is one `write` access, which fails loudly inside an open transaction.
        config.allowsUnsafeTransactions = !readOnly
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if !db.configuration.readonly {
                // The writer touches the B-trees of messages, their indexes and two FTS5 indexes on every
                // page: a 64 MiB page cache and checkpoints when the log is as large as the archive (40 MiB to
                // 1 GiB, instead of SQLite's 4 MiB) keep it from re-reading and re-writing the same pages
                // (``CheckpointPolicy``; docs/performance.md).
                try db.execute(sql: "PRAGMA cache_size = \(writerCacheSize)")
                try checkpoints.install(on: db)
            }
            db.add(function: containsFunction)
            db.add(function: numberFunction)
            db.add(tokenizer: WordIndexTokenizer.self)
            db.add(tokenizer: SubstringIndexTokenizer.self)
            try WordRankFunction.register(on: db)
        }
        return config
    }

    /// `qbarchive_contains(text, pattern)`: `ctn` by a scan, for patterns shorter than the substring index
    /// matches, and for columns without an index (dialog names, custom parameters). The rule is
    /// ``TextIndex/ContainsFolding``'s, the same as the index's; `NULL` text never contains anything.
    static let containsFunction = DatabaseFunction("qbarchive_contains", argumentCount: 2, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) ?? Int.fromDatabaseValue(values[0]).map(String.init),
            let pattern = String.fromDatabaseValue(values[1])
        else { return false }
        return ContainsFolding.contains(text, pattern)
    }

    /// `qbarchive_number(json)`: a custom parameter, given as JSON text (`m.custom -> '$."key"'`), as a number —
    /// a JSON number, or a JSON string that is wholly one (``CustomNumber``); `NULL` for anything else. SQLite's
    /// `CAST` would read `abc` as 0 and `3abc` as 3, and `json_extract` a boolean as 1.
    static let numberFunction = DatabaseFunction("qbarchive_number", argumentCount: 1, pure: true) { values in
        guard let json = String.fromDatabaseValue(values[0]) else { return nil }
        if json.hasPrefix("\"") {
            guard json.count >= 2, json.hasSuffix("\""), !json.contains("\\") else { return nil }
            return CustomNumber.value(of: String(json.dropFirst().dropLast()))
        }
        return CustomNumber.value(of: json)
    }
}
