import Foundation

/// Where a file is downloaded from.
public enum FileLocation: Sendable, Hashable {
    /// A Content-module file by uid (or blob id): `GET /blobs/{uid}/download` with the session, which
    /// redirects to a short-lived storage URL.
    case blob(String)
    /// A URL; `authenticated` sends the session token with it (a URL on the QuickBlox API host only:
    /// the token never goes to another host).
    case url(String, authenticated: Bool)

    /// What the archive records as the file's source: the API path, or the URL without its query (which
    /// may hold a token).
    public var source: String {
        switch self {
        case .blob(let uid): "GET /blobs/\(uid)/download"
        case .url(let url, _): Self.withoutQuery(url)
        }
    }

    static func withoutQuery(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }

    /// The lower-cased host of `url`, or `nil` when it is not an absolute http(s) URL.
    public static func host(of url: String) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { return nil }
        return parsed.host?.lowercased()
    }
}

/// A downloaded file: what the server said of it and how many bytes went into the sink.
public struct DownloadedFile: Sendable, Hashable {
    public var bytes: Int
    public var contentType: String?
    /// Requests made for it, retries included.
    public var attempts: Int
    /// Bytes kept from earlier attempts when the last one asked for the rest (0: one whole answer).
    public var resumedFrom = 0
}

/// Why a file could not be downloaded. Never carries a token or a signed URL.
public enum DownloadError: Error, LocalizedError, Sendable, Hashable {
    /// 404 or 410: the server has no such file.
    case gone(String)
    /// More bytes than allowed (`size` when the server announced it).
    case tooLarge(size: Int?)
    /// An answer retrying cannot change (403, 400, ...).
    case refused(status: Int, detail: String)
    /// Every attempt failed with a problem worth retrying; `last` is the final one.
    case failed(attempts: Int, last: String)
    /// The file could not be written locally.
    case local(String)
    case cancelled

    public var errorDescription: String? {
        switch self {
        case .gone(let detail): "the server has no such file (\(detail))"
        case .tooLarge(let size): "too large" + (size.map { " (\($0) bytes)" } ?? "")
        case .refused(let status, let detail): "HTTP \(status): \(detail)"
        case .failed(let attempts, let last): "failed \(attempts) times; last: \(last)"
        case .local(let detail): detail
        case .cancelled: "cancelled"
        }
    }
}
