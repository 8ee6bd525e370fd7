import Foundation
import QuickBlox

/// A message to restore, with the columns an archive derives from its `raw` record already derived.
///
/// The derivation (parsing `raw`, decoding it as QuickBlox's message, its canonical content and SHA-256) is
/// the same for every backend and a fifth of a restore's work; done when the batch is built, it runs beside
/// the archive storing the batch before (``ArchiveWriter/importRecords(_:)`` writes one batch at a time while
/// the next is read), not in the writer's transaction.
public struct ImportedMessage: Sendable {
    /// The record as the bundle or the source archive holds it: the archive's own columns are taken as given.
    public let archived: ArchivedMessage
    /// What QuickBlox sent, derived from ``ArchivedMessage/raw`` exactly as a crawl derives it, so a restored
    /// message is indistinguishable from a crawled one.
    public let content: MessageContent

    /// Derives `archived`'s columns from its `raw` record.
    ///
    /// - Throws: ``Problem`` when `raw` is not a QuickBlox message, or is the message of another id or dialog.
    public init(_ archived: ArchivedMessage) throws(Problem) {
        let raw: JSONValue
        do {
            raw = try JSONValue(parsing: archived.raw)
        } catch {
            throw Problem(messageID: archived.id, reason: "the `raw` record is not a QuickBlox message (\(error))")
        }
        self.init(archived: archived, content: try Self.content(of: raw, id: archived.id, dialogID: archived.dialogID))
    }

    /// A message whose columns were derived already (``content(of:id:dialogID:)``).
    public init(archived: ArchivedMessage, content: MessageContent) {
        self.archived = archived
        self.content = content
    }

    /// The columns derived from a `raw` record already parsed — a bundle's line is parsed whole, so its `raw` need
    /// not be written out as text and parsed again — exactly as a crawl derives them from a page's item.
    ///
    /// - Throws: ``Problem`` when `raw` is not a QuickBlox message, or is the message of another id or dialog.
    public static func content(of raw: JSONValue, id: String, dialogID: String) throws(Problem) -> MessageContent {
        let message: Message
        do {
            message = try Message(json: raw)
        } catch {
            throw Problem(messageID: id, reason: "the `raw` record is not a QuickBlox message (\(error))")
        }
        guard message.id == id, message.chatDialogID == dialogID else {
            throw Problem(
                messageID: id,
                reason: "the `raw` record is message \(message.id) of dialog \(message.chatDialogID), not of dialog "
                    + dialogID)
        }
        return MessageContent(message: message, raw: raw)
    }

    /// A message whose `raw` record does not describe it.
    public struct Problem: LocalizedError, Sendable, Equatable {
        public var messageID: String
        public var reason: String

        public var errorDescription: String? { "Message \(messageID) cannot be restored: \(reason)." }
    }
}
