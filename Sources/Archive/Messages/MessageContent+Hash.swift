import Crypto
import Foundation
import QuickBlox

extension MessageContent {
    /// The content hash of an archived version (a message or a revision) from its stored columns: the SHA-256 of
    /// the canonical JSON of its text, attachments and custom parameters, as ``contentHash`` is computed for a
    /// message as received. Unreadable JSON counts as empty (`[]`, `{}`).
    public static func contentHash(text: String?, attachmentsJSON: String, customJSON: String) -> Data {
        let attachments = (try? JSONValue(parsing: attachmentsJSON)) ?? .array([])
        let custom = (try? JSONValue(parsing: customJSON)) ?? .object([:])
        let content: JSONValue = [
            "attachments": attachments, "custom": custom, "text": text.map(JSONValue.string) ?? .null,
        ]
        return Data(SHA256.hash(data: content.serialized()))
    }
}
