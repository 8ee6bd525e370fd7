import Foundation
import Logging
import QuickBlox

/// A QuickBlox REST client for archiving: authenticates, paces, retries, and never changes the server.
///
/// An actor because the session token and the counters are shared by every concurrent request;
/// transfers themselves run outside the actor, so requests proceed in parallel.
public actor QuickBloxClient {
    public nonisolated let configuration: ClientConfiguration
    let transport: CurlTransport
    let logger: Logger
    private var token: String?
    /// The user the session belongs to, once a user session exists.
    private var sessionUser: Int?
    private var sessionTask: Task<String, any Error>?
    var statistics = ClientStatistics()
    private var nextSlot = ContinuousClock.now
    var random = SystemRandomNumberGenerator()

    public init(configuration: ClientConfiguration, logger: Logger = Logger(label: "qbarchive.client")) {
        self.configuration = configuration
        self.transport = CurlTransport(configuration: configuration.transport)
        self.logger = logger
    }

    /// Requests, retries, bytes and sessions so far.
    public func currentStatistics() -> ClientStatistics { statistics }

    // MARK: Requests

    /// A JSON request with retries; `authenticated` requests carry the token or API key.
    ///
    /// `form` is built again for every attempt: a signed session request needs a fresh nonce and
    /// timestamp each time (QuickBlox refuses a nonce it has seen with "Unexpected nonce").
    func send(
        _ method: String, _ path: String, query: [(String, String)] = [], form: (() -> [(String, String)])? = nil,
        onBehalfOf: Int? = nil, authenticated: Bool = true
    ) async throws(QuickBloxClientError) -> JSONValue {
        let endpoint = "\(method) \(path)"
        var url = configuration.endpoint + path
        if !query.isEmpty { url += "?" + QueryString.encode(query) }
        var attempt = 0
        var reauthenticated = false
        while true {
            attempt += 1
            if Task.isCancelled { throw .cancelled(endpoint: endpoint) }
            await pace()
            var headers: [(String, String)] = [("Accept", "application/json")]
            var usedToken: String?
            if authenticated {
                switch configuration.credentials {
                case .apiKey(let key):
                    headers.append(("Authorization", "ApiKey \(key)"))
                    if let onBehalfOf { headers.append(("On-Behalf-Of", String(onBehalfOf))) }
                case .user:
                    let current = try await currentToken()
                    usedToken = current
                    headers.append(("QB-Token", current))
                }
            }
            var body: [UInt8]?
            if let form {
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
                body = Array(QueryString.encode(form()).utf8)
            }
            statistics.requests += 1
            let problem: String
            var retryAfter: Double?
            do {
                let response = try await transport.perform(
                    HTTPRequestSpec(method: method, url: url, headers: headers, body: body))
                statistics.bytesReceived += response.body.count
                let json = response.body.isEmpty ? JSONValue.null : try? JSONValue(parsing: response.body)
                let errorBody = json.flatMap(QuickBloxErrorBody.init(json:))
                switch response.status {
                case 200..<300:
                    if let json { return json }
                    problem = "HTTP \(response.status) with a body that is not JSON (\(response.body.count) bytes)"
                case 401
                where authenticated && usedToken != nil && !reauthenticated
                    && (errorBody?.summary.contains("session does not exist") ?? false):
                    // The session expired: make a new one once, then try again at once.
                    logger.info("session expired; re-authenticating", metadata: ["endpoint": "\(endpoint)"])
                    invalidate(usedToken)
                    reauthenticated = true
                    attempt -= 1
                    continue
                case 401 where authenticated:
                    throw QuickBloxClientError.authenticationFailed(
                        endpoint: endpoint, reason: errorBody?.summary ?? "HTTP 401")
                case 429, 500, 502, 503, 504:
                    problem = "HTTP \(response.status)" + (errorBody.map { " \($0.summary)" } ?? "")
                    retryAfter = response.headers["retry-after"].flatMap { Double($0) }
                default:
                    throw QuickBloxClientError.http(endpoint: endpoint, status: response.status, body: errorBody)
                }
            } catch let error as QuickBloxClientError {
                throw error
            } catch let error as TransportError {
                if Task.isCancelled { throw .cancelled(endpoint: endpoint) }
                guard error.isRetryable else {
                    throw .retriesExhausted(endpoint: endpoint, attempts: attempt, last: error.message)
                }
                problem = "\(error.message) (libcurl \(error.code))"
            } catch {
                throw .invalidResponse(endpoint: endpoint, reason: "\(error)")
            }
            guard attempt < configuration.retry.maxAttempts else {
                throw .retriesExhausted(endpoint: endpoint, attempts: attempt, last: problem)
            }
            let delay = configuration.retry.delay(
                afterAttempt: attempt, retryAfter: retryAfter, jitter: Double.random(in: 0...1, using: &random))
            statistics.retries += 1
            logger.warning(
                "retrying after \(problem)",
                metadata: ["endpoint": "\(endpoint)", "attempt": "\(attempt)", "delay": "\(delay)"])
            do { try await Task.sleep(for: delay) } catch { throw .cancelled(endpoint: endpoint) }
        }
    }

    /// Waits for this request's slot under `maxRequestsPerSecond`.
    func pace() async {
        guard configuration.maxRequestsPerSecond > 0 else { return }
        let interval = Duration.seconds(1 / configuration.maxRequestsPerSecond)
        let now = ContinuousClock.now
        let slot = max(now, nextSlot)
        nextSlot = slot + interval
        if slot > now { try? await Task.sleep(until: slot, clock: .continuous) }
    }

    // MARK: Sessions

    /// The current session token, creating a session when there is none (once, however many ask).
    func currentToken() async throws(QuickBloxClientError) -> String {
        if let token { return token }
        let task: Task<String, any Error>
        if let sessionTask {
            task = sessionTask
        } else {
            task = Task {
                let session = try await self.createSession()
                await self.remember(user: session.userID)
                return session.token
            }
            sessionTask = task
        }
        do {
            let value = try await task.value
            token = value
            sessionTask = nil
            return value
        } catch let error as QuickBloxClientError {
            sessionTask = nil
            throw error
        } catch {
            sessionTask = nil
            throw .cancelled(endpoint: "POST /session.json")
        }
    }

    private func remember(user: Int?) { sessionUser = user }

    /// The user whose view this client reads: the `On-Behalf-Of` user for API-key credentials that name
    /// none, or the logged-in user (a session is created when there is none); `nil` for an API key alone.
    public func viewerID() async throws(QuickBloxClientError) -> Int? {
        guard case .user = configuration.credentials else { return nil }
        if sessionUser == nil { _ = try await currentToken() }
        return sessionUser
    }

    func invalidate(_ used: String?) {
        if token == used { token = nil }
    }

    /// `POST /session.json`, signed; refused credentials become ``QuickBloxClientError/authenticationFailed(endpoint:reason:)``.
    public func createSession() async throws(QuickBloxClientError) -> Session {
        guard
            case .user(let applicationID, let authKey, let authSecret, let login, let password) = configuration
                .credentials
        else {
            throw .authenticationFailed(endpoint: "POST /session.json", reason: "API-key credentials make no sessions")
        }
        let json: JSONValue
        do {
            // Signed anew for every attempt: a retried request with a used nonce would be refused.
            let signed = {
                SessionRequest(
                    applicationID: applicationID, authKey: authKey, credentials: .login(login, password: password),
                    timestamp: Int(Date().timeIntervalSince1970),
                    nonce: Int.random(in: 1...Int(Int32.max), using: &self.random)
                ).parameters(signedWith: authSecret)
            }
            json = try await send("POST", "/session.json", form: signed, authenticated: false)
        } catch .http(let endpoint, let status, let body) where [401, 403, 422].contains(status) {
            throw .authenticationFailed(endpoint: endpoint, reason: body?.summary ?? "HTTP \(status)")
        }
        do {
            let session = try Session(json: json)
            statistics.sessionsCreated += 1
            return session
        } catch {
            throw .invalidResponse(endpoint: "POST /session.json", reason: error.localizedDescription)
        }
    }
}
