import QueryLanguage
import QuickBlox

/// Which messages an export takes, and how the user said so (recorded in the manifest and audit log).
public struct ExportSelection: Sendable, Hashable {
    /// The `--where` query text (or the saved query's text), as given.
    public var whereText: String?
    /// `--dialog`.
    public var dialogID: String?
    /// `--since` and `--until`, as given: whole periods, so `--until 2024-03` includes March.
    public var since: String?
    public var until: String?
    /// Everything above as one query; `nil` exports the whole archive.
    public var query: Query?
    /// The selection with every relative or partial date resolved, for the manifest: `sent_from` (the start of
    /// `--since`), `sent_before` (the end of `--until`), as UTC instants, and the `--where` query as
    /// understood (absolute dates, UTC) — so that "30d" in a manifest read years later still says which days.
    public var resolved: JSONValue = .null
    /// A subject-access export's person (`--subject`): only what they took part in is selected.
    public var subject: Subject?

    /// The person of a subject-access export and the dialogs they were ever a member of.
    public struct Subject: Sendable, Hashable {
        /// Their QuickBlox user id.
        public var id: Int
        /// Dialogs whose membership history names them (they may have left since).
        public var dialogs: [String]

        public init(id: Int, dialogs: [String]) {
            self.id = id
            self.dialogs = dialogs
        }

        /// What they took part in: messages they sent or were sent, and every message of a dialog they are
        /// an occupant of or ever were a member of.
        var clause: String {
            var parts = ["sender_id = \(id)", "recipient_id = \(id)", "occupants_ids = \(id)"]
            if !dialogs.isEmpty {
                parts.append("dialog in (" + dialogs.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
            }
            return "(" + parts.joined(separator: " or ") + ")"
        }
    }

    /// Combines the options into one query.
    ///
    /// - Parameter names: how errors name the two dates: the command's options, or the API's fields.
    /// - Throws: ``QueryError`` for a `--where` that does not parse (positions refer to its text), or
    ///   ``ExportError/badOption(_:)`` for a date that is not one.
    public init(
        whereText: String?, dialogID: String?, since: String?, until: String?, now: Int, subject: Subject? = nil,
        names: (since: String, until: String) = ("--since", "--until")
    ) throws {
        self.whereText = whereText
        self.subject = subject
        self.dialogID = dialogID
        self.since = since
        self.until = until
        var parts: [QueryExpression] = []
        var sources: [String] = []
        if let whereText {
            parts.append(try QueryParser(now: now).parse(whereText).root)
            sources.append("(\(whereText))")
        }
        if let dialogID {
            parts.append(
                .predicate(QueryPredicate(field: .dialog, op: .equal, values: [.string(dialogID)], range: 0..<0)))
            sources.append("dialog = \(dialogID)")
        }
        if let subject {
            parts.append(try QueryParser(now: now).parse(subject.clause).root)
            sources.append("subject = \(subject.id)")
        }
        var periods: [String: (start: Int, end: Int)] = [:]
        for (name, text, op) in [
            (names.since, since, FilterOperator.greaterThanOrEqual), (names.until, until, .lessThanOrEqual),
        ] {
            guard let text else { continue }
            guard let period = QueryDate.period(text, now: now) else {
                throw ExportError.badOption("\(name) \(text) is not a date: \(QueryDate.hint)")
            }
            periods[name] = (period.start, period.end)
            parts.append(
                .predicate(
                    QueryPredicate(
                        field: .dateSent, op: op, values: [.period(start: period.start, end: period.end)], range: 0..<0)
                ))
            sources.append("date \(op == .greaterThanOrEqual ? ">=" : "<=") \(text)")
        }
        var whereReading: String?
        if let root = parts.first, whereText != nil {
            whereReading = QuerySummary.describe(Query(source: whereText ?? "", root: root))
        }
        var resolved: [String: JSONValue] = [
            "time_zone": .string("UTC"),
            "sent_from": periods[names.since].map { .string(ISO8601.format($0.start)) } ?? .null,
            "sent_before": periods[names.until].map { .string(ISO8601.format($0.end)) } ?? .null,
            "where_understood_as": whereReading.map(JSONValue.string) ?? .null,
        ]
        if let subject {
            resolved["subject"] = .object(["user_id": .int(subject.id), "took_part_in": .string(subject.clause)])
        }
        self.resolved = .object(resolved)
        if let first = periods[names.since], let last = periods[names.until], first.start >= last.end {
            throw ExportError.badOption(
                "\(names.since) \(since ?? "") begins after \(names.until) \(until ?? "") ends, so no message can be in between "
                    + "(an empty export is never made for a range that cannot hold one); did you mean them swapped?")
        }
        switch parts.count {
        case 0: query = nil
        case 1: query = Query(source: sources[0], root: parts[0])
        default: query = Query(source: sources.joined(separator: " "), root: .and(parts))
        }
    }
}
