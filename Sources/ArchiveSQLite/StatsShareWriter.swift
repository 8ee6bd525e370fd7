import ArchiveSQL
import GRDB

/// Writes the stale dialogs' shares of the statistics roll-ups with one read of each dialog's messages (a
/// ``StatsSharePass``), for ``StatsRollup/refresh(_:writingShares:)``.
///
/// After a first crawl or an import every dialog is stale, and the six share statements each grouped every
/// message in a temporary B-tree: about 10 s of a 1M crawl's or import's end (docs/performance.md, *Crawl*). Here
/// each dialog's messages are read once along `messages_by_dialog`, counted in memory a dialog at a time (memory
/// stays that of the largest dialog's groups), and each row inserted through a prepared statement.
struct StatsShareWriter {
    let db: Database

    /// Fills every per-dialog table and `stats_dialogs` for the stale dialogs.
    func write(_ pass: StatsSharePass) throws {
        let stale = try Row.fetchAll(db, sql: pass.staleDialogs).map {
            (id: $0[0] as String, isPrivate: $0[1] as Bool, countedAt: $0[2] as Int64?)
        }
        let read = try HotStatement(db: db, sql: pass.messages)
        let inserts = try pass.inserts.map { try HotStatement(db: db, sql: $0) }
        for dialog in stale {
            var tally = DialogShareTally(dialogID: dialog.id, isPrivate: dialog.isPrivate)
            try read.forEachRow { bindings in
                bindings.bind(1, dialog.countedAt.map(Int.init))
                bindings.bind(2, dialog.countedAt.map(Int.init))
                bindings.bind(3, dialog.id)
            } read: { row in
                tally.add(
                    DialogShareTally.Message(
                        hour: row.int64(0), day: row.int64(1), dateSent: row.int64(2),
                        sender: row.isNull(3) ? nil : row.int64(3), deleted: row.int64(4) != 0, edited: row.int64(5),
                        kinds: row.hasBytes(6) ? row.string(6) ?? "" : "", atCount: row.int64(7) != 0))
            }
            for (insert, rows) in zip(inserts, tally.rows()) {
                for values in rows {
                    try insert.execute { bindings in
                        for (index, value) in values.enumerated() { bindings.bind(CInt(index + 1), value) }
                    }
                }
            }
        }
    }
}
