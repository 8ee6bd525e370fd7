import Archive
import Export
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QueryLanguage
import QuickBlox

extension ArchiveService {
    /// `POST /api/exports` (make a bundle), `GET /api/exports` (list), `GET /api/exports/{name}` (download).
    func registerExports(on router: Router<ServiceContext>) {
        let service = self
        router.post("/api/exports") { request, context -> Response in
            // A JSON body only: a page on another site can post a form or text/plain to a loopback
            // service without asking, but not application/json (that needs a CORS preflight, never granted).
            guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
                throw ServiceError(
                    .unsupportedMediaType, code: "unsupported_media_type",
                    message: "send the export request as Content-Type: application/json")
            }
            let body = try await request.body.collect(upTo: context.maxUploadSize)
            guard await service.exportGate.enter() else {
                throw ServiceError(
                    .conflict, code: "export_running",
                    message: "another export is running; the service makes one at a time — retry when it is done",
                    headers: [.retryAfter: "10"])
            }
            do {
                let response = try await service.makeExport(body: Array(buffer: body), context: context)
                await service.exportGate.leave()
                return response
            } catch {
                await service.exportGate.leave()
                throw error
            }
        }
        router.delete("/api/exports/:name") { _, context -> Response in
            let name = try context.parameters.require("name")
            guard ExportFileName.isValid(name), ExportFileName.isBundle(name),
                ExportFileName.isRegularFile(service.exportPath(name))
            else { throw ServiceError.notFound("no export named \(name)") }
            try await service.audit.record("export_delete", by: context, via: "api", ["export": .string(name)])
            guard unlink(service.exportPath(name)) == 0 || errno == ENOENT else {
                throw ServiceError(
                    .internalServerError, code: "cannot_delete", message: "the export \(name) could not be deleted")
            }
            unlink(service.exportPath(name + ".sha256"))
            return Response(status: .noContent)
        }
        router.get("/api/exports") { _, _ -> Response in
            JSONResponse.make(["exports": .array(try service.exportFiles().map(\.json))])
        }
        router.get("/api/exports/:name") { _, context -> Response in
            let name = try context.parameters.require("name")
            // Bundles and their checksum files only: the folder may hold other files (even the archive).
            guard ExportFileName.isDownloadable(name),
                let (handle, size) = FileResponse.openRegular(
                    service.exportPath(name), under: service.exportsRoot)
            else { throw ServiceError.notFound("no export named \(name)") }
            try await service.audit.record("download", by: context, via: "api", ["export": .string(name)])
            var headers = HTTPFields()
            headers[.contentType] = name.hasSuffix(".sha256") ? "text/plain; charset=utf-8" : "application/octet-stream"
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
            headers[.contentLength] = String(size)
            return FileResponse.make(handle, headers: headers)
        }
    }

    func exportPath(_ name: String) -> String {
        exportsRoot + "/" + name
    }

    /// The exports folder as an absolute path.
    var exportsRoot: String {
        URL(fileURLWithPath: configuration.exportsDirectory).standardizedFileURL.path
    }

    /// Runs a bundle export of the selection in a JSON body and returns its verified manifest.
    private func makeExport(body: [UInt8], context: ServiceContext) async throws -> Response {
        let request = try ExportRequest(body: body)
        let now = ArchiveTime.now()
        // A saved query's own text: errors are positioned in it, as /api/search positions them.
        let whereText = try request.whereText.map { try parse($0).text }
        let selection: ExportSelection
        do {
            selection = try ExportSelection(
                whereText: whereText, dialogID: request.dialog, since: request.since, until: request.until, now: now,
                names: ("the since field", "the until field"))
        } catch let error as QueryError {
            throw ServiceError.invalidQuery(error, query: whereText ?? "")
        } catch let error as ExportError {
            throw ServiceError.badRequest(error.localizedDescription)
        }
        // An unknown `dialog` is that field's error (404), not the query's.
        if let dialog = request.dialog, try await archive.dialogSummary(id: dialog) == nil {
            throw ServiceError.notFound("no archived dialog has the id \(dialog) (the dialog field)")
        }
        try PrivateFiles.createDirectory(atPath: configuration.exportsDirectory)
        let folder = ExportsFolder(path: configuration.exportsDirectory, limits: configuration.limits)
        let removed = folder.expire(now: now)
        if !removed.isEmpty {
            try await audit.record(
                "export_expire", by: context, via: "api", ["exports": .array(removed.map(JSONValue.string))])
        }
        let usage = folder.usage()
        guard usage.bundles < configuration.limits.exportsMaxCount, usage.bytes < configuration.limits.exportsMaxBytes
        else {
            throw ServiceError(
                .init(code: 507, reasonPhrase: "Insufficient Storage"), code: "export_quota",
                message: "the exports folder holds \(usage.bundles) bundles and \(usage.bytes) bytes, its quota is "
                    + "\(configuration.limits.exportsMaxCount) bundles and \(configuration.limits.exportsMaxBytes) bytes; "
                    + "delete exports you have downloaded (DELETE /api/exports/NAME)")
        }
        var exportJob = ExportJob(
            format: .bundle, selection: selection, container: request.container, createdAt: now,
            sign: configuration.signingKeyPath, version: configuration.toolVersion)
        exportJob.maxBytes = configuration.limits.exportsMaxBytes - usage.bytes
        exportJob.requestedBy = [
            "by": .string(context.actor), "from": context.remoteAddress.map(JSONValue.string) ?? .null,
            "via": .string("api"),
        ]
        let auditing = audit.archive
        let job = exportJob
        let name = ExportFileName.make(at: now, container: request.container)
        let path = exportPath(name)
        let archive = archive
        let result: ExportJob.Result
        do {
            result = try await answering(whereText ?? "") {
                try await OwnThread.run {
                    try await job.run(archive: archive, path: path, auditing: auditing, at: now)
                }
            }
        } catch ExportError.quotaExceeded(let limit) {
            throw ServiceError(
                .init(code: 507, reasonPhrase: "Insufficient Storage"), code: "export_quota",
                message: "the export would pass the exports folder's quota (\(limit) bytes were left), so it was "
                    + "stopped and its files removed; narrow the selection or delete old exports")
        }
        let report = try await OwnThread.run { try BundleVerifier().verify(path: path) }
        var detail: [String: JSONValue] = [
            "export": .string(name), "sha256": .string(result.sha256), "messages": .int(result.messages),
            "bytes": .int(result.bytes), "where": request.whereText.map(JSONValue.string) ?? .null,
            "dialog": request.dialog.map(JSONValue.string) ?? .null,
        ]
        detail["since"] = request.since.map(JSONValue.string) ?? .null
        detail["until"] = request.until.map(JSONValue.string) ?? .null
        if let begun = result.begun {
            detail["begun"] = .object(["entry": .int(Int(begun.id)), "hash": .string(begun.hashHex)])
        }
        try await audit.record("export", by: context, via: "api", detail)
        var out: [UInt8] = []
        var object = JSONObjectWriter(into: &out)
        object.int("bytes", result.bytes, into: &out)
        object.string("download", "/api/exports/\(name)", into: &out)
        object.json("manifest", String(decoding: report.manifest.serialized(), as: UTF8.self), into: &out)
        object.int("messages", result.messages, into: &out)
        object.string("name", name, into: &out)
        object.string("sha256", result.sha256, into: &out)
        object.finish(into: &out)
        return JSONResponse.make(out, status: .created)
    }

    /// The bundles under the exports directory, newest first.
    func exportFiles() throws -> [ExportFile] {
        let directory = configuration.exportsDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter {
            ExportFileName.isValid($0) && ExportFileName.isBundle($0) && ExportFileName.isRegularFile(exportPath($0))
        }.compactMap { name in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: exportPath(name)),
                let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
            else { return nil }
            return ExportFile(name: name, bytes: size, modified: Int(modified.timeIntervalSince1970))
        }.sorted { ($0.modified, $0.name) > ($1.modified, $1.name) }
    }
}

/// A bundle on disk that the service offers for download.
struct ExportFile: Sendable, Hashable {
    var name: String
    var bytes: Int
    var modified: Int

    var json: JSONValue {
        [
            "name": .string(name), "bytes": .int(bytes), "modified": .string(ISO8601.format(modified)),
            "download": .string("/api/exports/\(name)"),
        ]
    }
}
