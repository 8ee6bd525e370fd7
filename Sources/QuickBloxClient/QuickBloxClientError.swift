import Foundation
import QuickBlox

/// Why a QuickBlox request failed, in words a user can act on. Never carries a secret.
public enum QuickBloxClientError: Error, LocalizedError, Sendable {
    /// The credentials were refused: a wrong auth key or secret, login, password or API key, or a
    /// clock too far off. Retrying cannot help.
    case authenticationFailed(endpoint: String, reason: String)
    /// The server answered an error that retrying cannot fix (404, 403, 422, ...).
    case http(endpoint: String, status: Int, body: QuickBloxErrorBody?)
    /// Every attempt failed with a retryable problem; `last` describes the final one.
    case retriesExhausted(endpoint: String, attempts: Int, last: String)
    /// The answer was not the JSON expected.
    case invalidResponse(endpoint: String, reason: String)
    /// The request was cancelled (for instance by SIGINT).
    case cancelled(endpoint: String)

    public var errorDescription: String? {
        switch self {
        case .authenticationFailed(let endpoint, let reason):
            "authentication failed (\(endpoint)): QuickBlox said \"\(reason)\" — check the application id, auth key, "
                + "auth secret, login and password (or API key), and that this machine's clock is right"
        case .http(let endpoint, let status, let body):
            "\(endpoint) answered HTTP \(status)" + (body.map { ": \($0.summary)" } ?? "")
        case .retriesExhausted(let endpoint, let attempts, let last):
            "\(endpoint) failed \(attempts) times; last: \(last)"
        case .invalidResponse(let endpoint, let reason):
            "\(endpoint) answered something that is not QuickBlox's JSON: \(reason)"
        case .cancelled(let endpoint):
            "\(endpoint) was cancelled"
        }
    }

    /// The HTTP status, when the server answered one.
    public var status: Int? {
        if case .http(_, let status, _) = self { return status }
        return nil
    }
}
