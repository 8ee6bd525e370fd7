import Archive
import Foundation
import QueryLanguage
import QuickBlox

extension StatsReport {
    /// Periods filled in between the first and the last with messages; a longer span (a stray date in
    /// 1970) is left as it is rather than listing thousands of empty periods.
    static let maximumFilledPeriods = 5000

    /// Computes the report: SQLite aggregates the archive in one read transaction (see
    /// ``Archive/ArchiveReader/statistics(_:)``), then this adds labels, names and empty periods.
    ///
    /// - Throws: `QueryError` when the query names a login no archived user has, or a database error.
    public static func compute(archive: any ArchiveReader, options: StatsOptions) async throws -> StatsReport {
        let bucket = StatisticsRequest.Bucket(rawValue: options.period.rawValue) ?? .day
        var request = StatisticsRequest(query: options.query, bucket: bucket, top: max(0, options.top))
        request.readsRollups = options.readsRollups
        let raw = try await archive.statistics(request)
        return StatsReport(raw, period: options.period, query: options.query?.source)
    }

    /// The report of already aggregated figures.
    init(_ raw: ArchiveStatistics, period: StatsPeriod, query: String?) {
        self.query = query
        self.period = period
        totals = Self.totals(raw)
        var perBucket: [Int: ArchiveStatistics.VolumeBucket] = [:]
        for bucket in raw.volume { perBucket[bucket.start] = bucket }
        volume = Self.filled(raw.volume.map(\.start), period).map { start in
            let bucket = perBucket[start]
            return VolumeBucket(
                label: UTCCalendar.label(start, period), start: ISO8601.format(start),
                messages: bucket?.messages ?? 0, deleted: bucket?.deleted ?? 0, senders: bucket?.senders ?? 0)
        }
        var cells = Array(repeating: Array(repeating: 0, count: 24), count: 7)
        for cell in raw.hourOfWeek where (0..<7).contains(cell.weekday) && (0..<24).contains(cell.hour) {
            cells[cell.weekday][cell.hour] = cell.messages
        }
        hourOfWeek = cells
        var perDay: [Int: Int] = [:]
        for day in raw.dailyActiveSenders { perDay[day.start] = day.count }
        dailyActiveSenders = Self.filled(raw.dailyActiveSenders.map(\.start), .day).map {
            DailyActive(date: UTCCalendar.dateLabel($0), senders: perDay[$0] ?? 0)
        }
        topSenders = raw.topSenders.map {
            Sender(
                id: $0.id, login: $0.login, fullName: $0.fullName,
                label: Self.nonEmpty($0.fullName) ?? Self.nonEmpty($0.login) ?? "user \($0.id)", messages: $0.messages)
        }
        topDialogs = raw.topDialogs.map {
            let label = Self.nonEmpty($0.name) ?? Self.nonEmpty($0.participants.joined(separator: " & ")) ?? $0.id
            return DialogEntry(
                id: $0.id, name: $0.name, type: $0.type.map(Self.typeName) ?? "unknown", participants: $0.participants,
                label: label, messages: $0.messages)
        }
        firstReply = FirstReply(
            replies: raw.replies.replies, medianSeconds: raw.replies.median, p90Seconds: raw.replies.p90)
        coverage = Self.coverage(raw.coverage)
    }

    private static func totals(_ raw: ArchiveStatistics) -> Totals {
        var dialogs = DialogTotals(total: 0, public: 0, group: 0, private: 0, other: 0, deleted: 0)
        for row in raw.dialogs {
            dialogs.total += row.dialogs
            dialogs.deleted += row.deleted
            switch row.type {
            case DialogType.publicGroup.rawValue: dialogs.public += row.dialogs
            case DialogType.group.rawValue: dialogs.group += row.dialogs
            case DialogType.private.rawValue: dialogs.private += row.dialogs
            default: dialogs.other += row.dialogs
            }
        }
        let byType = raw.attachments.map {
            AttachmentCount(type: nonEmpty($0.type) ?? "unknown", attachments: $0.attachments)
        }
        return Totals(
            users: raw.users, senders: raw.senders, dialogs: dialogs, messages: raw.messages,
            deletedMessages: raw.deletedMessages, editedMessages: raw.editedMessages, edits: raw.edits,
            messagesWithAttachments: raw.messagesWithAttachments,
            attachments: byType.reduce(0) { $0 + $1.attachments }, attachmentsByType: byType)
    }

    private static func coverage(_ rows: [ArchiveStatistics.DialogCoverage]) -> Coverage {
        var coverage = Coverage(
            dialogs: rows.count, complete: 0, behind: 0, ahead: 0, notReconciled: 0, missing: 0, entries: [])
        for row in rows {
            let status: String
            if let server = row.serverCount, let held = row.archivedAtCount {
                if held == server {
                    status = "complete"
                    coverage.complete += 1
                } else if held < server {
                    status = "behind"
                    coverage.behind += 1
                    coverage.missing += server - held
                } else {
                    status = "ahead"
                    coverage.ahead += 1
                }
            } else {
                status = "not reconciled"
                coverage.notReconciled += 1
            }
            coverage.entries.append(
                CoverageEntry(
                    id: row.id, name: row.name, type: typeName(row.type), dialogDeleted: row.dialogDeleted,
                    serverCount: row.serverCount, countedAt: row.countedAt.map(ISO8601.format),
                    archivedAtCount: row.archivedAtCount, archived: row.archived, deleted: row.deleted, status: status))
        }
        return coverage
    }

    /// Every period start from the first to the last of `starts` (sorted), or `starts` when that would
    /// be more than ``maximumFilledPeriods``.
    static func filled(_ starts: [Int], _ period: StatsPeriod) -> [Int] {
        guard let first = starts.first, let last = starts.last else { return [] }
        var all: [Int] = []
        var start = first
        while start <= last {
            all.append(start)
            if all.count > maximumFilledPeriods { return starts }
            start = UTCCalendar.next(start, period)
        }
        return all
    }

    static func typeName(_ type: Int) -> String { DialogType(rawValue: type).name }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }
}
