import Foundation
import GRDB
import QueryLanguage
import QuickBlox

extension SQLiteArchive {
    /// Every figure of `qbarchive stats`, aggregated by SQLite in one read transaction.
    ///
    /// Seven statements, each one pass over the selected messages (or over a covering index when there
    /// is no query): totals, volume, hour-of-week and attachments from one materialized table of hourly
    /// buckets; active senders from the distinct (day, sender) pairs; top senders; top dialogs; first
    /// replies through window functions; coverage per dialog. No message row reaches Swift. The query,
    /// when given, is compiled by ``SearchCompiler`` and restricts every figure; tombstoned messages are
    /// counted everywhere (and as deletions). See docs/stats.md for each definition.
    ///
    /// - Throws: ``QueryError`` when the query names a login no archived user has, or a database error.
    public func statistics(_ request: StatisticsRequest) async throws -> ArchiveStatistics {
        try await reading { db in
            try Self.limitingComplexity(of: request.query) { try Self.statistics(request, db: db) }
        }
    }

    private static func statistics(_ request: StatisticsRequest, db: Database) throws -> ArchiveStatistics {
        let selection = try StatsSelection(query: request.query, db: db)
        var statistics = ArchiveStatistics()
        try Self.readHourly(db, selection, request.bucket, into: &statistics)
        try Self.readActiveSenders(db, selection, request.bucket, into: &statistics)
        try Self.readPopulation(db, selection, into: &statistics)
        statistics.topSenders = try Self.topSenders(db, selection, limit: request.top)
        statistics.topDialogs = try Self.topDialogs(db, selection, limit: request.top)
        statistics.replies = try Self.replyTimes(db, selection)
        statistics.coverage = try Self.coverage(db, selection)
        return statistics
    }

    /// Totals, volume per bucket, hour-of-week cells and attachment types, from one scan.
    ///
    /// The scan groups the selected messages by hour and by the list of their attachment types (NULL
    /// for most messages, so the JSON functions run only on messages with attachments); the roll-ups
    /// then read that materialized table of a few thousand rows.
    private static func readHourly(
        _ db: Database, _ selection: StatsSelection, _ bucket: StatisticsRequest.Bucket,
        into statistics: inout ArchiveStatistics
    ) throws {
        let hour = StatsSQL.floorDivision("m.date_sent", 3600)
        let day = StatsSQL.floorDivision("h", 24)
        let sql = """
            WITH hourly AS MATERIALIZED (
                SELECT \(hour) AS h,
                    CASE WHEN m.attachments = '[]' THEN NULL ELSE (
                        SELECT json_group_array(json_extract(e.value, '$.type')) FROM json_each(m.attachments) e
                    ) END AS kinds,
                    COUNT(*) AS n, SUM(m.deleted_at IS NOT NULL) AS deleted, SUM(m.edited) AS edits,
                    SUM(m.edited > 0) AS edited
                FROM \(selection.source) \(selection.whereClause())
                GROUP BY h, kinds
            ), daily AS (
                SELECT \(day) AS day, ((h % 24) + 24) % 24 AS hour, n, deleted FROM hourly
            )
            SELECT 'total', NULL, NULL, SUM(n), SUM(deleted), SUM(edits), SUM(edited),
                SUM(CASE WHEN kinds IS NULL THEN 0 ELSE n END) FROM hourly
            UNION ALL
            SELECT 'bucket', start, NULL, SUM(n), SUM(deleted), NULL, NULL, NULL
                FROM (SELECT \(StatsSQL.bucketStart(bucket, day: "day")) AS start, n, deleted FROM daily) GROUP BY start
            UNION ALL
            SELECT 'cell', \(StatsSQL.weekday("day")) AS weekday, hour, SUM(n), NULL, NULL, NULL, NULL
                FROM daily GROUP BY weekday, hour
            UNION ALL
            SELECT 'attachment', e.value, NULL, SUM(g.n), NULL, NULL, NULL, NULL
                FROM hourly g, json_each(g.kinds) e WHERE g.kinds IS NOT NULL GROUP BY e.value
            """
        var buckets: [ArchiveStatistics.VolumeBucket] = []
        for row in try Row.fetchAll(db, sql: sql, arguments: selection.arguments) {
            let kind: String = row[0]
            switch kind {
            case "total":
                statistics.messages = row[3] ?? 0
                statistics.deletedMessages = row[4] ?? 0
                statistics.edits = row[5] ?? 0
                statistics.editedMessages = row[6] ?? 0
                statistics.messagesWithAttachments = row[7] ?? 0
            case "bucket":
                buckets.append(.init(start: row[1], messages: row[3], deleted: row[4], senders: 0))
            case "cell":
                statistics.hourOfWeek.append(.init(weekday: row[1], hour: row[2], messages: row[3]))
            default:
                let type: DatabaseValue = row[1]
                let name = String.fromDatabaseValue(type) ?? Int.fromDatabaseValue(type).map(String.init)
                statistics.attachments.append(.init(type: name, attachments: row[3]))
            }
        }
        statistics.volume = buckets.sorted { $0.start < $1.start }
        statistics.hourOfWeek.sort { ($0.weekday, $0.hour) < ($1.weekday, $1.hour) }
        statistics.attachments.sort { ($1.attachments, $0.type ?? "") < ($0.attachments, $1.type ?? "") }
    }

    /// Distinct senders per day, per volume bucket and overall, from the distinct (day, sender) pairs.
    private static func readActiveSenders(
        _ db: Database, _ selection: StatsSelection, _ bucket: StatisticsRequest.Bucket,
        into statistics: inout ArchiveStatistics
    ) throws {
        let sql = """
            WITH active AS MATERIALIZED (
                SELECT DISTINCT \(StatsSQL.floorDivision("m.date_sent", 86_400)) AS day, m.sender_id AS sender
                FROM \(selection.source) \(selection.whereClause("m.sender_id IS NOT NULL"))
            )
            SELECT 'day', day * 86400, COUNT(*) FROM active GROUP BY day
            UNION ALL
            SELECT 'bucket', start, COUNT(DISTINCT sender)
                FROM (SELECT \(StatsSQL.bucketStart(bucket, day: "day")) AS start, sender FROM active) GROUP BY start
            UNION ALL
            SELECT 'total', NULL, COUNT(DISTINCT sender) FROM active
            """
        var perBucket: [Int: Int] = [:]
        for row in try Row.fetchAll(db, sql: sql, arguments: selection.arguments) {
            let kind: String = row[0]
            switch kind {
            case "day": statistics.dailyActiveSenders.append(.init(start: row[1], count: row[2]))
            case "bucket": perBucket[row[1]] = row[2]
            default: statistics.senders = row[2] ?? 0
            }
        }
        statistics.dailyActiveSenders.sort { $0.start < $1.start }
        for index in statistics.volume.indices {
            statistics.volume[index].senders = perBucket[statistics.volume[index].start] ?? 0
        }
    }

    /// Users and dialogs by type: the whole archive, or with a query the senders and dialogs it reaches.
    private static func readPopulation(
        _ db: Database, _ selection: StatsSelection, into statistics: inout ArchiveStatistics
    ) throws {
        var dialogFilter = ""
        if let condition = selection.condition {
            statistics.users = statistics.senders
            dialogFilter = "WHERE dd.id IN (SELECT m.dialog_id FROM \(selection.source) WHERE \(condition))"
        } else {
            statistics.users = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") ?? 0
        }
        statistics.dialogs = try Row.fetchAll(
            db,
            sql: """
                SELECT dd.type, COUNT(*), SUM(dd.deleted_at IS NOT NULL) FROM dialogs dd \(dialogFilter)
                GROUP BY dd.type ORDER BY dd.type
                """,
            arguments: selection.arguments
        ).map { .init(type: $0[0], dialogs: $0[1], deleted: $0[2]) }
    }
}

/// The selected messages: `messages m`, joined to `dialogs d` when the query reads a dialog column.
struct StatsSelection {
    var source = "messages m"
    var condition: String?
    var arguments = StatementArguments()

    init(query: Query?, db: Database) throws {
        guard let query else { return }
        let fragment = try SQLiteArchive.condition(query, db: db)
        if query.root.readsDialogs { source = "messages m LEFT JOIN dialogs d ON d.id = m.dialog_id" }
        condition = fragment.sql
        arguments = StatementArguments(fragment.arguments)
    }

    /// `WHERE` with the query's condition and `extra` conditions, or nothing when there are none.
    func whereClause(_ extra: String...) -> String {
        let parts = extra + (condition.map { ["(\($0))"] } ?? [])
        return parts.isEmpty ? "" : "WHERE " + parts.joined(separator: " AND ")
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
