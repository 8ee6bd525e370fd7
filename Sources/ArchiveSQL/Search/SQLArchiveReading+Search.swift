import Archive
import Foundation
import QueryLanguage

extension SQLArchiveReading {
    public func search(_ query: Query, options: SearchOptions) async throws -> [SearchHit] {
        try await reading(query) { connection in
            try Self.hits(
                query, options: options, compiler: try SearchCompiler.resolving(query, on: connection), counting: false,
                on: connection
            ).hits
        }
    }

    public func count(_ query: Query) async throws -> Int {
        try await reading(query) { connection in
            try Self.count(query, compiler: try SearchCompiler.resolving(query, on: connection), on: connection)
        }
    }

    public func searchPage(_ query: Query, options: SearchOptions, zone: TimeZone) async throws -> SearchPage {
        guard !Self.pageMayCarryTotal(query, options: options, dialect: sql.dialect) else {
            return try await reading(query) { connection in
                let compiler = try SearchCompiler.resolving(query, on: connection)
                let (hits, total) = try Self.hits(
                    query, options: options, compiler: compiler, counting: true, on: connection)
                return SearchPage(
                    hits: hits, total: try total ?? Self.count(query, compiler: compiler, on: connection),
                    summary: QuerySummary.describe(query, zone: zone, name: compiler.references.name))
            }
        }
        // The total apart from the page, first: it reads every match (34 ms for a word in 25,000 of a million
        // messages on PostgreSQL, which counts it while the page is read on a second connection).
        let (total, page) = try await reading(query) { connection in
            try Self.count(query, compiler: try SearchCompiler.resolving(query, on: connection), on: connection)
        } beside: { connection in
            let compiler = try SearchCompiler.resolving(query, on: connection)
            return (
                hits: try Self.hits(query, options: options, compiler: compiler, counting: false, on: connection).hits,
                summary: QuerySummary.describe(query, zone: zone, name: compiler.references.name)
            )
        }
        return SearchPage(hits: page.hits, total: total, summary: page.summary)
    }

    /// Whether the page of `query` may come with its total (``hits(_:options:compiler:counting:on:)``): a ranked
    /// page, or words beside other conditions, on engines whose such pages the shared reader collects with their
    /// totals (``SQLDialect/steersWordsBesideConditions``). Decided by the query's shape alone.
    static func pageMayCarryTotal(_ query: Query, options: SearchOptions, dialect: any SQLDialect) -> Bool {
        guard dialect.steersWordsBesideConditions else { return false }
        return options.sort == .rank || SearchCompiler(dialect: dialect).wordKeysBesideConditions(query.root) != nil
    }

    static func count(_ query: Query, compiler: SearchCompiler, on connection: any SQLConnection) throws -> Int {
        // Counted from the indexes alone when they answer: the full-text keys, or a word query's keys in a period;
        // or from each branch's index, when an `or` has full-text branches and others.
        let dialect = connection.dialect
        let keys =
            try compiler.fullTextKeys(query.root)?.keys
            ?? compiler.wordQueryInPeriod(query.root).map { words, atLeast, below in
                dialect.orderedWordKeys(
                    dialect.wordQuery(words), atLeast: atLeast, below: below, newestFirst: nil, limit: nil, offset: 0)
            }
            ?? mixedOrKeys(query, compiler: compiler, on: connection)
        if let keys { return try connection.fetchInt("SELECT COUNT(*) FROM (\(keys)) AS k") ?? 0 }
        if let excluded = compiler.keysOfComplement(query.root) {
            return try connection.fetchInt(
                "SELECT (SELECT COUNT(*) FROM messages) - (SELECT COUNT(*) FROM (\(excluded)) AS k)") ?? 0
        }
        let condition = try compiler.compile(query.root)
        return try connection.fetchInt(
            "SELECT COUNT(*) FROM messages m LEFT JOIN dialogs d ON d.id = m.dialog_id WHERE \(condition)") ?? 0
    }

    /// The keys of an `or` of full-text branches and others (``SearchCompiler/keysOfMixedOr(_:)``) to count,
    /// unless the planner expects the other branches to select more than a tenth of the messages: a union
    /// hashes every key of both sides (about 1 µs each), where testing each message against the whole condition
    /// costs about half that. At a million messages on PostgreSQL, `refund OR dialog_type:private` (705,000
    /// matches) took 530 ms as one condition and 750–1,000 ms as a union. Engines that give no estimate (SQLite)
    /// always take the union: there it was faster in every case measured, `has:attachment` and a type included.
    private static func mixedOrKeys(
        _ query: Query, compiler: SearchCompiler, on connection: any SQLConnection
    ) throws -> SQLFragment? {
        guard let (keys, _, others) = try compiler.keysOfMixedOr(query.root) else { return nil }
        let dialect = connection.dialect
        guard let estimate = dialect.estimatedRows(plan: try connection.plan(of: others)) else { return keys }
        let messages = Double(try messagesAbout(on: connection))
        return estimate <= messages / 10 ? keys : nil
    }

    public func explain(_ query: Query, options: SearchOptions, zone: TimeZone) async throws -> SearchPlan {
        try await reading(query) { connection in
            let compiler = try SearchCompiler.resolving(query, on: connection)
            // A ranked page of words shows its first step, which reads the index (``RankedPage``).
            let statement =
                try RankedPage(query, options: options, compiler: compiler, dialect: connection.dialect)?.best
                ?? Self.searchStatement(
                    query, options: options, compiler: compiler,
                    walkingTo: Self.walkBoundary(query, compiler: compiler, options: options, on: connection),
                    on: connection)
            let (sql, values) = statement.rendered(for: connection.dialect)
            return SearchPlan(
                summary: QuerySummary.describe(query, zone: zone, name: compiler.references.name), sql: sql,
                arguments: values.map(\.literal), steps: try connection.plan(of: statement))
        }
    }

    public func describe(_ query: Query, zone: TimeZone) async throws -> String {
        try await reading(query) { connection in
            let compiler = try SearchCompiler.resolving(query, on: connection)
            return QuerySummary.describe(query, zone: zone, name: compiler.references.name)
        }
    }

    public func pinningNames(_ query: Query) async throws -> String {
        try await reading(query) { connection in try QueryReferences.resolve(query, on: connection).pinned(query) }
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

    /// The page of hits `options` asks for, and its total when `counting` and it came with the page: a ranked
    /// page of words in two steps (``RankedPage``); frequent words beside other conditions by a bounded walk of
    /// dates (``walkBoundary(_:compiler:options:on:)``), or, when counting, collected with their total
    /// (``collectedPage(_:options:compiler:on:)``); any other in one statement.
    static func hits(
        _ query: Query, options: SearchOptions, compiler: SearchCompiler, counting: Bool,
        on connection: any SQLConnection
    ) throws -> (hits: [SearchHit], total: Int?) {
        if let ranked = try RankedPage(query, options: options, compiler: compiler, dialect: connection.dialect) {
            if counting, let page = try ranked.collected(options: options, on: connection) { return page }
            if let hits = try ranked.hits(options: options, on: connection) { return (hits, nil) }
        }
        if let since = try walkBoundary(query, compiler: compiler, options: options, on: connection) {
            let hits = try connection.fetchAll(
                try searchStatement(query, options: options, compiler: compiler, walkingTo: since, on: connection),
                Columns.hit)
            if hits.count == options.limit { return (hits, nil) }
        }
        if counting, let page = try collectedPage(query, options: options, compiler: compiler, on: connection) {
            return page
        }
        return (
            try connection.fetchAll(
                try searchStatement(query, options: options, compiler: compiler, on: connection), Columns.hit), nil
        )
    }

    /// The statement of a page: `walkingTo` a sending date, the date index walked no further than it
    /// (``walkBoundary(_:compiler:options:on:)``).
    static func searchStatement(
        _ query: Query, options: SearchOptions, compiler: SearchCompiler, walkingTo boundary: Int? = nil,
        on connection: any SQLConnection
    ) throws -> SQLFragment {
        let dialect = connection.dialect
        var condition = try compiler.compile(query.root)
        if options.after != nil, options.sort != .rank { condition = "(\(condition)) AND \(cursor(options))" }
        var source = SQLFragment.raw(Columns.hitSource)
        let messagesByDate = SQLFragment.raw(
            Columns.hitSource.replacingOccurrences(of: "messages m ", with: dialect.messagesByDate + " "))
        if let boundary {
            source = messagesByDate
            condition = "(\(condition)) AND m.date_sent \(raw: options.sort == .oldest ? "<=" : ">=") \(boundary)"
        } else if options.sort != .rank, let (words, atLeast, below) = compiler.wordQueryInPeriod(query.root) {
            let keys = try pagedWordKeys(words, atLeast: atLeast, below: below, options: options, on: connection)
            condition = dialect.wordKeyIn(keys) + (options.after == nil ? "" : " AND \(cursor(options))")
        } else if try prefersDateScan(query, compiler: compiler, options: options, on: connection) {
            source = messagesByDate
        } else if let keys = try fewWordKeys(query, compiler: compiler, options: options, on: connection) {
            condition = "(\(condition)) AND \(dialect.wordKeyIn(keys))"
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

    /// After the cursor of keyset paging, in the order asked.
    private static func cursor(_ options: SearchOptions) -> SQLFragment {
        guard let after = options.after else { return "1" }
        let comparison = options.sort == .oldest ? ">" : "<"
        return "(m.date_sent, m.id) \(raw: comparison) (\(after.dateSent), \(after.messageID))"
    }

    /// The word keys of a page of a words-only query, read from the word index in date order: the newest (or
    /// oldest) `limit + offset` matches lie in the seconds down to (or up to) the second of the match that
    /// many from the end, so those seconds' matches — a page and the ties of its last second — are all the
    /// statement reads and sorts, however many messages match.
    ///
    /// Without it a word in 25,000 messages cost 8 ms at a million messages: every hit's key went into a
    /// temporary index before the date index was walked (docs/performance.md).
    ///
    /// `periodStart` and `periodEnd` bound the keys to a period of the query's (``SearchCompiler/wordQueryInPeriod(_:)``).
    private static func pagedWordKeys(
        _ words: WordQuery, atLeast periodStart: Int64?, below periodEnd: Int64?, options: SearchOptions,
        on connection: any SQLConnection
    ) throws -> SQLFragment {
        let dialect = connection.dialect
        let query = dialect.wordQuery(words)
        let newest = options.sort != .oldest
        // After a cursor, the results are those of its second the statement keeps (after it), then those of
        // older (or newer) seconds; the page's edge is counted among the latter only.
        var (atLeast, below) = (periodStart, periodEnd)
        var (edgeAtLeast, edgeBelow) = (periodStart, periodEnd)
        if let after = options.after {
            let second = dialect.dateKeys(sentAt: after.dateSent)
            if newest {
                below = min(below ?? .max, second.upperBound)
                edgeBelow = min(edgeBelow ?? .max, second.lowerBound)
            } else {
                atLeast = max(atLeast ?? .min, second.lowerBound)
                edgeAtLeast = max(edgeAtLeast ?? .min, second.upperBound)
            }
        }
        let edgeOffset = options.limit + options.offset - 1
        var edge: Int64?
        if let within = try walkLength(query, wanted: edgeOffset + 1, on: connection),
            let walk = dialect.walkedWordKeys(
                query, atLeast: edgeAtLeast, below: edgeBelow, newestFirst: newest, within: within, offset: edgeOffset)
        {
            edge = try connection.fetchOne(walk, { $0[0] as Int64 })
        }
        let walked = edge != nil
        if edge == nil {
            edge = try connection.fetchOne(
                dialect.orderedWordKeys(
                    query, atLeast: edgeAtLeast, below: edgeBelow, newestFirst: newest, limit: 1, offset: edgeOffset),
                { $0[0] as Int64 })
        }
        if let edge {
            let second = dialect.dateKeys(secondOf: edge)
            if newest {
                atLeast = max(atLeast ?? .min, second.lowerBound)
            } else {
                below = min(below ?? .max, second.upperBound)
            }
        }
        // Found by a walk, the page's keys lie in the messages it stepped through (and the rest of the edge's
        // second, and of the cursor's): few, read by walking them again.
        if walked { return dialect.walkedRangeWordKeys(query, atLeast: atLeast, below: below) }
        return dialect.orderedWordKeys(query, atLeast: atLeast, below: below, newestFirst: nil, limit: nil, offset: 0)
    }

    /// About how many messages the archive holds, in constant time: the largest row key (rows are never
    /// deleted; a rolled-back insert leaves a gap).
    static func messagesAbout(on connection: any SQLConnection) throws -> Int {
        try connection.fetchInt("SELECT MAX(\(raw: connection.dialect.keyColumn)) FROM messages") ?? 0
    }

    /// How many messages a walk of the date index may step through, in date order, to find `wanted` matches of
    /// the words before their hits are fetched instead: √(wanted × messages), where a step and a fetched hit
    /// each cost a random read of a row (about 2 µs at a million messages), so past it the hits cost less. `nil`
    /// on engines whose planner asks the word index itself (``SQLDialect/unlistedWordShare``), and when the
    /// planner knows the words well (estimated above that share, so listed in its statistics) and finding
    /// `wanted` of them would step through more messages than they match: their hits are fetched at once, not
    /// after a walk that would fail (a frequent word's page 1,000 deep cost both at a million messages: 55 ms of
    /// walk, then 67 ms of hits).
    private static func walkLength(_ query: SQLValue, wanted: Int, on connection: any SQLConnection) throws -> Int? {
        let dialect = connection.dialect
        guard let share = dialect.unlistedWordShare else { return nil }
        let messages = Double(max(try messagesAbout(on: connection), 1))
        if let estimate = dialect.estimatedRows(plan: try connection.plan(of: dialect.wordKeys(query))),
            estimate > share * messages, Double(wanted) * messages / estimate > estimate
        {
            return nil
        }
        return walkBound(wanted: wanted, messages: messages)
    }

    /// √(wanted × messages): the steps of a walk of the date index that cost as much as fetching that many hits.
    static func walkBound(wanted: Int, messages: Double) -> Int {
        Int((Double(wanted) * messages).squareRoot().rounded(.up))
    }

    /// The keys of the messages a query's words select, when the query also has other conditions and the
    /// words select few messages: fewer than a walk of the date index would step through (√(wanted ×
    /// messages)), and no more than the planner assumes for a word its statistics do not list
    /// (``SQLDialect/unlistedWordShare``), which is the one it may misjudge. `nil` otherwise, and on engines
    /// whose planner asks the word index itself. The page then fetches those messages by key and tests the
    /// rest of the condition on them alone; the added condition is implied by the query's own, so the
    /// results are the same.
    ///
    /// PostgreSQL walked the date index for `rare-word has:attachment`, testing every message: 1.4 s at a
    /// million messages for a word in none of them. The estimate (one `EXPLAIN`, about 1 ms) spares a
    /// frequent word the bounded count, which reads its whole posting list (34 ms for 25,000 hits).
    private static func fewWordKeys(
        _ query: Query, compiler: SearchCompiler, options: SearchOptions, on connection: any SQLConnection
    ) throws -> SQLFragment? {
        let dialect = connection.dialect
        guard let share = dialect.unlistedWordShare, options.sort != .rank,
            let words = compiler.wordsBesideConditions(query.root),
            let keys = compiler.wordKeysBesideConditions(query.root)
        else { return nil }
        let messages = Double(max(try messagesAbout(on: connection), 1))
        // The planner assumes the share for each unlisted word of an `or` (`(zebra OR quokka) has:attachment`
        // estimated at twice it, then walked every message: 1.4 s at a million).
        let terms = Double(max(words.flatMap(\.rankableTerms).count, 1))
        guard let estimate = dialect.estimatedRows(plan: try connection.plan(of: keys)),
            estimate <= (share * messages * terms).rounded(.up)
        else { return nil }
        let threshold = walkBound(wanted: options.limit + options.offset, messages: messages)
        let count = try connection.fetchInt("SELECT COUNT(*) FROM (\(keys) LIMIT \(threshold)) AS k") ?? 0
        return count < threshold ? keys : nil
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
    /// which may prefer their own indexes. So does an `or` of full-text branches and others
    /// (``SearchCompiler/keysOfMixedOr(_:)``) on engines whose planner asks the word index itself (SQLite): it
    /// fetched all 25,752 matches of `invoice OR from:user101` at a million messages and sorted them. PostgreSQL's
    /// planner weighs that walk itself.
    private static func prefersDateScan(
        _ query: Query, compiler: SearchCompiler, options: SearchOptions, on connection: any SQLConnection
    ) throws -> Bool {
        guard options.sort != .rank else { return false }
        let sets: [SQLFragment]
        if let keys = compiler.fullTextKeys(query.root)?.keys {
            sets = [keys]
        } else if connection.dialect.unlistedWordShare == nil, let mixed = try compiler.keysOfMixedOr(query.root) {
            // Either part alone reaching the threshold is enough, and each is read no further than it; their
            // union would be read whole (705,000 keys for `refund OR dialog_type:private`: 700 ms).
            sets = [mixed.text, mixed.others]
        } else {
            return false
        }
        let messages = try messagesAbout(on: connection)
        let wanted = Double(options.limit + options.offset)
        let threshold = Int((0.035 * wanted * Double(messages)).squareRoot().rounded(.up))
        for keys in sets {
            let count = try connection.fetchInt("SELECT COUNT(*) FROM (\(keys) LIMIT \(threshold)) AS k") ?? 0
            if count >= threshold { return true }
        }
        return false
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
