import Archive
import Foundation
import QueryLanguage
import QuickBlox

extension SQLArchiveReading {
    /// Every figure of `qbarchive stats`, aggregated by the database in one read transaction.
    ///
    /// Seven statements, each one pass over the selected messages (or over a covering index when there
    /// is no query): totals, volume, hour-of-week and attachments from one materialized table of hourly
    /// buckets; active senders from the distinct (day, sender) pairs; top senders; top dialogs; first
    /// replies through window functions; coverage per dialog. No message row reaches Swift. The query,
    /// when given, is compiled by ``SearchCompiler`` and restricts every figure; tombstoned messages are
    /// counted everywhere (and as deletions). See docs/stats.md for each definition.
    public func statistics(_ request: StatisticsRequest) async throws -> ArchiveStatistics {
        try await reading(request.query) { connection in try Self.statistics(request, on: connection) }
    }

    /// The figures read through the roll-ups and read from every message, in one read transaction (a crawl
    /// writing meanwhile changes neither), compared (``ArchiveReader/statisticsRollupDisagreements()``): day
    /// buckets (the roll-ups keep days and hours; weeks and months are sums of the same rows), every sender and
    /// dialog listed.
    public func statisticsRollupDisagreements() async throws -> [String] {
        try await sql.read { connection in
            let rolledUp = StatisticsRequest(bucket: .day, top: Int(Int32.max))
            var fromMessages = rolledUp
            fromMessages.readsRollups = false
            let expected = try Self.statistics(fromMessages, on: connection)
            return try Self.statistics(rolledUp, on: connection).figuresDiffering(from: expected)
        }
    }

    private static func statistics(_ request: StatisticsRequest, on connection: any SQLConnection) throws
        -> ArchiveStatistics
    {
        let selection = try StatsSelection(request, on: connection)
        var statistics = ArchiveStatistics()
        try readHourly(connection, selection, request.bucket, into: &statistics)
        try readActiveSenders(connection, selection, request.bucket, into: &statistics)
        try readPopulation(connection, selection, into: &statistics)
        statistics.topSenders = try topSenders(connection, selection, limit: request.top)
        statistics.topDialogs = try topDialogs(connection, selection, limit: request.top)
        statistics.replies = try replyTimes(connection, selection)
        statistics.coverage = try coverage(connection, selection)
        return statistics
    }

    /// Totals, volume per bucket, hour-of-week cells and attachment types, from one scan.
    ///
    /// The scan groups the selected messages by hour and by the list of their attachment types (NULL
    /// for most messages, so the JSON functions run only on messages with attachments); the roll-ups
    /// then read that materialized table of a few thousand rows, per hour and per list of types. A
    /// whole-archive report reads the same two tables from the statistics roll-ups.
    private static func readHourly(
        _ connection: any SQLConnection, _ selection: StatsSelection, _ bucket: StatisticsRequest.Bucket,
        into statistics: inout ArchiveStatistics
    ) throws {
        let sql = StatsSQL(dialect: connection.dialect)
        let d = connection.dialect
        let hour = sql.floorDivision("m.date_sent", 3600)
        let day = sql.floorDivision("h", 24)
        // `hourly`: (h, n, deleted, edits, edited, attached) per hour; `kinds`: (kinds, n) per list of types.
        let tables: SQLFragment =
            if let shares = selection.rollups {
                """
                hourly AS \(raw: shares.materialized) (
                    SELECT hour AS h, messages AS n, deleted, edits, edited, attached
                    FROM (\(raw: shares.hours.current(anyStale: shares.anyStale))) rolled
                ), kinds AS \(raw: shares.materialized) (
                    SELECT kinds, messages AS n FROM (\(raw: shares.kinds.current(anyStale: shares.anyStale))) rolled
                )
                """
            } else {
                """
                grouped AS MATERIALIZED (
                    SELECT \(raw: hour) AS h, \(raw: sql.attachmentTypes) AS kinds,
                        COUNT(*) AS n, \(raw: d.countWhere("m.deleted_at IS NOT NULL")) AS deleted, SUM(m.edited) AS edits,
                        \(raw: d.countWhere("m.edited > 0")) AS edited
                    FROM \(raw: selection.source) \(selection.whereClause())
                    GROUP BY h, kinds
                ), hourly AS (
                    SELECT h, SUM(n) AS n, SUM(deleted) AS deleted, SUM(edits) AS edits, SUM(edited) AS edited,
                        SUM(CASE WHEN kinds IS NULL THEN 0 ELSE n END) AS attached
                    FROM grouped GROUP BY h
                ), kinds AS (
                    SELECT kinds, SUM(n) AS n FROM grouped WHERE kinds IS NOT NULL GROUP BY kinds
                )
                """
            }
        var buckets: [ArchiveStatistics.VolumeBucket] = []
        try connection.forEach(
            """
            WITH \(tables), daily AS (
                SELECT \(raw: day) AS day, ((h % 24) + 24) % 24 AS hour, n, deleted FROM hourly
            )
            SELECT 'total', CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), SUM(n), SUM(deleted), SUM(edits), SUM(edited),
                SUM(attached), CAST(NULL AS TEXT) FROM hourly
            UNION ALL
            SELECT 'bucket', start, NULL, SUM(n), SUM(deleted), NULL, NULL, NULL, NULL
                FROM (SELECT \(raw: sql.bucketStart(bucket, day: "day")) AS start, n, deleted FROM daily) b GROUP BY start
            UNION ALL
            SELECT 'cell', \(raw: sql.weekday("day")) AS weekday, hour, SUM(n), NULL, NULL, NULL, NULL, NULL
                FROM daily GROUP BY weekday, hour
            UNION ALL
            SELECT 'attachment', NULL, NULL, SUM(g.n), NULL, NULL, NULL, NULL, \(raw: d.jsonElement("e"))
                FROM kinds g, \(raw: d.jsonElements(of: "g.kinds", as: "e"))
                GROUP BY \(raw: d.jsonElement("e"))
            """
        ) { row in
            let kind: String = row[0]
            switch kind {
            case "total":
                statistics.messages = row[3]
                statistics.deletedMessages = row[4]
                statistics.edits = row[5]
                statistics.editedMessages = row[6]
                statistics.messagesWithAttachments = row[7]
            case "bucket":
                buckets.append(.init(start: row[1], messages: row[3], deleted: row[4], senders: 0))
            case "cell":
                statistics.hourOfWeek.append(.init(weekday: row[1], hour: row[2], messages: row[3]))
            default:
                // The type is the last column: a text where the other rows have numbers (PostgreSQL types a
                // union's columns).
                let type = row.value(8)
                let name: String? =
                    switch type {
                    case .text(let text): text
                    case .integer(let number): String(number)
                    default: nil
                    }
                statistics.attachments.append(.init(type: name, attachments: row[3]))
            }
        }
        statistics.volume = buckets.sorted { $0.start < $1.start }
        statistics.hourOfWeek.sort { ($0.weekday, $0.hour) < ($1.weekday, $1.hour) }
        statistics.attachments.sort { ($1.attachments, $0.type ?? "") < ($0.attachments, $1.type ?? "") }
    }

    /// Distinct senders per day, per volume bucket and overall, from the distinct (day, sender) pairs.
    private static func readActiveSenders(
        _ connection: any SQLConnection, _ selection: StatsSelection, _ bucket: StatisticsRequest.Bucket,
        into statistics: inout ArchiveStatistics
    ) throws {
        let sql = StatsSQL(dialect: connection.dialect)
        let statement: SQLFragment
        if let shares = selection.rollups {
            // From the roll-ups: days in key order, the senders' own sums for the total; a day bucket is a day.
            let days = shares.senderDays.current(anyStale: shares.anyStale)
            let buckets =
                bucket == .day
                ? ""
                : """
                UNION ALL
                SELECT 'bucket', start, COUNT(DISTINCT sender_id)
                    FROM (SELECT \(sql.bucketStart(bucket, day: "day")) AS start, sender_id FROM (\(days)) rolled) b
                    GROUP BY start
                """
            statement = """
                SELECT 'day', day * 86400, COUNT(*) FROM (\(raw: days)) rolled GROUP BY day
                \(raw: buckets)
                UNION ALL
                SELECT 'total', NULL, COUNT(*) FROM (\(raw: shares.senders.current(anyStale: shares.anyStale))) rolled
                """
        } else {
            statement = """
                WITH active AS MATERIALIZED (
                    SELECT DISTINCT \(raw: sql.floorDivision("m.date_sent", 86_400)) AS day, m.sender_id AS sender
                    FROM \(raw: selection.source) \(selection.whereClause("m.sender_id IS NOT NULL"))
                )
                SELECT 'day', day * 86400, COUNT(*) FROM active GROUP BY day
                UNION ALL
                SELECT 'bucket', start, COUNT(DISTINCT sender)
                    FROM (SELECT \(raw: sql.bucketStart(bucket, day: "day")) AS start, sender FROM active) b GROUP BY start
                UNION ALL
                SELECT 'total', NULL, COUNT(DISTINCT sender) FROM active
                """
        }
        var perBucket: [Int: Int] = [:]
        try connection.forEach(
            statement
        ) { row in
            let kind: String = row[0]
            switch kind {
            case "day": statistics.dailyActiveSenders.append(.init(start: row[1], count: row[2]))
            case "bucket": perBucket[row[1]] = row[2]
            default: statistics.senders = row[2]
            }
        }
        statistics.dailyActiveSenders.sort { $0.start < $1.start }
        if selection.rollups != nil, bucket == .day {
            for day in statistics.dailyActiveSenders { perBucket[day.start] = day.count }
        }
        for index in statistics.volume.indices {
            statistics.volume[index].senders = perBucket[statistics.volume[index].start] ?? 0
        }
    }

    /// Users and dialogs by type: the whole archive, or with a query the senders and dialogs it reaches.
    private static func readPopulation(
        _ connection: any SQLConnection, _ selection: StatsSelection, into statistics: inout ArchiveStatistics
    ) throws {
        var dialogFilter = SQLFragment()
        if let condition = selection.condition {
            statistics.users = statistics.senders
            dialogFilter = "WHERE dd.id IN (SELECT m.dialog_id FROM \(raw: selection.source) WHERE \(condition))"
        } else {
            statistics.users = try connection.fetchInt("SELECT COUNT(*) FROM users") ?? 0
        }
        statistics.dialogs = try connection.fetchAll(
            """
            SELECT dd.type, COUNT(*), \(raw: connection.dialect.countWhere("dd.deleted_at IS NOT NULL"))
            FROM dialogs dd \(dialogFilter) GROUP BY dd.type ORDER BY dd.type
            """
        ) { .init(type: $0[0], dialogs: $0[1], deleted: $0[2]) }
    }
}

/// The selected messages: `messages m`, joined to `dialogs d` when the query reads a dialog column; or, for a
/// whole-archive report whose roll-ups are mostly fresh, the roll-ups (``StatsRollup``).
struct StatsSelection {
    var source = "messages m"
    var condition: SQLFragment?
    /// The roll-ups' statements for the coverage of the report's dialogs, which counts every message of each
    /// dialog, not only the query's: read from the roll-ups whatever the query, when they are read at all. A
    /// report of `--where invoice` grouped all of a million messages by dialog for it (1.5 s of 1.6 on
    /// PostgreSQL).
    var dialogRollups: StatsShares?
    /// The roll-ups' statements, when the report reads them instead of every message: a whole-archive report.
    var rollups: StatsShares? { condition == nil ? dialogRollups : nil }

    init(_ request: StatisticsRequest, on connection: any SQLConnection) throws {
        if request.readsRollups { dialogRollups = try StatsRollup.shares(connection) }
        guard let query = request.query else { return }
        let compiler = try SearchCompiler.resolving(query, on: connection)
        if query.root.readsDialogs { source = "messages m LEFT JOIN dialogs d ON d.id = m.dialog_id" }
        condition = try compiler.compile(query.root)
    }

    /// `WHERE` with the query's condition and `extra` conditions, or nothing when there are none.
    func whereClause(_ extra: String...) -> SQLFragment {
        let parts = extra.map { SQLFragment.raw($0) } + (condition.map { ["(\($0))" as SQLFragment] } ?? [])
        return parts.isEmpty ? SQLFragment() : "WHERE " + .joined(parts, separator: " AND ")
    }
}

extension QueryExpression {
    /// Whether the compiled condition reads `dialogs d` (type, name or occupants).
    var readsDialogs: Bool {
        switch self {
        case .and(let children), .or(let children): return children.contains { $0.readsDialogs }
        case .not(let child): return child.readsDialogs
        case .text: return false
        case .predicate(let predicate):
            switch predicate.field {
            case .dialogType, .dialogName, .occupantsIDs: return true
            default: return false
            }
        }
    }
}
