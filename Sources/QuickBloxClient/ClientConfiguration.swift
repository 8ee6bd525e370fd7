/// Where and how the client talks to QuickBlox.
public struct ClientConfiguration: Sendable {
    /// How the client authenticates.
    public enum Credentials: Sendable {
        /// A user session from `POST /session.json`, signed with the application's auth secret.
        case user(applicationID: Int, authKey: String, authSecret: String, login: String, password: String)
        /// `Authorization: ApiKey KEY`; requests act as a user with `On-Behalf-Of`.
        case apiKey(String)
    }

    /// The API's base URL, e.g. `https://api.quickblox.com` or an account's own API host.
    public var endpoint: String
    public var credentials: Credentials
    public var retry = RetryPolicy()
    /// Client-side pacing, safely under the lowest plan's limit of 80 requests per second.
    public var maxRequestsPerSecond: Double = 50
    public var transport = TransportConfiguration()

    public init(endpoint: String, credentials: Credentials) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.credentials = credentials
    }
}

/// How failed requests are retried: exponential backoff with jitter, `Retry-After` honoured.
public struct RetryPolicy: Sendable {
    /// Attempts per request, the first included.
    public var maxAttempts = 6
    public var baseDelay: Duration = .milliseconds(250)
    public var maxDelay: Duration = .seconds(20)

    public init(maxAttempts: Int = 6, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(20)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1), given a `Retry-After` in seconds.
    public func delay(afterAttempt attempt: Int, retryAfter: Double?, jitter: Double) -> Duration {
        if let retryAfter, retryAfter >= 0 {
            return min(.seconds(retryAfter) + baseDelay * jitter, maxDelay * 3)
        }
        let exponential = baseDelay * (1 << min(attempt - 1, 20))
        return min(exponential, maxDelay) * (0.5 + jitter / 2)
    }
}

/// Counters of one client's traffic.
public struct ClientStatistics: Sendable, Hashable {
    public var requests = 0
    public var retries = 0
    public var bytesReceived = 0
    public var sessionsCreated = 0

    public init() {}
}
