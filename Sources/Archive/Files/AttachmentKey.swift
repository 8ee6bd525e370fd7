import QuickBlox

/// The identity of an attachment's file: its Content-module `uid`, else its blob `id`, else its `url`.
///
/// One key is one download, however many messages attach the file; a location or other attachment
/// without any of the three names no file and has no key.
public enum AttachmentKey {
    /// `uid:…`, `id:…` or `url:…`, or `nil` when the attachment names no file.
    public static func of(_ attachment: Attachment) -> String? {
        key(uid: attachment.uid, id: attachment.id, url: attachment.url)
    }

    /// The keys of the attachments in an `attachments` JSON array as the archive stores it, in order, each
    /// once; attachments that name no file have none.
    public static func keys(ofAttachmentsJSON json: String) -> [String] {
        guard json != "[]", let items = try? JSONValue(parsing: Array(json.utf8)).arrayValue else { return [] }
        var keys: [String] = []
        for item in items {
            // The three fields ``of(_:)`` reads, as `Attachment(json:)` reads them (leniently, `null` as absent),
            // without building the attachment: an export meets every message's attachments twice.
            guard case .object(let fields) = item,
                let key = key(
                    uid: fields["uid"]?.lenientString, id: fields["id"]?.lenientString,
                    url: fields["url"]?.lenientString),
                !keys.contains(key)
            else { continue }
            keys.append(key)
        }
        return keys
    }

    private static func key(uid: String?, id: String?, url: String?) -> String? {
        if let uid, !uid.isEmpty { return "uid:" + uid }
        if let id, !id.isEmpty { return "id:" + id }
        if let url, !url.isEmpty { return "url:" + url }
        return nil
    }
}
