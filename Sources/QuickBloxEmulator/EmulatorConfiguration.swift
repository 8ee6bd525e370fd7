/// Everything `qbarchive emulator` can be told: the data it serves, its credentials, and the faults it injects.
public struct EmulatorConfiguration: Sendable {
    /// Address to bind; the emulator is a test bed, so loopback by default.
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one (printed on start).
    public var port = 0
    /// Seeds the data and every injected fault, so a run can be repeated exactly.
    public var seed: UInt64 = 42
    public var users = 50
    public var dialogs = 200
    /// Messages in all, spread over dialogs with a long tail.
    public var messages = 20_000
    /// A truth dump (JSON Lines, see ``TruthDump``) to serve instead of generated data.
    public var fixturePath: String?

    public var applicationID = 1
    public var authKey = "emulator-auth-key"
    public var authSecret = "emulator-auth-secret"
    /// Enables `Authorization: ApiKey KEY` when set.
    public var apiKey: String?
    /// `limit` is clamped to this and the clamped value echoed.
    public var maxLimit = 100
    /// Sliding session lifetime in seconds (QuickBlox: 2 hours after the last request).
    public var tokenTTL: Double = 7200
    /// Allowed clock skew for session timestamps (QuickBlox: within 60 minutes).
    public var timestampWindow = 3600

    /// Added latency per request, milliseconds.
    public var latencyMilliseconds = 0
    /// Up to this much more, uniformly, per request.
    public var jitterMilliseconds = 0
    /// Probability of answering 500, 502 or 503 instead.
    public var failRate = 0.0
    /// Requests per second before 429 (0: unlimited).
    public var rateLimit = 0
    /// Probability of dropping the connection without an answer.
    public var resetRate = 0.0
    /// Probability of cutting the body short mid-JSON.
    public var truncateRate = 0.0
    /// Probability that a response with a body declares a `Content-Length` larger than the body
    /// it sends in full (then the connection closes).
    public var badLengthRate = 0.0
    /// Probability of accepting a request and then staying silent for ``stallSeconds`` before answering, as an
    /// overloaded server or a stuck proxy does (the client should give up long before).
    public var stallRate = 0.0
    /// How long a stalled request stays silent.
    public var stallSeconds = 60.0
    /// Probability that a page of `GET /chat/Message` items is not what was asked for, as a faulty proxy or
    /// server sends it: reordered, padded with a repeat of its first item at its end, cut short, or one
    /// item over the limit (see ``PageFault``). The items themselves are real.
    public var pageFaultRate = 0.0
    /// The faults ``pageFaultRate`` draws from, each as likely (all of them by default).
    public var pageFaultKinds: [PageFault] = PageFault.allCases
    /// Changes per second made while serving: new, edited and deleted messages, occupant changes.
    public var liveRate = 0.0

    /// Fraction of seeded and live attachments whose file is 20 to 50 MB.
    public var largeFileRate = 0.005
    /// Fraction of seeded and live blobs that are public (downloadable without a token).
    public var publicBlobRate = 0.1
    /// Seconds a storage URL from a download redirect stays valid (fractions allowed).
    public var storageURLTTL: Double = 60

    /// Whether truth dumps give each blob's SHA-256, computed from its bytes as the dump is
    /// written (about a second per gigabyte of files); without, `sha256` is `null`.
    public var blobDigests = true

    /// Written on start, on SIGUSR1 and on exit.
    public var truthDumpPath: String?
    /// The instant seeded data ends (unix seconds); seeded history lies in the year before it.
    public var epoch = 1_767_225_600  // 2026-01-01T00:00:00Z

    public init() {}

    /// Password of seeded user `userN`: `passwordN`.
    public static func password(forLogin login: String) -> String {
        "password" + login.dropFirst("user".count)
    }
}
