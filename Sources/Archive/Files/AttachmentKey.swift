import QuickBlox

/// The identity of an attachment's file: its Content-module `uid`, else its blob `id`, else its `url`.
///
/// One key is one download, however many messages attach the file; a location or other attachment
/// without any of the three names no file and has no key.
public enum AttachmentKey {
    /// `uid:…`, `id:…` or `url:…`, or `nil` when the attachment names no file.
    public static func of(_ attachment: Attachment) -> String? {
        if let uid = attachment.uid, !uid.isEmpty { return "uid:" + uid }
        if let id = attachment.id, !id.isEmpty { return "id:" + id }
        if let url = attachment.url, !url.isEmpty { return "url:" + url }
        return nil
    }

    /// The keys of the attachments in an `attachments` JSON array as the archive stores it, in order, each
    /// once; attachments that name no file have none.
    public static func keys(ofAttachmentsJSON json: String) -> [String] {
        guard json != "[]", let items = try? JSONValue(parsing: Array(json.utf8)).arrayValue else { return [] }
        var keys: [String] = []
        for item in items {
            guard let attachment = try? Attachment(json: item), let key = of(attachment), !keys.contains(key) else {
                continue
            }
            keys.append(key)
        }
        return keys
    }
}
