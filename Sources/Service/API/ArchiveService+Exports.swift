import ArchiveStore
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
            return try await service.makeExport(body: Array(buffer: body), context: context)
        }
        router.get("/api/exports") { _, _ -> Response in
            JSONResponse.make(["exports": .array(try service.exportFiles().map(\.json))])
        }
        router.get("/api/exports/:name") { _, context -> Response in
            let name = try context.parameters.require("name")
            guard ExportFileName.isValid(name),
                let handle = FileHandle(forReadingAtPath: service.exportPath(name))
            else { throw ServiceError.notFound("no export named \(name)") }
            try await service.audit.record("download", by: context, via: "api", ["export": .string(name)])
            var headers = HTTPFields()
            headers[.contentType] = name.hasSuffix(".json") ? "application/json" : "application/octet-stream"
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
            return FileResponse.make(handle, headers: headers)
        }
    }

    func exportPath(_ name: String) -> String {
        URL(fileURLWithPath: configuration.exportsDirectory).appendingPathComponent(name).path
    }

    /// Runs a bundle export of the selection in a JSON body and returns its verified manifest.
    private func makeExport(body: [UInt8], context: ServiceContext) async throws -> Response {
        let request = try ExportRequest(body: body)
        let now = Archive.now()
        let selection: ExportSelection
        do {
            selection = try ExportSelection(
                whereText: try request.whereText.map { try parse($0).text }, dialogID: request.dialog,
                since: request.since, until: request.until, now: now)
        } catch let error as QueryError {
            throw ServiceError.invalidQuery(error, query: request.whereText ?? "")
        } catch let error as ExportError {
            throw ServiceError.badRequest(error.localizedDescription)
        }
        let job = ExportJob(
            format: .bundle, selection: selection, container: request.container, createdAt: now,
            sign: configuration.signingKeyPath, version: configuration.toolVersion)
        try FileManager.default.createDirectory(
            atPath: configuration.exportsDirectory, withIntermediateDirectories: true)
        let name = ExportFileName.make(at: now, container: request.container)
        let path = exportPath(name)
        let archive = archive
        let result = try await answering(request.whereText ?? "") {
            try await OwnThread.run { try job.run(archive: archive, path: path) }
        }
        let report = try await OwnThread.run { try BundleVerifier().verify(path: path) }
        var detail: [String: JSONValue] = [
            "export": .string(name), "sha256": .string(result.sha256), "messages": .int(result.messages),
            "bytes": .int(result.bytes), "where": request.whereText.map(JSONValue.string) ?? .null,
            "dialog": request.dialog.map(JSONValue.string) ?? .null,
        ]
        detail["since"] = request.since.map(JSONValue.string) ?? .null
        detail["until"] = request.until.map(JSONValue.string) ?? .null
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
        return names.filter { ExportFileName.isValid($0) && ExportFileName.isBundle($0) }.compactMap { name in
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
