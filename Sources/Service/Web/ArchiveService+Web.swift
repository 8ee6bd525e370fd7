import Archive
import Foundation
import Hummingbird
import Logging
import NIOCore
import QueryLanguage
import QuickBlox
import Search

extension ArchiveService {
    /// The moderator UI: search, dialogs, transcripts, message history, dashboard, stylesheet.
    func registerWeb(on router: Router<ServiceContext>) {
        let service = self
        router.get("/") { _, _ in Response.redirect(to: "/search") }
        router.get("/static/app.css") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(bytes: PageRenderer.stylesheet)))
        }
        router.get("/search") { request, context -> Response in
            await service.html(context) { try await service.searchPage(request, context: context) }
        }
        router.get("/dialogs") { request, context -> Response in
            await service.html(context) { try await service.dialogsPage(request, context: context) }
        }
        router.get("/dialogs/:id") { request, context -> Response in
            await service.html(context) {
                try await service.transcriptPage(request, context: context, id: try context.parameters.require("id"))
            }
        }
        router.get("/messages/:id") { request, context -> Response in
            await service.html(context) {
                try await service.messagePage(context: context, id: try context.parameters.require("id"))
            }
        }
        router.get("/dashboard") { request, context -> Response in
            await service.html(context) { try await service.dashboardPage(request, context: context) }
        }
    }

    /// Runs a page handler, showing failures as an error page rather than JSON.
    func html(_ context: ServiceContext, _ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as ServiceError {
            return pages.error(error, actor: context.actor)
        } catch let error as ArchiveError where ServiceError.timedOut(error) != nil {
            return pages.error(ServiceError.timedOut(error)!, actor: context.actor)
        } catch {
            context.logger.error("page failed: \(String(describing: type(of: error)))")
            return pages.error(
                ServiceError(.internalServerError, code: "internal", message: "the page could not be built"),
                actor: context.actor)
        }
    }

    private func searchPage(_ request: Request, context: ServiceContext) async throws -> Response {
        let parameters = try RequestParameters(request)
        let text = parameters.string("q") ?? ""
        // What the page shows of a query: at most a little past the length cap (a longer one is refused).
        let shown = text.utf8.count > QueryParser.maximumLength ? String(text.prefix(QueryParser.maximumLength)) : text
        let sortText = parameters.string("sort") ?? SearchOptions.Sort.newest.rawValue
        // As the API: a sort the page does not know is refused, not answered in another order.
        guard let sort = SearchOptions.Sort(rawValue: sortText) else {
            throw ServiceError.badRequest("sort must be -date, date or rank (got \(sortText))")
        }
        let offset = try parameters.int("offset", default: 0, in: 0...10_000_000)
        let pageSize = 50
        var view = SearchPageView(
            q: QueryError.visible(shown),
            sorts: [("-date", "newest first"), ("date", "oldest first"), ("rank", "best match")].map {
                SearchPageView.Option(value: $0.0, label: $0.1, selected: $0.0 == sort.rawValue)
            },
            examples: SearchPageView.exampleQueries.map {
                SearchPageView.Example(query: $0.0, meaning: $0.1, href: SearchPageView.href(query: $0.0))
            },
            saved: [])
        do {
            view.saved = try savedQueries().map {
                SearchPageView.Saved(
                    name: $0.name, title: $0.title ?? $0.name, purpose: $0.purpose,
                    href: SearchPageView.href(query: "@" + $0.name))
            }
        } catch {
            // The search still works; the list says why it is missing rather than claiming there is none.
            view.savedProblem = error.message
        }
        view.savedNone = view.saved.isEmpty && view.savedProblem == nil
        view.helpOpen = text.isEmpty
        var status = HTTPResponse.Status.ok
        if !text.allSatisfy(\.isWhitespace) {
            do {
                let (query, source) = try parse(text)
                let options = SearchOptions(limit: pageSize, offset: offset, sort: sort)
                let page = try await answering(source) {
                    try await archive.searchPage(query, options: options, zone: QueryDate.utc)
                }
                let (hits, total, summary) = (page.hits, page.total, page.summary)
                try await audit.record("search", by: context, via: "web", ["q": .string(text), "results": .int(total)])
                let highlighter = Highlighter(query: query)
                let people = try await hiderNames(hits)
                // A page past the last one says so, and leads back to the last page: "no message matches" is
                // only ever said when none does.
                let pastTheLast = hits.isEmpty && total > 0
                let lastPage = total == 0 ? 0 : (total - 1) / pageSize * pageSize
                view.results = SearchPageView.Results(
                    count: total, understoodAs: summary,
                    shown: pastTheLast
                        ? "showing none of \(NumberText.grouped(total)) matching "
                            + (total == 1 ? "message" : "messages") + ": this page starts after the last one"
                        : SearchRunner.shownLine(shown: hits.count, total: total, offset: offset)
                            .replacingOccurrences(of: " — --limit, --offset or --all for more", with: ""),
                    from: hits.isEmpty ? 0 : offset + 1, to: offset + hits.count,
                    hits: hits.map {
                        MessageView($0, highlighter: highlighter, snippetWidth: 160, query: text, people: people)
                    },
                    empty: total == 0,
                    previous: offset > 0
                        ? SearchPageView.href(
                            query: text, offset: pastTheLast ? lastPage : max(0, offset - pageSize), sort: sort.rawValue
                        )
                        : nil,
                    next: offset + hits.count < total
                        ? SearchPageView.href(query: text, offset: offset + pageSize, sort: sort.rawValue) : nil)
            } catch let error as ServiceError {
                guard let failure = error.queryFailure else { throw error }
                status = .badRequest
                view.failure = SearchPageView.failure(failure.error, query: failure.query)
            }
        }
        let title = text.isEmpty ? "Search" : "\(QueryError.visible(String(shown.prefix(80)))) — search"
        return pages.page("search", title: title, view: view, section: "/search", actor: context.actor, status: status)
    }

    private struct DialogsView {
        struct Row {
            var title: String
            var type: String
            var messages: Int
            var last: String
            var deleted: Bool
            var href: String
        }
        var rows: [Row]
        var total: Int
        var previous: String?
        var next: String?
    }

    private func dialogsPage(_ request: Request, context: ServiceContext) async throws -> Response {
        let parameters = try RequestParameters(request)
        let offset = try parameters.int("offset", default: 0, in: 0...10_000_000)
        let pageSize = 100
        let dialogs = try await archive.dialogSummaries(limit: pageSize, offset: offset)
        let total = try await archive.dialogCount()
        let view = DialogsView(
            rows: dialogs.map {
                DialogsView.Row(
                    title: $0.title, type: Self.typeName($0.type), messages: $0.messages,
                    last: $0.lastMessageAt.map(DisplayTime.format) ?? "—", deleted: $0.deletedAt != nil,
                    href: "/dialogs/" + URLText.encode($0.id))
            }, total: total,
            previous: offset > 0 ? "/dialogs?offset=\(max(0, offset - pageSize))" : nil,
            next: offset + dialogs.count < total ? "/dialogs?offset=\(offset + pageSize)" : nil)
        return pages.page("dialogs", title: "Dialogs", view: view, section: "/dialogs", actor: context.actor)
    }

    static func typeName(_ type: Int) -> String {
        switch type {
        case 1: "public"
        case 2: "group"
        case 3: "private"
        default: "type \(type)"
        }
    }
}
