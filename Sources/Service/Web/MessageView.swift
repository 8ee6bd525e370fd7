import ArchiveStore
import Foundation
import QuickBlox
import Search

/// A message as the web UI shows it: names, UTC time, highlighted text, attachments, edit and
/// deletion marks, and links to its transcript and history.
struct MessageView {
    struct AttachmentView {
        var type: String
        var name: String
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
    var target: Bool
    var transcriptHref: String
    var historyHref: String

    /// - Parameter query: the search that found the message, carried to its transcript to highlight there.
    init(
        _ hit: SearchHit, highlighter: Highlighter?, snippetWidth: Int? = nil, target: Bool = false,
        query: String? = nil
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
        attachments = Self.attachments(message.attachmentsJSON)
        hasAttachments = !attachments.isEmpty
        edited = message.edited
        isEdited = message.edited > 0
        deleted = message.deletedAt.map { "deleted on the server (found " + DisplayTime.format($0) + ")" }
        self.target = target
        let escapedID = URLText.encode(message.id)
        let escapedDialog = URLText.encode(message.dialogID)
        let highlight = query.map { "&q=" + URLText.encode($0) } ?? ""
        transcriptHref = "/dialogs/\(escapedDialog)?around=\(escapedID)\(highlight)#m-\(escapedID)"
        historyHref = "/messages/\(escapedID)"
    }

    /// The attachments of a JSON array as the UI lists them (type and file name).
    static func attachments(_ json: String) -> [AttachmentView] {
        guard let items = (try? JSONValue(parsing: json))?.arrayValue else { return [] }
        return items.map { item in
            let type = item["type"]?.stringValue ?? "file"
            let name = item["name"]?.stringValue ?? item["id"]?.stringValue ?? item["uid"]?.stringValue ?? ""
            return AttachmentView(type: type, name: name)
        }
    }
}

/// Times as moderators read them: `2024-03-01 10:15:42 UTC`.
enum DisplayTime {
    static func format(_ seconds: Int) -> String {
        ISO8601.format(seconds).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }
}
