import Foundation
import GRDB
import QueryLanguage

extension SQLiteArchive {
    /// Messages matching a query, with dialog and sender names; tombstoned messages included.
    ///
    /// - Throws: ``QueryError`` when the query names a login no archived user has (a positioned error,
    ///   never an empty result), or a database error.
    public func search(_ query: Query, options: SearchOptions = SearchOptions()) async throws -> [SearchHit] {
        try await reading { db in
            try Self.limitingComplexity(of: query) {
                let statement = try Self.searchStatement(query, options: options, db: db)
                return try Row.fetchAll(db, sql: statement.sql, arguments: StatementArguments(statement.arguments))
                    .map(Self.searchHit(row:))
            }
        }
    }

    /// How many messages match a query.
    public func count(_ query: Query) async throws -> Int {
        try await reading { db in
            try Self.limitingComplexity(of: query) {
                if let hits = SearchCompiler().fullTextRowids(query.root) {
                    return try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM (\(hits.sql))", arguments: StatementArguments(hits.arguments))
                        ?? 0
                }
                let condition = try Self.condition(query, db: db)
                return try Int.fetchOne(
                    db,
                    sql:
                        "SELECT COUNT(*) FROM messages m LEFT JOIN dialogs d ON d.id = m.dialog_id WHERE \(condition.sql)",
                    arguments: StatementArguments(condition.arguments)) ?? 0
            }
        }
    }

    /// The statement ``search(_:options:)`` runs, with its arguments, for `--explain`.
    public func explain(_ query: Query, options: SearchOptions = SearchOptions()) async throws -> SearchPlan {
        try await reading { db in
            let statement = try Self.searchStatement(query, options: options, db: db)
            return SearchPlan(sql: statement.sql, arguments: statement.arguments.map(\.literal))
        }
    }

    /// Up to `before` messages before and `after` messages after a message in its dialog, in
    /// `(date_sent, id)` order, the message itself included: the transcript around a search hit.
    public func context(of messageID: String, before: Int, after: Int) async throws -> [SearchHit] {
        try await reading { db in
            guard
                let anchor = try Row.fetchOne(
                    db, sql: "SELECT dialog_id, date_sent FROM messages WHERE id = ?", arguments: [messageID])
            else { return [] }
            let dialogID: String = anchor[0]
            let dateSent: Int = anchor[1]
            let select = "SELECT \(Self.hitColumns) FROM \(Self.hitSource) WHERE m.dialog_id = ?"
            let earlier = try Row.fetchAll(
                db,
                sql: """
                    \(select) AND (m.date_sent, m.id) < (?, ?) ORDER BY m.date_sent DESC, m.id DESC LIMIT ?
                    """,
                arguments: [dialogID, dateSent, messageID, before])
            let later = try Row.fetchAll(
                db,
                sql: "\(select) AND (m.date_sent, m.id) >= (?, ?) ORDER BY m.date_sent, m.id LIMIT ?",
                arguments: [dialogID, dateSent, messageID, after + 1])
            return (earlier.reversed() + later).map(Self.searchHit(row:))
        }
    }

    static let hitColumns = "\(messageColumns), d.name, d.type, u.login, u.full_name, r.login, r.full_name"
    static let hitSource = """
        messages m LEFT JOIN dialogs d ON d.id = m.dialog_id LEFT JOIN users u ON u.id = m.sender_id \
        LEFT JOIN users r ON r.id = m.recipient_id
        """

    private static func searchStatement(
        _ query: Query, options: SearchOptions, db: Database
    ) throws -> SearchCompiler.Fragment {
        let condition = try condition(query, db: db)
        var arguments: [DatabaseValue] = []
        var source = hitSource
        if try prefersDateScan(query, options: options, db: db) {
            source = source.replacingOccurrences(of: "messages m ", with: "messages m INDEXED BY messages_by_date ")
        }
        var order = options.sort == .oldest ? "m.date_sent, m.id" : "m.date_sent DESC, m.id DESC"
        let words = query.root.rankableTerms
        if options.sort == .rank, !words.isEmpty {
            // bm25 once per hit in a joined subquery (a correlated subquery per row re-ran the MATCH for every
            // row: 15 s for 25k hits); LEFT JOIN keeps results that match only through non-word terms.
            source += """
                 LEFT JOIN (SELECT rowid AS rank_rowid, bm25(message_words) AS rank_score FROM message_words \
                WHERE message_words MATCH ?) rk ON rk.rank_rowid = m.rowid
                """
            arguments.append(words.map(SearchCompiler.ftsString).joined(separator: " OR ").databaseValue)
            order = "rk.rank_score IS NULL, rk.rank_score, " + order
        }
        arguments += condition.arguments + [options.limit.databaseValue, options.offset.databaseValue]
        return SearchCompiler.Fragment(
            sql: "SELECT \(hitColumns) FROM \(source) WHERE \(condition.sql) ORDER BY \(order) LIMIT ? OFFSET ?",
            arguments: arguments)
    }

    /// Whether to walk `messages_by_date` in the wanted order and test each message against the
    /// condition, instead of fetching every match by rowid and sorting them.
    ///
    /// SQLite's planner fetches every full-text hit and sorts: about 2 µs a hit, 50 ms for a word in
    /// 2.5 % of a million messages, because each hit is a random read of a wide row. Walking the date
    /// index costs about 0.07 µs an entry and stops after `limit + offset` matches, so it wins once
    /// `hits² > 0.035 × (limit + offset) × messages`. The hits are counted from the full-text indexes
    /// alone and only up to that threshold, so only queries those indexes answer by themselves take
    /// this path (see ``SearchCompiler/fullTextRowids(_:)``); column predicates stay with the planner,
    /// which may prefer their own indexes.
    private static func prefersDateScan(_ query: Query, options: SearchOptions, db: Database) throws -> Bool {
        guard options.sort != .rank, let hits = SearchCompiler().fullTextRowids(query.root) else { return false }
        let messages = try Int.fetchOne(db, sql: "SELECT MAX(rowid) FROM messages") ?? 0
        let wanted = Double(options.limit + options.offset)
        let threshold = Int((0.035 * wanted * Double(messages)).squareRoot().rounded(.up))
        let count =
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM (\(hits.sql) LIMIT ?)",
                arguments: StatementArguments(hits.arguments + [threshold.databaseValue])) ?? 0
        return count >= threshold
    }

    /// Resolves the query's logins and compiles its condition.
    static func condition(_ query: Query, db: Database) throws -> SearchCompiler.Fragment {
        var compiler = SearchCompiler()
        let logins = Set(query.root.logins)
        if !logins.isEmpty {
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT login, id FROM users WHERE login IN (\(Array(repeating: "?", count: logins.count).joined(separator: ", ")))",
                arguments: StatementArguments(Array(logins)))
            for row in rows { compiler.userIDs[row[0]] = row[1] }
        }
        return try compiler.compile(query.root)
    }

    static func searchHit(row: Row) -> SearchHit {
        SearchHit(
            message: archivedMessage(row: row), dialogName: row[15], dialogType: row[16], senderLogin: row[17],
            senderName: row[18], recipientLogin: row[19], recipientName: row[20])
    }
}

extension QueryExpression {
    /// The logins the query names (`from:alice`), which the archive resolves to user ids.
    var logins: [String] {
        switch self {
        case .and(let children), .or(let children): return children.flatMap(\.logins)
        case .not(let child): return child.logins
        case .text: return []
        case .predicate(let predicate):
            return predicate.values.compactMap { if case .login(let login) = $0 { login } else { nil } }
        }
    }

    /// The full-text terms that are not negated: what `--sort rank` scores.
    var rankableTerms: [TextTerm] {
        switch self {
        case .and(let children), .or(let children): return children.flatMap(\.rankableTerms)
        case .not, .predicate: return []
        case .text(let term): return [term]
        }
    }
}
