/// Everything `qbarchive stats` reports about an archive (or a query's messages), ready to print,
/// serve or chart.
///
/// Built by ``compute(archive:options:)`` from aggregates SQLite computes (see docs/stats.md for each
/// definition); rendered by ``json()``, ``table()`` and ``StatsChart``. Names travel beside ids, so
/// a reader never has to look a user or a dialog up. Times are UTC. ``json()`` writes snake_case keys
/// in a stable order; `JSONDecoder` with `.convertFromSnakeCase` reads them back into this type.
public struct StatsReport: Codable, Sendable, Hashable {
    /// The `--where` query's text, `nil` for the whole archive.
    public var query: String?
    /// The length of the ``volume`` buckets.
    public var period: StatsPeriod
    public var totals: Totals
    /// Messages per period, oldest first, empty periods between the first and the last included.
    public var volume: [VolumeBucket]
    /// Messages per UTC weekday and hour: 7 rows, Monday first, of 24 hours each.
    public var hourOfWeek: [[Int]]
    /// Distinct senders per UTC day, oldest first, empty days included.
    public var dailyActiveSenders: [DailyActive]
    public var topSenders: [Sender]
    public var topDialogs: [DialogEntry]
    public var firstReply: FirstReply
    public var coverage: Coverage

    /// Counts of the selected users, dialogs, messages and attachments.
    public struct Totals: Codable, Sendable, Hashable {
        /// Every archived user; with a query, the distinct senders of its messages.
        public var users: Int
        /// Distinct senders of the selected messages.
        public var senders: Int
        public var dialogs: DialogTotals
        /// Selected messages, deleted (tombstoned) ones included.
        public var messages: Int
        /// Selected messages deleted on the server and kept by the archive.
        public var deletedMessages: Int
        /// Selected messages edited at least once.
        public var editedMessages: Int
        /// All edits of the selected messages (a message edited twice counts 2).
        public var edits: Int
        /// Selected messages with at least one attachment.
        public var messagesWithAttachments: Int
        /// Attachments of the selected messages.
        public var attachments: Int
        /// Attachments by type, most first.
        public var attachmentsByType: [AttachmentCount]
    }

    /// Dialogs by type; `deleted` counts the tombstoned ones among them.
    public struct DialogTotals: Codable, Sendable, Hashable {
        public var total: Int
        public var `public`: Int
        public var group: Int
        public var `private`: Int
        /// Dialogs of a type QuickBlox does not define.
        public var other: Int
        public var deleted: Int
    }

    /// Attachments of one type (`unknown` when an attachment names none).
    public struct AttachmentCount: Codable, Sendable, Hashable {
        public var type: String
        public var attachments: Int
    }

    /// One period of ``StatsReport/volume``.
    public struct VolumeBucket: Codable, Sendable, Hashable {
        /// `2024-03-01`, `2024-W09` or `2024-03`.
        public var label: String
        /// The period's first instant, ISO 8601 (`2024-02-26T00:00:00Z`).
        public var start: String
        /// Messages sent in the period, deleted ones included.
        public var messages: Int
        /// Of those, deleted on the server.
        public var deleted: Int
        /// Distinct senders in the period.
        public var senders: Int
    }

    /// Distinct senders on one UTC day.
    public struct DailyActive: Codable, Sendable, Hashable {
        /// `2024-03-01`.
        public var date: String
        public var senders: Int
    }

    /// A top sender.
    public struct Sender: Codable, Sendable, Hashable {
        public var id: Int
        public var login: String?
        public var fullName: String?
        /// What to show: the full name, else the login, else `user ID`.
        public var label: String
        public var messages: Int
    }

    /// A top dialog.
    public struct DialogEntry: Codable, Sendable, Hashable {
        public var id: String
        public var name: String?
        /// `public`, `group`, `private` (or the number of another type); `unknown` when not archived.
        public var type: String
        /// Occupants' names, for a dialog without a name (most private dialogs).
        public var participants: [String]
        /// What to show: the name, else the participants joined with ` & `, else the id.
        public var label: String
        public var messages: Int
    }

    /// First-reply delays in private dialogs (nearest-rank percentiles, seconds; `nil` without replies).
    public struct FirstReply: Codable, Sendable, Hashable {
        public var replies: Int
        public var medianSeconds: Int?
        public var p90Seconds: Int?
    }

    /// The archive against the server: per dialog, the count at its last reconcile against the archive.
    public struct Coverage: Codable, Sendable, Hashable {
        public var dialogs: Int
        /// Dialogs whose count matched what the archive held at the reconcile.
        public var complete: Int
        /// Dialogs where the archive held fewer messages than the server counted.
        public var behind: Int
        /// Dialogs where the archive held more (typically deleted on the server since the count).
        public var ahead: Int
        /// Dialogs never counted by a reconcile.
        public var notReconciled: Int
        /// Messages the server counted that the archive did not hold then, over all dialogs.
        public var missing: Int
        public var entries: [CoverageEntry]
    }

    /// One dialog's coverage.
    public struct CoverageEntry: Codable, Sendable, Hashable {
        public var id: String
        public var name: String?
        public var type: String
        /// The dialog itself is tombstoned.
        public var dialogDeleted: Bool
        /// The server's message count at the last reconcile; `nil`: not reconciled.
        public var serverCount: Int?
        /// When that count was taken (ISO 8601).
        public var countedAt: String?
        /// Live messages the archive held at that moment: compare with ``serverCount``.
        public var archivedAtCount: Int?
        /// Live messages archived now.
        public var archived: Int
        /// Deleted (tombstoned) messages archived now.
        public var deleted: Int
        /// `complete`, `behind`, `ahead` or `not reconciled`.
        public var status: String
    }
}
