import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuickBlox

extension ContentRoutes {
    /// `GET /_storage/{uid}?expires=T&signature=S`: the file, streamed in 64 KiB chunks.
    ///
    /// Stands in for S3, so its refusals are S3's XML errors: 403 `SignatureDoesNotMatch` for a
    /// missing or forged signature, 403 `AccessDenied` "Request has expired" past the expiry,
    /// 404 `NoSuchKey` for an unknown uid. `Range: bytes=N-`, `bytes=N-M` and `bytes=-N` answer
    /// 206 with `Content-Range`; a range past the end 416; several ranges get the whole file.
    func registerStorage(on group: RouterGroup<EmulatorContext>) {
        group.get("\(StorageSigner.pathPrefix){uid}") { request, context -> Response in
            let uid = QueryString.decode(try context.parameters.require("uid"))
            let query = request.uri.queryParameters
            if let refusal = signer.refusal(
                uid: uid, expires: query["expires"].map(String.init), signature: query["signature"].map(String.init),
                now: EmulatorRoutes.now)
            {
                await statistics.refusedOne()
                return refusal == .expired
                    ? Self.storageError(.forbidden, code: "AccessDenied", message: "Request has expired", key: uid)
                    : Self.storageError(
                        .forbidden, code: "SignatureDoesNotMatch",
                        message: "The request signature we calculated does not match the signature you provided.",
                        key: uid)
            }
            guard let blob = await store.blob(uid: uid) else {
                return Self.storageError(
                    .notFound, code: "NoSuchKey", message: "The specified key does not exist.", key: uid)
            }
            let content = BlobContent(
                seed: routes.configuration.seed, uid: blob.uid, size: blob.size ?? 0, contentType: blob.contentType)
            var headers = HTTPFields()
            headers[.contentType] = blob.contentType ?? "application/octet-stream"
            headers[.acceptRanges] = "bytes"
            headers[.eTag] = "\"\(blob.uid)\""
            var range = 0..<content.size
            var status = HTTPResponse.Status.ok
            switch Self.byteRange(request.headers[.range], size: content.size) {
            case .whole: break
            case .part(let part):
                range = part
                status = .partialContent
                headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(content.size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(content.size)"
                return Self.storageError(
                    .rangeNotSatisfiable, code: "InvalidRange", message: "The requested range is not satisfiable",
                    key: uid, headers: headers)
            }
            await statistics.started()
            let statistics = statistics
            let served = range
            return Response(
                status: status, headers: headers,
                body: ResponseBody(contentLength: served.count) { writer in
                    var offset = served.lowerBound
                    while offset < served.upperBound {
                        let count = min(BlobContent.chunkSize, served.upperBound - offset)
                        var buffer = ByteBufferAllocator().buffer(capacity: count)
                        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
                            content.fill(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<count]), at: offset)
                            return count
                        }
                        try await writer.write(buffer)
                        await statistics.wrote(count)
                        offset += count
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// What a `Range` header asks of a file of `size` bytes.
    enum ByteRange: Equatable {
        case whole
        case part(Range<Int>)
        case unsatisfiable
    }

    /// Parses `bytes=N-`, `bytes=N-M` and `bytes=-N`; anything else (several ranges, other
    /// units, nonsense) is ignored and the whole file served, as RFC 9110 allows.
    static func byteRange(_ header: String?, size: Int) -> ByteRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = Int(parts[0])
        let last = Int(parts[1])
        switch (parts[0].isEmpty, parts[1].isEmpty) {
        case (true, false):
            guard let suffix = last, suffix >= 0 else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - suffix)..<size)
        case (false, _):
            guard let start = first, start >= 0 else { return .whole }
            if let last, last < start { return .whole }
            guard start < size else { return .unsatisfiable }
            let end = last.map { min(size, $0 + 1) } ?? size
            return .part(start..<end)
        default:
            return .whole
        }
    }

    /// An S3-style XML error.
    static func storageError(
        _ status: HTTPResponse.Status, code: String, message: String, key: String, headers: HTTPFields = [:]
    ) -> Response {
        let escapedKey = key.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(code)</Code><Message>\(message)</Message><Key>\(escapedKey)</Key></Error>
            """
        var fields = headers
        fields[.contentType] = "application/xml"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
