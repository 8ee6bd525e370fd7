import Archive
import Export
import Foundation
import Hummingbird
import QueryLanguage
import QuickBlox
import Search
import Stats

extension ArchiveService {
    /// `/healthz` and `/metrics`.
    func registerOperations(on router: Router<ServiceContext>) {
        let archive = archive
        let health = health
        let limiter = limiter
        let metrics = metrics
        // Its own connection pools and no turn in the line: health is answered however busy the archive is. Each
        // probe is one cheap read bounded by `DatabaseProbe.timeout`; the archive and its replica are probed
        // at once. Never a location in the answer, so never a password.
        router.get("/healthz") { _, _ -> Response in
            let load = await limiter.load
            let queries: JSONValue = ["running": .int(load.running), "waiting": .int(load.waiting)]
            let reports = await withTaskGroup(of: (Int, DatabaseProbe.Report).self) { group in
                for (index, probe) in health.enumerated() { group.addTask { (index, await probe.check()) } }
                var reports: [(Int, DatabaseProbe.Report)] = []
                for await report in group { reports.append(report) }
                return reports.sorted { $0.0 < $1.0 }.map(\.1)
            }
            let reachable = reports.allSatisfy(\.reachable)
            var body: [String: JSONValue] = ["status": .string(reachable ? "ok" : "unavailable"), "queries": queries]
            body["database"] = reports.first?.json
            if reports.count > 1 { body["read_replica"] = reports[1].json }
            return JSONResponse.make(.object(body), status: reachable ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { _, _ -> Response in
            let bytes = await metrics.render(archive: archive, now: ArchiveTime.now())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: .init(bytes: bytes)))
        }
    }

    /// The JSON API over the archive: search, dialogs, transcripts, messages, saved queries.
    func registerAPI(on router: Router<ServiceContext>) {
        let service = self
        let api = router.group("api")
        api.get("search") { request, context -> Response in
            try await service.searchJSON(request, context: context)
        }
        api.get("dialogs") { request, context -> Response in
            let parameters = try RequestParameters(request)
            let limit = try parameters.int("limit", default: 100, in: 1...1000)
            let offset = try parameters.int("offset", default: 0, in: 0...10_000_000)
            let dialogs = try await service.archive.dialogSummaries(limit: limit, offset: offset)
            let total = try await service.archive.dialogCount()
            return JSONResponse.make([
                "dialogs": .array(dialogs.map(\.json)), "total": .int(total), "limit": .int(limit),
                "offset": .int(offset),
            ])
        }
        api.get("dialogs/:id/messages") { request, context -> Response in
            let id = try context.parameters.require("id")
            let page = try await service.transcriptPage(dialogID: id, request: request)
            try await service.audit.record(
                "view", by: context, via: "api", ["dialog": .string(id), "offset": .int(page.offset)])
            var out: [UInt8] = []
            var object = JSONObjectWriter(into: &out)
            object.value("dialog", page.dialog.json, into: &out)
            object.int("limit", page.limit, into: &out)
            let files = try await service.fileRecords(page.messages.map(\.message.attachmentsJSON))
            object.json("messages", JSONResponse.records(page.messages, files: files), into: &out)
            object.int("offset", page.offset, into: &out)
            object.int("total", page.dialog.messages, into: &out)
            object.finish(into: &out)
            return JSONResponse.make(out)
        }
        api.get("messages/:id") { request, context -> Response in
            let id = try context.parameters.require("id")
            guard let hit = try await service.archive.messageHit(id: id) else {
                throw ServiceError.notFound("no archived message has id \(id)")
            }
            let revisions = try await service.archive.messageHistory(id: id)?.revisions ?? []
            try await service.audit.record("view", by: context, via: "api", ["message": .string(id)])
            var out: [UInt8] = []
            var object = JSONObjectWriter(into: &out)
            let files = try await service.fileRecords(
                [hit.message.attachmentsJSON] + revisions.map(\.attachmentsJSON))
            object.json("message", JSONResponse.record(hit, files: files), into: &out)
            var list: [UInt8] = [UInt8(ascii: "[")]
            for (index, revision) in revisions.enumerated() {
                if index > 0 { list.append(UInt8(ascii: ",")) }
                BundleRecords.revision(
                    revision, files: JSONResponse.attachmentFiles(revision.attachmentsJSON, files), into: &list)
            }
            list.append(UInt8(ascii: "]"))
            object.json("revisions", String(decoding: list, as: UTF8.self), into: &out)
            object.finish(into: &out)
            return JSONResponse.make(out)
        }
        api.get("stats") { request, context -> Response in
            let parameters = try RequestParameters(request)
            let whereText = parameters.string("where")
            let periodText = parameters.string("by") ?? StatsPeriod.day.rawValue
            guard let period = StatsPeriod(rawValue: periodText) else {
                throw ServiceError.badRequest("by must be day, week or month (got \(periodText))")
            }
            let top = try parameters.int("top", default: 10, in: 1...100)
            let parsed = try whereText.map { try service.parse($0) }
            let options = StatsOptions(query: parsed?.query, period: period, top: top)
            let report = try await service.answering(parsed?.text ?? "") {
                try await service.stats.report(archive: service.archive, options: options)
            }
            try await service.audit.record(
                "stats", by: context, via: "api", ["where": whereText.map(JSONValue.string) ?? .null])
            return JSONResponse.make(Array(report.json().utf8))
        }
        api.get("queries") { _, _ -> Response in
            let saved = try service.savedQueries()
            return JSONResponse.make([
                "queries": .array(
                    saved.map { query in
                        [
                            "name": .string(query.name), "title": query.title.map(JSONValue.string) ?? .null,
                            "purpose": query.purpose.map(JSONValue.string) ?? .null,
                            "owner": query.owner.map(JSONValue.string) ?? .null, "query": .string(query.query),
                        ]
                    })
            ])
        }
    }

    private func searchJSON(_ request: Request, context: ServiceContext) async throws -> Response {
        let parameters = try RequestParameters(request)
        guard let text = parameters.string("q"), !text.allSatisfy(\.isWhitespace) else {
            throw ServiceError.badRequest("q is required: a query such as refund, from:alice or date in 2024-03")
        }
        let limit = try parameters.int("limit", default: 50, in: 1...500)
        let offset = try parameters.int("offset", default: 0, in: 0...10_000_000)
        let sortText = parameters.string("sort") ?? SearchOptions.Sort.newest.rawValue
        guard let sort = SearchOptions.Sort(rawValue: sortText) else {
            throw ServiceError.badRequest("sort must be -date, date or rank (got \(sortText))")
        }
        let zone = try Self.zone(parameters.string("tz"))
        let (query, source) = try parse(text, zone: zone)
        let options = SearchOptions(limit: limit, offset: offset, sort: sort)
        let page = try await answering(source) { try await archive.searchPage(query, options: options, zone: zone) }
        let (hits, total, summary) = (page.hits, page.total, page.summary)
        try await audit.record("search", by: context, via: "api", ["q": .string(text), "results": .int(total)])
        var out: [UInt8] = []
        var object = JSONObjectWriter(into: &out)
        object.int("count", total, into: &out)
        let files = try await fileRecords(hits.map(\.message.attachmentsJSON))
        object.json("hits", JSONResponse.records(hits, files: files), into: &out)
        object.int("limit", limit, into: &out)
        object.int("offset", offset, into: &out)
        object.string("query", text, into: &out)
        object.int("shown", hits.count, into: &out)
        object.string("sort", sort.rawValue, into: &out)
        object.int("total", total, into: &out)
        object.string("tz", QueryZone.name(zone), into: &out)
        object.string("understood_as", summary, into: &out)
        object.finish(into: &out)
        return JSONResponse.make(out)
    }

    /// The zone a `tz` parameter names (UTC without one); 400 when it names none.
    static func zone(_ text: String?) throws -> TimeZone {
        guard let text else { return QueryDate.utc }
        guard let zone = QueryZone.named(text) else {
            throw ServiceError.badRequest("tz \(text) is not a time zone: \(QueryZone.hint)")
        }
        return zone
    }

    /// A page of a dialog's transcript: `offset`/`limit`, or the page centred on `around=MESSAGE_ID`.
    struct TranscriptPage {
        var dialog: DialogSummary
        var messages: [SearchHit]
        var offset: Int
        var limit: Int
        var around: String?
    }

    func transcriptPage(dialogID: String, request: Request) async throws -> TranscriptPage {
        let parameters = try RequestParameters(request)
        guard let dialog = try await archive.dialogSummary(id: dialogID) else {
            throw ServiceError.notFound("no archived dialog has id \(dialogID)")
        }
        let limit = try parameters.int("limit", default: 50, in: 1...500)
        var offset = try parameters.int("offset", default: 0, in: 0...10_000_000)
        let around = parameters.string("around")
        if let around {
            guard let position = try await archive.transcriptPosition(of: around), position.dialogID == dialogID
            else { throw ServiceError.notFound("dialog \(dialogID) has no archived message \(around)") }
            offset = max(0, position.index - limit / 2)
        }
        let messages = try await archive.dialogMessages(dialogID: dialogID, limit: limit, offset: offset)
        return TranscriptPage(dialog: dialog, messages: messages, offset: offset, limit: limit, around: around)
    }
}
