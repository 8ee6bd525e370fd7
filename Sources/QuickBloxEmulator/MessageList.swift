import QuickBlox

/// One dialog's messages in `(date_sent, _id)` order, kept compactly; read and written as `Message` values.
///
/// Held as `Message` values, a million generated messages took 645 MiB of the emulator's memory (issue 23
/// asks for at most 300 MiB): a `Message` is 184 bytes, its `_id` a string with an allocation of its own, and
/// each optional integer carries a byte of presence padded to eight. A ``Row`` keeps the `_id` as its 12 bytes
/// (``PackedObjectID``), the optional integers as integers beside one byte of flags, and the dialog's id once
/// per list; a `Message` is made only when one is read (a page, a filter). Texts and receipt lists are shared
/// by the generator, so rows point at the same storage (docs/performance.md).
struct MessageList: Sendable {
    /// The dialog every message of the list belongs to.
    let dialogID: String
    private var rows: [Row] = []
    /// The `_id`s that are not 24 lowercase hex digits (a fixture may use any text), by the number their row
    /// holds.
    private var textIDs: [UInt64: String] = [:]
    private var lastTextNumber: UInt64 = 0

    init(dialogID: String) {
        self.dialogID = dialogID
    }

    /// The messages of one dialog, already in `(date_sent, _id)` order.
    init(dialogID: String, sorted messages: [Message]) {
        self.dialogID = dialogID
        rows.reserveCapacity(messages.count)
        for message in messages { rows.append(row(message)) }
    }

    /// The `date_sent` of the message at `index`, without making the message.
    func dateSent(at index: Int) -> Int { rows[index].dateSent }

    /// The `_id` of the message at `index`, without making the message.
    func id(at index: Int) -> String { identifier(of: rows[index]) }

    /// Index of the first message at or after `(dateSent, id)`; an empty `id` sorts before every id.
    func lowerBound(dateSent: Int, id: String = "") -> Int {
        let packed = PackedObjectID(hex: id)
        var low = 0
        var high = rows.count
        while low < high {
            let mid = (low + high) / 2
            if isBefore(rows[mid], dateSent: dateSent, id: id, packed: packed) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func isBefore(_ row: Row, dateSent: Int, id: String, packed: PackedObjectID?) -> Bool {
        if row.dateSent != dateSent { return row.dateSent < dateSent }
        if id.isEmpty { return false }
        if let packed, !row.id.isText { return row.id < packed }
        return identifier(of: row) < id
    }

    /// Where the message with this `_id` and `date_sent` sits, if it is here.
    func index(ofID id: String, sentAt dateSent: Int) -> Int? {
        let index = lowerBound(dateSent: dateSent, id: id)
        guard index < rows.count, rows[index].dateSent == dateSent, identifier(of: rows[index]) == id else {
            return nil
        }
        return index
    }

    /// Where the message with this `_id` sits, if it is here, whatever its `date_sent`: a scan.
    func index(ofID id: String) -> Int? {
        if let packed = PackedObjectID(hex: id) { return rows.firstIndex { $0.id == packed } }
        guard let number = textIDs.first(where: { $0.value == id })?.key else { return nil }
        return rows.firstIndex { $0.id == PackedObjectID(number: number) }
    }

    private func identifier(of row: Row) -> String { row.id.isText ? textIDs[row.id.high] ?? "" : row.id.hex }

    /// Inserts a message of this dialog at `index`.
    mutating func insert(_ message: Message, at index: Int) {
        rows.insert(row(message), at: index)
    }

    /// Appends a message of this dialog (it must sort last).
    mutating func append(_ message: Message) {
        rows.append(row(message))
    }

    /// Removes and returns the message at `index`.
    @discardableResult
    mutating func remove(at index: Int) -> Message {
        let message = self[index]
        let removed = rows.remove(at: index)
        if removed.id.isText { textIDs[removed.id.high] = nil }
        return message
    }

    /// The row for a message of this dialog; a text `_id` is numbered and kept aside.
    private mutating func row(_ message: Message) -> Row {
        precondition(message.chatDialogID == dialogID, "a message is stored in its own dialog's list")
        var flags: Row.Flags = []
        if message.senderID == nil { flags.insert(.noSender) }
        if message.recipientID == nil { flags.insert(.noRecipient) }
        if message.createdAt == nil { flags.insert(.noCreatedAt) }
        if message.updatedAt == nil { flags.insert(.noUpdatedAt) }
        if message.read == nil { flags.insert(.noRead) }
        let id: PackedObjectID
        if let packed = PackedObjectID(hex: message.id) {
            id = packed
        } else {
            lastTextNumber += 1
            textIDs[lastTextNumber] = message.id
            id = PackedObjectID(number: lastTextNumber)
        }
        return Row(
            id: id, flags: flags, text: message.text, dateSent: message.dateSent, senderID: message.senderID ?? 0,
            recipientID: message.recipientID ?? 0, createdAt: message.createdAt ?? 0,
            updatedAt: message.updatedAt ?? 0, read: message.read ?? 0, attachments: message.attachments,
            readIDs: message.readIDs, deliveredIDs: message.deliveredIDs, extra: message.extra)
    }

    private func message(_ row: Row) -> Message {
        let flags = row.flags
        return Message(
            id: identifier(of: row), chatDialogID: dialogID, text: row.text, dateSent: row.dateSent,
            senderID: flags.contains(.noSender) ? nil : row.senderID,
            recipientID: flags.contains(.noRecipient) ? nil : row.recipientID, attachments: row.attachments,
            readIDs: row.readIDs, deliveredIDs: row.deliveredIDs,
            createdAt: flags.contains(.noCreatedAt) ? nil : row.createdAt,
            updatedAt: flags.contains(.noUpdatedAt) ? nil : row.updatedAt,
            read: flags.contains(.noRead) ? nil : row.read, extra: row.extra)
    }
}

extension MessageList: RandomAccessCollection, MutableCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { rows.count }

    subscript(position: Int) -> Message {
        get { message(rows[position]) }
        set {
            let old = rows[position]
            if old.id.isText { textIDs[old.id.high] = nil }
            rows[position] = row(newValue)
        }
    }
}

extension MessageList {
    /// A message as the list keeps it: 112 bytes and no allocation of its own (texts and lists are shared).
    struct Row: Sendable {
        struct Flags: OptionSet, Sendable {
            let rawValue: UInt8
            static let noSender = Flags(rawValue: 1)
            static let noRecipient = Flags(rawValue: 2)
            static let noCreatedAt = Flags(rawValue: 4)
            static let noUpdatedAt = Flags(rawValue: 8)
            static let noRead = Flags(rawValue: 16)
        }

        var id: PackedObjectID
        /// Which optional fields are `nil` (laid out in the padding after `id`).
        var flags: Flags
        var text: String?
        var dateSent: Int
        var senderID: Int
        var recipientID: Int
        var createdAt: Int
        var updatedAt: Int
        var read: Int
        var attachments: [Attachment]
        var readIDs: [Int]
        var deliveredIDs: [Int]
        var extra: [String: JSONValue]
    }
}
