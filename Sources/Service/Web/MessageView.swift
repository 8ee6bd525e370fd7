import Archive
import Foundation
import QuickBlox
import Search

/// A message as the web UI shows it: names, UTC time, highlighted text, attachments, edit and
/// deletion marks, and links to its transcript and history.
struct MessageView {
    struct AttachmentView {
        var type: String
        var name: String
        /// `/files/{sha256}` when the archive stored the file.
        var href: String?
        /// Shown inline as a thumbnail (a stored raster image).
        var image: Bool
        /// Why there is no file: "not downloaded", "too large", ... (`nil` when stored).
        var note: String?
    }

    var id: String
    var time: String
    var timeISO: String
    var dialogID: String
    var dialogTitle: String
    var sender: String
    var segments: [TextSegment]
    var attachments: [AttachmentView]
    var hasAttachments: Bool
    var edited: Int
    var isEdited: Bool
    var deleted: String?
    /// "hidden for Alice Martin, user 9 (since …)": QuickBlox's "delete for me" — still there for the others.
    var hidden: String?
    var target: Bool
    var transcriptHref: String
    var historyHref: String

    /// - Parameters:
    ///   - query: the search that found the message, carried to its transcript to highlight there.
    ///   - people: display names by user id, for whom the message is hidden (`user N` for one not there).
    init(
        _ hit: SearchHit, highlighter: Highlighter?, snippetWidth: Int? = nil, target: Bool = false,
        query: String? = nil, files: [String: ArchivedFile] = [:], people: [Int: String] = [:]
    ) {
        let message = hit.message
        id = message.id
        time = DisplayTime.format(message.dateSent)
        timeISO = ISO8601.format(message.dateSent)
        dialogID = message.dialogID
        dialogTitle = hit.dialogName.flatMap { $0.isEmpty ? nil : $0 } ?? "private dialog"
        sender = hit.senderLabel
        let text = message.text ?? ""
        if let snippetWidth, let highlighter {
            segments = TextSegment.snippet(text, width: snippetWidth, highlighter: highlighter)
        } else if let snippetWidth {
            let flat = String(text.map { $0.isNewline ? " " : $0 })
            segments = [
                TextSegment(text: flat.count > snippetWidth ? flat.prefix(snippetWidth) + "…" : flat, hit: false)
            ]
        } else {
            segments = TextSegment.segments(text, highlighter: highlighter)
        }
        attachments = Self.attachments(message.attachmentsJSON, files: files)
        hasAttachments = !attachments.isEmpty
        edited = message.edited
        isEdited = message.edited > 0
        deleted = message.deletedAt.map { "deleted for everyone (found " + DisplayTime.format($0) + ")" }
        let hiders: [String] = message.hiddenFor.map { hide in
            guard let name = people[hide.user] else { return "user \(hide.user)" }
            return "\(name), user \(hide.user)"
        }
        let since = DisplayTime.format(message.hiddenFor.map(\.since).min() ?? 0)
        hidden =
            hiders.isEmpty
            ? nil : "hidden for " + hiders.joined(separator: "; ") + " (since " + since + "); others still see it"
        self.target = target
        let escapedID = URLText.encode(message.id)
        let escapedDialog = URLText.encode(message.dialogID)
        let highlight = query.map { "&q=" + URLText.encode($0) } ?? ""
        transcriptHref = "/dialogs/\(escapedDialog)?around=\(escapedID)\(highlight)#m-\(escapedID)"
        historyHref = "/messages/\(escapedID)"
    }

    /// The attachments of a JSON array as the UI lists them: type, file name, and the stored file (a
    /// link, and a thumbnail for images) or why there is none.
    static func attachments(_ json: String, files: [String: ArchivedFile] = [:]) -> [AttachmentView] {
        guard let items = (try? JSONValue(parsing: json))?.arrayValue else { return [] }
        return items.map { item in
            let type = item["type"]?.stringValue ?? "file"
            let name = item["name"]?.stringValue ?? item["id"]?.stringValue ?? item["uid"]?.stringValue ?? ""
            let key = (try? Attachment(json: item)).flatMap(AttachmentKey.of)
            guard let key else { return AttachmentView(type: type, name: name, href: nil, image: false, note: nil) }
            guard let file = files[key], file.status == .ok, let sha256 = file.sha256 else {
                return AttachmentView(
                    type: type, name: name, href: nil, image: false, note: files[key].map { note($0.status) })
            }
            let served = ArchiveService.servedType(file.contentType ?? file.declaredContentType)
            return AttachmentView(type: type, name: name, href: "/files/" + sha256, image: served.inline, note: nil)
        }
    }

    static func note(_ status: FileStatus) -> String {
        switch status {
        case .ok: ""
        case .listed: "file not downloaded"
        case .failed: "file download failed"
        case .tooLarge: "file too large to archive"
        case .external: "file on another host, not fetched"
        case .gone: "file gone from the server"
        }
    }
}

/// Times as moderators read them: `2024-03-01 10:15:42 UTC`.
enum DisplayTime {
    static func format(_ seconds: Int) -> String {
        ISO8601.format(seconds).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }
}
