import Crypto
import Foundation
import QuickBlox

/// The columns of one message as the archive stores them, derived from the decoded model and the raw JSON.
///
/// The content hash covers what a user can edit — text, attachments, custom parameters — as
/// canonical JSON (`JSONValue.serialized()` sorts keys), so key order, read/delivered marking and
/// `updated_at` bumps never look like edits.
public struct MessageContent: Sendable {
    public let message: Message
    public let raw: String
    public let attachments: String
    public let custom: String
    public let readIDs: String
    public let deliveredIDs: String
    public let contentHash: Data

    public init(message: Message, raw: JSONValue) {
        var message = message
        // SQLite's C API ends bound text at a U+0000, which would hide whatever a sender put after one
        // from search and exports; it is stored as U+FFFD instead (the raw record keeps the original).
        // Tested byte by byte: `contains` on a String is Foundation's here, through `NSString` on Linux (1.7 % of
        // an import's CPU, for every message); U+0000 is the only scalar whose UTF-8 holds a zero byte.
        if let text = message.text, text.utf8.contains(0) {
            message.text = text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
        }
        self.message = message
        self.raw = raw.jsonString
        let attachmentsJSON = JSONValue.array(message.attachments.map(\.json))
        let customJSON = JSONValue.object(message.customParameters)
        attachments = attachmentsJSON.jsonString
        custom = customJSON.jsonString
        readIDs = JSONValue.array(message.readIDs.map(JSONValue.int)).jsonString
        deliveredIDs = JSONValue.array(message.deliveredIDs.map(JSONValue.int)).jsonString
        let content: JSONValue = [
            "attachments": attachmentsJSON,
            "custom": customJSON,
            "text": message.text.map(JSONValue.string) ?? .null,
        ]
        contentHash = Data(SHA256.hash(data: content.serialized()))
    }

    /// The contents of a page's decoded items, checking that each belongs to `dialogID`.
    public static func page(_ messages: [(Message, JSONValue)], dialogID: String) throws -> [MessageContent] {
        try messages.map { message, raw in
            guard message.chatDialogID == dialogID else {
                throw ArchiveError.messageOutsideDialog(
                    messageID: message.id, messageDialogID: message.chatDialogID, pageDialogID: dialogID)
            }
            return MessageContent(message: message, raw: raw)
        }
    }
}
