import Archive
import Foundation
import Hummingbird
import QueryLanguage
import QuickBlox
import Search

extension ArchiveService {
    private struct TranscriptView {
        var id: String
        var title: String
        var type: String
        var occupants: String
        var total: Int
        var dialogDeleted: String?
        var dialogHidden: String?
        var from: Int
        var to: Int
        var messages: [MessageView]
        var highlight: String?
        var previous: String?
        var next: String?
    }

    /// `/dialogs/{id}`: a page of the conversation, centred on `around=MESSAGE_ID` (a search hit),
    /// with the hit marked and the words of `q` highlighted.
    func transcriptPage(_ request: Request, context: ServiceContext, id: String) async throws -> Response {
        let page = try await transcriptPage(dialogID: id, request: request)
        try await audit.record(
            "view", by: context, via: "web",
            ["dialog": .string(id), "offset": .int(page.offset), "around": page.around.map(JSONValue.string) ?? .null])
        let q = try RequestParameters(request).string("q")
        let highlighter = q.flatMap { try? parse($0).query }.map(Highlighter.init(query:))
        let base = "/dialogs/" + URLText.encode(id) + "?" + (q.map { "q=" + URLText.encode($0) + "&" } ?? "")
        let dialog = page.dialog
        let files = try await fileRecords(page.messages.map(\.message.attachmentsJSON))
        let people = try await hiderNames(page.messages)
        let view = TranscriptView(
            id: dialog.id, title: dialog.title, type: Self.typeName(dialog.type),
            occupants: dialog.occupants.map(\.label).joined(separator: ", "), total: dialog.messages,
            dialogDeleted: dialog.deletedAt.map { "deleted for everyone (found " + DisplayTime.format($0) + ")" },
            dialogHidden: dialog.hiddenFor.isEmpty
                ? nil
                : "removed from the list of "
                    + dialog.hiddenFor.map { user in
                        dialog.occupants.first { $0.id == user.user }?.label ?? "user \(user.user)"
                    }.joined(separator: ", ") + "; others still have it",
            from: page.messages.isEmpty ? 0 : page.offset + 1, to: page.offset + page.messages.count,
            messages: page.messages.map {
                MessageView(
                    $0, highlighter: highlighter, target: $0.message.id == page.around, files: files, people: people)
            },
            highlight: q.map { QueryError.visible(String($0.prefix(200))) },
            previous: page.offset > 0 ? base + "offset=\(max(0, page.offset - page.limit))" : nil,
            next: page.offset + page.messages.count < dialog.messages
                ? base + "offset=\(page.offset + page.limit)" : nil)
        return pages.page(
            "transcript", title: dialog.title, view: view, section: "/dialogs", actor: context.actor)
    }

    private struct HistoryView {
        struct Version {
            var label: String
            var when: String
            var segments: [TextSegment]
            var attachments: [MessageView.AttachmentView]
            var hasAttachments: Bool
        }
        var message: MessageView
        var versions: [Version]
        var edited: Bool
    }

    /// `/messages/{id}`: one message with every earlier version the archive kept.
    func messagePage(context: ServiceContext, id: String) async throws -> Response {
        guard let hit = try await archive.messageHit(id: id) else {
            throw ServiceError.notFound("no archived message has id \(id)")
        }
        let revisions = try await archive.messageHistory(id: id)?.revisions ?? []
        try await audit.record("view", by: context, via: "web", ["message": .string(id)])
        let files = try await fileRecords([hit.message.attachmentsJSON] + revisions.map(\.attachmentsJSON))
        let message = MessageView(
            hit, highlighter: nil, target: true, files: files, people: try await hiderNames([hit]))
        let versions = revisions.sorted { $0.revision > $1.revision }.map { revision in
            let attachments = MessageView.attachments(revision.attachmentsJSON, files: files)
            return HistoryView.Version(
                label: "version \(revision.revision)",
                when: "seen " + DisplayTime.format(revision.observedAt) + ", replaced by "
                    + DisplayTime.format(revision.supersededAt),
                segments: TextSegment.segments(revision.text ?? "", highlighter: nil),
                attachments: attachments, hasAttachments: !attachments.isEmpty)
        }
        let view = HistoryView(message: message, versions: versions, edited: !versions.isEmpty)
        return pages.page("message", title: "Message \(id)", view: view, section: "/dialogs", actor: context.actor)
    }
}
