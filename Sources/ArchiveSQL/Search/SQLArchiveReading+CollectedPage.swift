import Archive
import Foundation
import QueryLanguage

/// The bound on a page collected with its total (``SQLArchiveReading``'s `collectedPage`,
/// ``RankedPage/collected(options:on:)``): at most this many hits of the words, each match kept as its date, id
/// and key (about 60 bytes), so memory stays bounded whatever the archive's size.
enum Collected {
    static let atMost = 100_000

    /// Whether `keys` (one of the word index's statements) selects no more than ``atMost`` keys: a count stopped
    /// just past it.
    static func fits(_ keys: SQLFragment, on connection: any SQLConnection) throws -> Bool {
        try connection.fetchInt("SELECT COUNT(*) FROM (\(keys) LIMIT \(atMost + 1)) AS k") ?? 0 <= atMost
    }
}

extension SQLArchiveReading {
    /// The page and the total of words beside other conditions in one pass over the words' hits, or `nil` when
    /// the query is not of that shape, the words have more than ``Collected/atMost`` hits, `sort` is by rank, or
    /// the engine reads such pages better itself (``SQLDialect/steersWordsBesideConditions``).
    ///
    /// The page and its total were two statements, each reading every hit's row to test the other conditions:
    /// `invoice is:edited` read 24,904 rows twice at a million messages (160 ms on SQLite). Here one statement
    /// returns the matches' dates, ids and keys; their number is the total, the page is sorted from them as the
    /// one-statement plan sorts (`date_sent`, then `id` by its bytes, newest first unless asked), after the
    /// keyset cursor if any, and only the page's rows are read in full.
    static func collectedPage(
        _ query: Query, options: SearchOptions, compiler: SearchCompiler, on connection: any SQLConnection
    ) throws -> (hits: [SearchHit], total: Int)? {
        guard connection.dialect.steersWordsBesideConditions, options.sort != .rank,
            compiler.fullTextKeys(query.root) == nil, compiler.wordQueryInPeriod(query.root) == nil,
            let keys = compiler.wordKeysBesideConditions(query.root), try Collected.fits(keys, on: connection)
        else { return nil }
        var matches: [MessageOrderKey] = []
        try connection.forEachCollected(
            """
            SELECT m.date_sent, m.id, m.date_key FROM messages m LEFT JOIN dialogs d ON d.id = m.dialog_id \
            WHERE \(try compiler.compile(query.root))
            """, limit: nil
        ) { row in matches.append(MessageOrderKey(dateSent: row[0], id: row[1], key: row[2])) }
        let newest = options.sort != .oldest
        var listed = matches
        if let after = options.after {
            let cursor = MessageOrderKey(dateSent: after.dateSent, id: after.messageID, key: 0)
            listed.removeAll { newest ? !($0 < cursor) : !(cursor < $0) }
        }
        listed.sort { newest ? $1 < $0 : $0 < $1 }
        let page = Array(listed.dropFirst(options.offset).prefix(options.limit))
        let rows = try Columns.hits(keys: page.map(\.key), on: connection)
        return (page.compactMap { rows[$0.key] }, matches.count)
    }
}

/// A message's place in the search's date order: `date_sent`, then `id` by its bytes (SQLite's `BINARY`
/// collation, PostgreSQL's "C"), as `ORDER BY m.date_sent, m.id` sorts; `key` is its word key.
struct MessageOrderKey: Comparable {
    var dateSent: Int
    var id: String
    var key: Int64

    static func < (a: MessageOrderKey, b: MessageOrderKey) -> Bool {
        a.dateSent != b.dateSent ? a.dateSent < b.dateSent : a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }

    static func == (a: MessageOrderKey, b: MessageOrderKey) -> Bool {
        a.dateSent == b.dateSent && a.id.utf8.elementsEqual(b.id.utf8)
    }
}
