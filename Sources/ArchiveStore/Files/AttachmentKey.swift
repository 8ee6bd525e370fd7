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
}
