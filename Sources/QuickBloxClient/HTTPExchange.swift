/// One HTTP request as the transport sends it.
public struct HTTPRequestSpec: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response: status, headers (names lower-cased) and the whole body.
public struct HTTPResponseData: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    /// Body bytes received: `body.count`, or what a streamed download wrote to its sink.
    public var bodyBytes: Int
    /// For a download that asked for the rest of a file: the offset this body continues from (the
    /// sink kept that many bytes), or 0 when the body is the whole file.
    public var continuedFrom = 0

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyBytes = body.count
    }
}

/// How the transport connects.
public struct TransportConfiguration: Sendable {
    /// Time allowed to connect (TCP and TLS).
    public var connectTimeout: Duration = .seconds(10)
    /// Time allowed for a whole request, body included (file downloads have none: see ``idleTimeout``).
    public var totalTimeout: Duration = .seconds(60)
    /// How long a connection may stay silent — accepted, or mid-answer, with not a byte arriving — before the
    /// request is abandoned (libcurl error 28, which is retried). A stalled server then costs this, not the
    /// whole ``totalTimeout``. Whole seconds; at least 1.
    public var idleTimeout: Duration = .seconds(15)
    /// Skip TLS verification: only for self-signed test servers (`--insecure`).
    public var insecure = false
    public var userAgent = "qbarchive"
    /// Responses larger than this are refused, so a broken server cannot exhaust memory.
    public var maxBodyBytes = 64 * 1024 * 1024

    public init() {}
}

/// A request that did not produce an HTTP response: libcurl's error code and message.
public struct TransportError: Error, Sendable, Hashable {
    /// libcurl's `CURLcode`, or -1 for errors of the transport itself.
    public var code: Int
    public var message: String
    /// For a streamed download: the answer's head and what its sink held when the transfer failed.
    public var partial: PartialResponse?

    public init(code: Int, message: String, partial: PartialResponse? = nil) {
        self.code = code
        self.message = message
        self.partial = partial
    }

    /// ``code`` of a body over the limit (the transfer was aborted).
    public static let tooLargeCode = -2
    /// ``code`` of a download whose sink refused bytes (a full disk).
    public static let sinkCode = -3
    /// ``code`` of an answer to a range request that does not continue the bytes held (another offset,
    /// a changed `ETag`); trying again from the start may succeed.
    public static let rangeCode = -4

    /// Whether trying again may succeed: refused or dropped connections, timeouts, bodies cut short.
    /// DNS, TLS-certificate and malformed-URL errors are not retried: they need the user.
    public var isRetryable: Bool {
        // 7 couldn't connect, 16 HTTP/2, 18 partial file, 28 timeout, 52 empty reply, 55 send, 56 receive,
        // 92 HTTP/2 stream
        [7, 16, 18, 28, 52, 55, 56, 92, Self.rangeCode].contains(code)
    }
}

/// What had arrived of a streamed download's answer when its transfer failed.
public struct PartialResponse: Sendable, Hashable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    /// Bytes the sink holds: a continued prefix and what this answer's body added.
    public var sinkBytes: Int
    /// Whether the body continued the prefix (a 206 that fit) rather than replacing it.
    public var continued: Bool
}
