import Archive
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuickBlox

extension ArchiveService {
    /// Content types shown inline (as `<img>` in transcripts and when opened): raster images only.
    /// SVG is left out: it is XML that can carry script.
    static let inlineTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// `GET /files/{sha256}`: a stored attachment file, streamed from the file store.
    ///
    /// Raster images are served inline with their stored type; everything else as a download
    /// (`Content-Disposition: attachment`) with its stored type, except types a browser would run or
    /// render as a page (HTML, XML, SVG, JavaScript), which go out as `application/octet-stream`. With
    /// `nosniff` and the service's `default-src 'none'` policy, nothing a sender uploaded can execute
    /// in the archive's origin. Every download is audited.
    func registerFiles(on router: Router<ServiceContext>) {
        let service = self
        router.get("/files/:sha256") { _, context -> Response in
            let digest = try context.parameters.require("sha256")
            let store = service.archive.fileStore
            guard FileStore.isDigest(digest), let file = try await service.archive.storedFile(sha256: digest),
                let (handle, size) = FileResponse.openRegular(store.path(for: digest), under: store.root)
            else { throw ServiceError.notFound("no stored file has SHA-256 \(digest)") }
            do {
                try await service.audit.record(
                    "download", by: context, via: "web",
                    ["file": .string(digest), "name": file.name.map(JSONValue.string) ?? .null])
            } catch {
                try? handle.close()
                throw error
            }
            var headers = HTTPFields()
            let (type, inline) = Self.servedType(file.contentType ?? file.declaredContentType)
            headers[.contentType] = type
            headers[.contentDisposition] = Self.contentDisposition(inline: inline, name: file.name ?? digest)
            headers[.contentLength] = String(size)
            headers[.cacheControl] = "private, max-age=31536000, immutable"
            return FileResponse.make(handle, headers: headers)
        }
    }

    /// The `Content-Type` to send for a stored type, and whether it may be shown inline.
    static func servedType(_ stored: String?) -> (type: String, inline: Bool) {
        let type =
            (stored ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            ?? ""
        if inlineTypes.contains(type) { return (type, true) }
        let active = ["html", "xml", "svg", "javascript", "ecmascript", "xhtml"]
        guard !type.isEmpty, type.contains("/"), !active.contains(where: type.contains),
            type.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else { return ("application/octet-stream", false) }
        return (type, false)
    }

    /// `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266), safe for any name.
    static func contentDisposition(inline: Bool, name: String) -> String {
        let ascii = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F
                    && !"\"\\;".unicodeScalars.contains(scalar)
                    ? Character(scalar) : "_"
            })
        return (inline ? "inline" : "attachment") + "; filename=\"\(ascii)\"; filename*=UTF-8''" + URLText.encode(name)
    }

    /// The display names (full name, else login) of the people the messages are hidden for, by id: one read of
    /// the users for a page.
    func hiderNames(_ hits: [SearchHit]) async throws -> [Int: String] {
        let ids = Array(Set(hits.flatMap { $0.message.hiddenFor.map(\.user) })).sorted()
        guard !ids.isEmpty else { return [:] }
        return try await archive.withSnapshot { snapshot in
            var names: [Int: String] = [:]
            for try await batch in snapshot.users(ids: ids) {
                for user in batch { names[user.id] = user.fullName ?? user.login }
            }
            return names.compactMapValues { $0 }
        }
    }

    /// The archive's records of the files these attachment arrays (JSON) name.
    func fileRecords(_ attachmentArrays: [String]) async throws -> [String: ArchivedFile] {
        var keys: Set<String> = []
        for json in attachmentArrays where json != "[]" {
            for item in (try? JSONValue(parsing: json))?.arrayValue ?? [] {
                if let attachment = try? Attachment(json: item), let key = AttachmentKey.of(attachment) {
                    keys.insert(key)
                }
            }
        }
        return try await archive.files(keys: Array(keys))
    }
}
