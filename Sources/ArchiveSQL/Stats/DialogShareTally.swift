import Archive

/// One dialog's shares of every statistics roll-up, tallied from its messages read once, in order.
///
/// The same figures as the share statements of ``StatsShares`` (which stay the definition, and which a test
/// compares this with), for a backend that reads a dialog's messages cheaper than it groups them: SQLite's
/// refresh after a first crawl or an import ran six statements over every message, each grouping a million rows
/// in a temporary B-tree (docs/performance.md, *Crawl*); reading them once and counting here takes that away.
/// What needs SQL's own semantics — the hour and the day (floor division), the list of attachment types (JSON),
/// whether a message counts at the dialog's reconcile count — comes computed in the row (``StatsSharePass``).
public struct DialogShareTally {
    /// One message as ``StatsSharePass/messages`` reads it.
    public struct Message {
        public var hour: Int64
        public var day: Int64
        public var dateSent: Int64
        public var sender: Int64?
        public var deleted: Bool
        public var edited: Int64
        /// The JSON list of its attachment types, `""` when it has none.
        public var kinds: String
        /// Whether it counts at the dialog's last reconcile count (first seen by then, not deleted by then).
        public var atCount: Bool

        public init(
            hour: Int64, day: Int64, dateSent: Int64, sender: Int64?, deleted: Bool, edited: Int64, kinds: String,
            atCount: Bool
        ) {
            (self.hour, self.day, self.dateSent, self.sender) = (hour, day, dateSent, sender)
            (self.deleted, self.edited, self.kinds, self.atCount) = (deleted, edited, kinds, atCount)
        }
    }

    /// Counts of one hour: messages, deleted, edits, edited, attached.
    private struct HourCounts {
        var messages: Int64 = 0
        var deleted: Int64 = 0
        var edits: Int64 = 0
        var edited: Int64 = 0
        var attached: Int64 = 0

        mutating func add(_ message: Message) {
            messages += 1
            if message.deleted { deleted += 1 }
            edits += message.edited
            if message.edited > 0 { edited += 1 }
            if !message.kinds.isEmpty { attached += 1 }
        }
    }

    private let dialogID: String
    /// Whether reply delays count (private dialogs only, as ``StatsShares/replies`` says).
    private let isPrivate: Bool
    private var hours: [Int64: HourCounts] = [:]
    private var kinds: [String: Int64] = [:]
    private var senderDays: [SenderDay: Int64] = [:]
    private var senders: [Int64: Int64] = [:]
    private var delays: [Int64: Int64] = [:]
    /// The last message with a sender: a reply is a message whose sender differs from it.
    private var previous: (sender: Int64, date: Int64)?
    private var messages: Int64 = 0
    private var deleted: Int64 = 0
    private var atCount: Int64 = 0

    private struct SenderDay: Hashable, Comparable {
        var day: Int64
        var sender: Int64
        static func < (a: Self, b: Self) -> Bool { (a.day, a.sender) < (b.day, b.sender) }
    }

    public init(dialogID: String, isPrivate: Bool) {
        self.dialogID = dialogID
        self.isPrivate = isPrivate
    }

    /// Counts `message`, the next of the dialog's messages in order of date sent and id.
    public mutating func add(_ message: Message) {
        messages += 1
        if message.deleted { deleted += 1 }
        if message.atCount { atCount += 1 }
        hours[message.hour, default: HourCounts()].add(message)
        if !message.kinds.isEmpty { kinds[message.kinds, default: 0] += 1 }
        guard let sender = message.sender else { return }
        senderDays[SenderDay(day: message.day, sender: sender), default: 0] += 1
        senders[sender, default: 0] += 1
        if isPrivate {
            if let previous, previous.sender != sender { delays[message.dateSent - previous.date, default: 0] += 1 }
            previous = (sender, message.dateSent)
        }
    }

    /// The rows of each roll-up's per-dialog table, in the order of ``StatsSharePass/inserts`` (the summed tables
    /// as ``StatsShares/summed`` lists them, then `stats_dialogs`), each row in the order of that table's columns,
    /// in key order. A dialog with no message has no row anywhere, as the statements give none.
    public func rows() -> [[[SQLValue]]] {
        guard messages > 0 else { return Array(repeating: [], count: 6) }
        let id = SQLValue.text(dialogID)
        let hourRows = hours.sorted { $0.key < $1.key }.map { hour, counts in
            [id, .integer(hour), .integer(counts.messages), .integer(counts.deleted), .integer(counts.edits)]
                + [.integer(counts.edited), .integer(counts.attached)]
        }
        let kindRows = kinds.sorted { $0.key < $1.key }.map { [id, .text($0.key), .integer($0.value)] }
        let dayRows = senderDays.sorted { $0.key < $1.key }.map {
            [id, .integer($0.key.day), .integer($0.key.sender), .integer($0.value)]
        }
        let senderRows = senders.sorted { $0.key < $1.key }.map { [id, .integer($0.key), .integer($0.value)] }
        let delayRows = delays.sorted { $0.key < $1.key }.map { [id, .integer($0.key), .integer($0.value)] }
        let dialogRow: [SQLValue] = [id, .integer(messages), .integer(deleted), .integer(atCount)]
        return [hourRows, kindRows, dayRows, senderRows, delayRows, [dialogRow]]
    }
}
