import Foundation
import HTTPTypes
import Hummingbird
import QuickBlox

extension EmulatorRoutes {
    /// Ids in a path: `a,b,c`, raw or percent-encoded.
    static func ids(_ context: EmulatorContext) throws -> [String] {
        QueryString.decode(try parameter(context, "id")).split(separator: ",").map {
            String($0).trimmingCharacters(in: .whitespaces)
        }
    }

    /// `force=1` (or `true`), in the body or the query: delete for everyone.
    static func isForced(_ parameters: RequestParameters) -> Bool {
        ["1", "true"].contains(parameters.string("force")?.lowercased() ?? "")
    }

    // MARK: Dialogs

    func registerDialogs(on group: RouterGroup<EmulatorContext>) {
        for path in Self.paths("/chat/Dialog") {
            group.get(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: true)
                let query = try ListQuery(
                    parameters.queryPairs, maxLimit: configuration.maxLimit, kind: FieldKind.of(dialogField:))
                switch await store.listDialogs(for: principal.userID!, query: query) {
                case .count(let count):
                    return Self.json(CountResponse.json(count: count), principal)
                case .items(let dialogs, let total):
                    let page = Page(totalEntries: total, skip: query.skip, limit: query.limit, items: dialogs)
                    return Self.json(page.json, principal)
                }
            }
            group.post(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: true)
                let dialog = try await store.createDialog(parameters, by: principal.userID!, now: Int(Self.now))
                return Self.json(dialog.json, principal, status: .created)
            }
        }
        group.get("/chat/Dialog/{id}") { request, context -> Response in
            let parameters = try await RequestParameters.read(request)
            let principal = try await authenticate(request, parameters, requireUser: true)
            let dialog = try await store.dialog(id: try Self.parameter(context, "id"), for: principal.userID!)
            return Self.json(dialog.json, principal)
        }
        group.put("/chat/Dialog/{id}") { request, context -> Response in
            let parameters = try await RequestParameters.read(request)
            let principal = try await authenticate(request, parameters, requireUser: true)
            let dialog = try await store.updateDialog(
                id: try Self.parameter(context, "id"), parameters, by: principal.userID!, now: Int(Self.now))
            return Self.json(dialog.json, principal)
        }
        group.delete("/chat/Dialog/{id}") { request, context -> Response in
            let parameters = try await RequestParameters.read(request)
            let principal = try await authenticate(request, parameters, requireUser: true, apiKeyActsForApp: true)
            let ids = try Self.ids(context)
            let outcome = try await store.deleteDialogs(
                ids: ids, by: principal.userID, force: Self.isForced(parameters), now: Int(Self.now))
            // The reference's single-id example answers an empty body; several ids get the tally. An id the
            // user cannot see (or that does not exist) alone is a 404, as GET /chat/Dialog/{id} answers.
            guard ids.count > 1 else {
                guard outcome.notFound.isEmpty else { throw EmulatorError.notFound }
                return EmulatorResponse.empty(headers: Self.headers(for: principal))
            }
            return Self.json(outcome.json, principal)
        }
    }

    // MARK: Messages

    /// `{"items":[...],"limit":L,"skip":S}`, written directly: the hot path of every crawl.
    static func messagePage(_ messages: [Message], skip: Int, limit: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(messages.count * 400 + 40)
        out.append(contentsOf: #"{"items":["#.utf8)
        for (index, message) in messages.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            message.writeJSON(into: &out)
        }
        out.append(contentsOf: #"],"limit":\#(limit),"skip":\#(skip)}"#.utf8)
        return out
    }

    func registerMessages(on group: RouterGroup<EmulatorContext>) {
        for path in Self.paths("/chat/Message") {
            group.get(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: true)
                guard let dialogID = parameters.string("chat_dialog_id"), !dialogID.isEmpty else {
                    throw EmulatorError.notFound
                }
                let query = try ListQuery(
                    parameters.queryPairs, maxLimit: configuration.maxLimit, kind: FieldKind.of(messageField:))
                // QuickBlox marks what it returns as read unless told `mark_as_read=0`.
                let markAsRead = parameters.string("mark_as_read") != "0"
                let fault = query.count ? nil : await faults.pageFault()
                var asked = query
                if fault == .overlong { asked.limit += 1 }
                let result = try await store.listMessages(
                    dialogID: dialogID, for: principal.userID!, query: asked, markAsRead: markAsRead, now: Int(Self.now)
                )
                switch result {
                case .count(let count):
                    return Self.json(CountResponse.json(count: count), principal)
                case .items(var messages, _):
                    if let fault {
                        let next = messages.count > query.limit ? messages.removeLast() : nil
                        messages = fault.apply(to: messages, next: next)
                    }
                    return EmulatorResponse.bytes(
                        Self.messagePage(messages, skip: query.skip, limit: query.limit),
                        headers: Self.headers(for: principal))
                }
            }
            group.post(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: true)
                let message = try await store.createMessage(parameters, by: principal.userID!, now: Int(Self.now))
                return Self.json(message.json, principal, status: .created)
            }
        }
        for path in Self.paths("/chat/Message/unread") {
            group.get(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: true)
                let ids = (parameters.string("chat_dialog_ids") ?? "").split(separator: ",").map {
                    String($0).trimmingCharacters(in: .whitespaces)
                }
                let counts = await store.unreadCounts(dialogIDs: ids, for: principal.userID!)
                var json: [String: JSONValue] = ["total": .int(counts.values.reduce(0, +))]
                for (id, count) in counts { json[id] = .int(count) }
                return Self.json(.object(json), principal)
            }
        }
        group.put("/chat/Message/{id}") { request, context -> Response in
            let parameters = try await RequestParameters.read(request)
            let principal = try await authenticate(request, parameters, requireUser: true)
            try await store.updateMessage(
                id: try Self.parameter(context, "id"), parameters, by: principal.userID!, now: Int(Self.now))
            return EmulatorResponse.empty(headers: Self.headers(for: principal))
        }
        group.delete("/chat/Message/{id}") { request, context -> Response in
            let parameters = try await RequestParameters.read(request)
            let principal = try await authenticate(request, parameters, requireUser: true, apiKeyActsForApp: true)
            let outcome = try await store.deleteMessages(
                ids: try Self.ids(context), by: principal.userID, force: Self.isForced(parameters), now: Int(Self.now))
            return Self.json(outcome.json, principal)
        }
    }
}
