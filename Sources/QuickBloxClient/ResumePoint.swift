/// Where a download that failed part-way can go on from: the bytes its sink already holds, and the
/// `ETag` they came with.
///
/// A retried download asks for the rest (`Range: bytes=offset-`) instead of starting over, as `curl -C -`
/// and `wget -c` do, when the failed answer said the server serves byte ranges and its body was not
/// content-encoded. The rest is taken only if it is a 206 whose `Content-Range` starts at ``offset`` and
/// whose `ETag` is the same; a 200 (ranges ignored) replaces the sink's bytes; anything else starts over.
/// libcurl's own resume (`CURLOPT_RESUME_FROM_LARGE`) is not used: it would also apply to the API's
/// redirect and error answers, which this client handles itself.
public struct ResumePoint: Sendable, Hashable {
    /// Bytes already in the sink.
    public var offset: Int
    /// The `ETag` of the answer those bytes came from, if it had one.
    public var etag: String?

    public init(offset: Int, etag: String?) {
        self.offset = offset
        self.etag = etag
    }

    /// The point after a 2xx answer that stopped short, or `nil` when it cannot be continued: no range
    /// support announced, an encoded body (ranges would count encoded bytes), or nothing received.
    public static func after(status: Int, headers: [String: String], sinkBytes: Int) -> ResumePoint? {
        guard (200..<300).contains(status), sinkBytes > 0 else { return nil }
        let ranges = status == 206 || headers["accept-ranges"]?.lowercased() == "bytes"
        let encoding = headers["content-encoding"]?.lowercased()
        guard ranges, encoding == nil || encoding == "identity" else { return nil }
        return ResumePoint(offset: sinkBytes, etag: headers["etag"])
    }

    /// The request header that asks for the rest.
    var rangeHeader: (String, String) { ("Range", "bytes=\(offset)-") }

    /// Why a 206 answer is not the rest of these bytes, or `nil` when it is.
    func mismatch(headers: [String: String]) -> String? {
        guard let range = ContentRange(headers["content-range"]), range.start == offset else {
            return "the server answered a range from another offset"
        }
        if let etag, let now = headers["etag"], now != etag {
            return "the file changed on the server (ETag \(etag) became \(now))"
        }
        return nil
    }

    /// Whether a 416 answer says the sink already holds the whole file: `Content-Range: bytes */N` with
    /// N equal to ``offset`` and the same `ETag`. (A body whose `Content-Length` claimed more than it
    /// sent ends this way.)
    func isComplete(status: Int, headers: [String: String]) -> Bool {
        guard status == 416, let range = ContentRange(headers["content-range"]), range.start == nil,
            range.total == offset
        else { return false }
        if let etag, let now = headers["etag"], now != etag { return false }
        return true
    }
}

/// A parsed `Content-Range` header: `bytes START-END/TOTAL` or `bytes */TOTAL` (RFC 9110 §14.4).
struct ContentRange: Hashable {
    /// First byte sent; `nil` in the unsatisfied form `bytes */TOTAL`.
    var start: Int?
    var end: Int?
    /// The whole file's size; `nil` when the server wrote `*`.
    var total: Int?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count).split(separator: "/", maxSplits: 1)
        guard spec.count == 2 else { return nil }
        total = spec[1] == "*" ? nil : Int(spec[1])
        if spec[0] == "*" { return }
        let bounds = spec[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first <= last else {
            return nil
        }
        start = first
        end = last
    }
}
