/// The raw figures of `qbarchive stats`, as ``SQLiteArchive/statistics(_:)`` reads them in one transaction.
///
/// Every aggregate is computed by SQLite; this type only carries the results (a few thousand rows at
/// most: buckets, cells, leaders and one row per dialog for coverage). Times are unix seconds, UTC.
/// The `Stats` module turns it into a report with labels, JSON, tables and charts.
public struct ArchiveStatistics: Sendable, Hashable {
    /// Users: every archived user without a query; with one, the distinct senders of the matching messages.
    public var users: Int
    /// Distinct senders of the selected messages.
    public var senders: Int
    /// Dialogs by type: every archived dialog without a query; with one, dialogs holding a matching message.
    public var dialogs: [DialogTypeCount]
    /// Selected messages, tombstoned ones included.
    public var messages: Int
    /// Selected messages with a tombstone (deleted on the server, kept here).
    public var deletedMessages: Int
    /// Selected messages edited at least once.
    public var editedMessages: Int
    /// Edits of the selected messages (a message edited twice counts 2).
    public var edits: Int
    /// Selected messages with at least one attachment.
    public var messagesWithAttachments: Int
    /// Attachments of the selected messages by `type`, most first.
    public var attachments: [AttachmentTypeCount]
    /// Selected messages per bucket, oldest first; buckets without messages are absent.
    public var volume: [VolumeBucket]
    /// Distinct senders per UTC day, oldest first; days without messages are absent.
    public var dailyActiveSenders: [DayCount]
    /// Selected messages per (weekday, hour) in UTC; cells without messages are absent.
    public var hourOfWeek: [HourOfWeekCell]
    /// The senders of most selected messages, most first (ties by id).
    public var topSenders: [SenderCount]
    /// The dialogs with most selected messages, most first (ties by id).
    public var topDialogs: [DialogCount]
    /// First-reply delays in private dialogs.
    public var replies: ReplyTimes
    /// Server count at the last reconcile against the archive, one row per dialog (ordered by id).
    public var coverage: [DialogCoverage]

    public init(
        users: Int = 0, senders: Int = 0, dialogs: [DialogTypeCount] = [], messages: Int = 0, deletedMessages: Int = 0,
        editedMessages: Int = 0, edits: Int = 0, messagesWithAttachments: Int = 0,
        attachments: [AttachmentTypeCount] = [], volume: [VolumeBucket] = [], dailyActiveSenders: [DayCount] = [],
        hourOfWeek: [HourOfWeekCell] = [], topSenders: [SenderCount] = [], topDialogs: [DialogCount] = [],
        replies: ReplyTimes = ReplyTimes(), coverage: [DialogCoverage] = []
    ) {
        self.users = users
        self.senders = senders
        self.dialogs = dialogs
        self.messages = messages
        self.deletedMessages = deletedMessages
        self.editedMessages = editedMessages
        self.edits = edits
        self.messagesWithAttachments = messagesWithAttachments
        self.attachments = attachments
        self.volume = volume
        self.dailyActiveSenders = dailyActiveSenders
        self.hourOfWeek = hourOfWeek
        self.topSenders = topSenders
        self.topDialogs = topDialogs
        self.replies = replies
        self.coverage = coverage
    }

    /// Dialogs of one type (1 public, 2 group, 3 private); `deleted` of them have a tombstone.
    public struct DialogTypeCount: Sendable, Hashable {
        public var type: Int
        public var dialogs: Int
        public var deleted: Int
        public init(type: Int, dialogs: Int, deleted: Int) {
            self.type = type
            self.dialogs = dialogs
            self.deleted = deleted
        }
    }

    /// Attachments of one `type` (`nil` when the attachment names none).
    public struct AttachmentTypeCount: Sendable, Hashable {
        public var type: String?
        public var attachments: Int
        public init(type: String? = nil, attachments: Int) {
            self.type = type
            self.attachments = attachments
        }
    }

    /// Messages in the bucket starting at `start`; `deleted` of them have a tombstone; `senders` sent them.
    public struct VolumeBucket: Sendable, Hashable {
        public var start: Int
        public var messages: Int
        public var deleted: Int
        public var senders: Int
        public init(start: Int, messages: Int, deleted: Int, senders: Int) {
            self.start = start
            self.messages = messages
            self.deleted = deleted
            self.senders = senders
        }
    }

    /// A figure for the UTC day starting at `start`.
    public struct DayCount: Sendable, Hashable {
        public var start: Int
        public var count: Int
        public init(start: Int, count: Int) {
            self.start = start
            self.count = count
        }
    }

    /// Messages sent on `weekday` (0 Monday … 6 Sunday) during `hour` (0…23), UTC.
    public struct HourOfWeekCell: Sendable, Hashable {
        public var weekday: Int
        public var hour: Int
        public var messages: Int
        public init(weekday: Int, hour: Int, messages: Int) {
            self.weekday = weekday
            self.hour = hour
            self.messages = messages
        }
    }

    /// A sender with their archived names (`nil` when the user was never archived).
    public struct SenderCount: Sendable, Hashable {
        public var id: Int
        public var login: String?
        public var fullName: String?
        public var messages: Int
        public init(id: Int, login: String? = nil, fullName: String? = nil, messages: Int) {
            self.id = id
            self.login = login
            self.fullName = fullName
            self.messages = messages
        }
    }

    /// A dialog with its name; `participants` names the occupants of a dialog without a name.
    public struct DialogCount: Sendable, Hashable {
        public var id: String
        public var name: String?
        public var type: Int?
        public var participants: [String]
        public var messages: Int
        public init(id: String, name: String? = nil, type: Int? = nil, participants: [String], messages: Int) {
            self.id = id
            self.name = name
            self.type = type
            self.participants = participants
            self.messages = messages
        }
    }

    /// How many first replies were measured, and the nearest-rank median and 90th percentile (seconds).
    public struct ReplyTimes: Sendable, Hashable {
        public var replies: Int
        public var median: Int?
        public var p90: Int?

        public init(replies: Int = 0, median: Int? = nil, p90: Int? = nil) {
            self.replies = replies
            self.median = median
            self.p90 = p90
        }
    }

    /// One dialog's coverage.
    ///
    /// `serverCount` and `countedAt` are `nil` until a reconcile counted the dialog. `archivedAtCount`
    /// is what the archive held at that moment (live messages first seen by then and not tombstoned by
    /// then), the figure to compare with `serverCount`; `archived` and `deleted` are the live and
    /// tombstoned messages now.
    public struct DialogCoverage: Sendable, Hashable {
        public var id: String
        public var name: String?
        public var type: Int
        public var dialogDeleted: Bool
        public var serverCount: Int?
        public var countedAt: Int?
        public var archivedAtCount: Int?
        public var archived: Int
        public var deleted: Int
        public init(
            id: String, name: String? = nil, type: Int, dialogDeleted: Bool, serverCount: Int? = nil,
            countedAt: Int? = nil, archivedAtCount: Int? = nil, archived: Int, deleted: Int
        ) {
            self.id = id
            self.name = name
            self.type = type
            self.dialogDeleted = dialogDeleted
            self.serverCount = serverCount
            self.countedAt = countedAt
            self.archivedAtCount = archivedAtCount
            self.archived = archived
            self.deleted = deleted
        }
    }
}
