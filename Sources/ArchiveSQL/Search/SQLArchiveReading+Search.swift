import Archive
import Foundation
import QueryLanguage

extension SQLArchiveReading {
    public func search(_ query: Query, options: SearchOptions) async throws -> [SearchHit] {
        try await reading(query) { connection in
            let compiler = try SearchCompiler.resolving(query, on: connection)
            return try connection.fetchAll(
                try Self.searchStatement(query, options: options, compiler: compiler, on: connection), Columns.hit)
        }
    }

    public func count(_ query: Query) async throws -> Int {
        try await reading(query) { connection in
            let compiler = try SearchCompiler.resolving(query, on: connection)
            if let keys = compiler.fullTextKeys(query.root) {
                return try connection.fetchInt("SELECT COUNT(*) FROM (\(keys))") ?? 0
            }
            let condition = try compiler.compile(query.root)
            return try connection.fetchInt(
                "SELECT COUNT(*) FROM messages m LEFT JOIN dialogs d ON d.id = m.dialog_id WHERE \(condition)") ?? 0
        }
    }

    public func explain(_ query: Query, options: SearchOptions, zone: TimeZone) async throws -> SearchPlan {
        try await reading(query) { connection in
            let compiler = try SearchCompiler.resolving(query, on: connection)
            let statement = try Self.searchStatement(query, options: options, compiler: compiler, on: connection)
            let (sql, values) = statement.rendered(for: connection.dialect)
            return SearchPlan(
                summary: QuerySummary.describe(query, zone: zone, name: compiler.references.name), sql: sql,
                arguments: values.map(\.literal))
        }
    }

    public func describe(_ query: Query, zone: TimeZone) async throws -> String {
        try await reading(query) { connection in
            let compiler = try SearchCompiler.resolving(query, on: connection)
            return QuerySummary.describe(query, zone: zone, name: compiler.references.name)
        }
    }

    public func context(of messageID: String, before: Int, after: Int) async throws -> [SearchHit] {
        try await sql.read { connection in
            guard
                let anchor = try connection.fetchOne(
                    "SELECT dialog_id, date_sent FROM messages WHERE id = \(messageID)",
                    { ($0[0] as String, $0[1] as Int) })
            else { return [] }
            let (dialogID, dateSent) = anchor
            let select: SQLFragment =
                "SELECT \(raw: Columns.hit) FROM \(raw: Columns.hitSource) WHERE m.dialog_id = \(dialogID)"
            let earlier = try connection.fetchAll(
                """
                \(select) AND (m.date_sent, m.id) < (\(dateSent), \(messageID)) ORDER BY m.date_sent DESC, m.id DESC LIMIT \(before)
                """, Columns.hit)
            let later = try connection.fetchAll(
                "\(select) AND (m.date_sent, m.id) >= (\(dateSent), \(messageID)) ORDER BY m.date_sent, m.id LIMIT \(after + 1)",
                Columns.hit)
            return earlier.reversed() + later
        }
    }

    static func searchStatement(
        _ query: Query, options: SearchOptions, compiler: SearchCompiler, on connection: any SQLConnection
    ) throws -> SQLFragment {
        let dialect = connection.dialect
        var condition = try compiler.compile(query.root)
        if let after = options.after, options.sort != .rank {
            let comparison = options.sort == .oldest ? ">" : "<"
            condition =
                "(\(condition)) AND (m.date_sent, m.id) \(raw: comparison) (\(after.dateSent), \(after.messageID))"
        }
        var source = SQLFragment.raw(Columns.hitSource)
        if try prefersDateScan(query, compiler: compiler, options: options, on: connection) {
            source = .raw(Columns.hitSource.replacingOccurrences(of: "messages m ", with: dialect.messagesByDate + " "))
        }
        var order = options.sort == .oldest ? "m.date_sent, m.id" : "m.date_sent DESC, m.id DESC"
        let words = query.root.rankableTerms
        if options.sort == .rank, !words.isEmpty {
            // The score once per hit in a joined subquery (a correlated subquery per row re-ran the match for
            // every row: 15 s for 25k hits); LEFT JOIN keeps results that match only through non-word terms.
            let rank = dialect.rankJoin(dialect.wordQuery(.any(words.map(WordQuery.term))))
            source += rank.join
            order = rank.order + ", " + order
        }
        return """
            SELECT \(raw: Columns.hit) FROM \(source) WHERE \(condition) ORDER BY \(raw: order) \
            LIMIT \(options.limit) OFFSET \(options.offset)
            """
    }

    /// Whether to walk the messages in date order (``SQLDialect/messagesByDate``) and test each against the
    /// condition, instead of fetching every match by key and sorting them.
    ///
    /// Left to itself, the planner fetches every full-text hit and sorts: about 2 µs a hit, 50 ms for a word
    /// in 2.5 % of a million messages, because each hit is a random read of a wide row. Walking the date
    /// index costs about 0.07 µs an entry and stops after `limit + offset` matches, so it wins once
    /// `hits² > 0.035 × (limit + offset) × messages`. The hits are counted from the full-text indexes
    /// alone and only up to that threshold, so only queries those indexes answer by themselves take
    /// this path (``SearchCompiler/fullTextKeys(_:)``); column predicates stay with the planner,
    /// which may prefer their own indexes.
    private static func prefersDateScan(
        _ query: Query, compiler: SearchCompiler, options: SearchOptions, on connection: any SQLConnection
    ) throws -> Bool {
        guard options.sort != .rank, let keys = compiler.fullTextKeys(query.root) else { return false }
        let messages = try connection.fetchInt("SELECT MAX(\(raw: connection.dialect.keyColumn)) FROM messages") ?? 0
        let wanted = Double(options.limit + options.offset)
        let threshold = Int((0.035 * wanted * Double(messages)).squareRoot().rounded(.up))
        let count = try connection.fetchInt("SELECT COUNT(*) FROM (\(keys) LIMIT \(threshold))") ?? 0
        return count >= threshold
    }

}

extension QueryExpression {
    /// The full-text terms that are not negated: what `--sort rank` scores.
    var rankableTerms: [TextTerm] {
        switch self {
        case .and(let children), .or(let children): return children.flatMap(\.rankableTerms)
        case .not, .predicate: return []
        case .text(let term): return [term]
        }
    }
}
