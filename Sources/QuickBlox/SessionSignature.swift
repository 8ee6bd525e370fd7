import Crypto
import Foundation

/// The HMAC-SHA1 signature of `POST /session.json`.
///
/// The signed message is every parameter but `signature`, written `name=value` with nested names
/// flattened (`user[login]=amigo30`), sorted, and joined with `&`. Values are raw, not URL-encoded:
/// a server must decode the request before it verifies. The key is the application's auth secret.
public enum SessionSignature {
    /// The string that is signed.
    public static func message(for parameters: [(String, String)]) -> String {
        parameters
            .filter { $0.0 != "signature" }
            .map { "\($0.0)=\($0.1)" }
            .sorted()
            .joined(separator: "&")
    }

    /// Lower-case hex HMAC-SHA1 of ``message(for:)`` keyed with `secret`.
    public static func sign(_ parameters: [(String, String)], secret: String) -> String {
        let code = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(message(for: parameters).utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `parameters` carry a `signature` equal to ``sign(_:secret:)`` (compared in constant time).
    public static func verify(_ parameters: [(String, String)], secret: String) -> Bool {
        guard let given = parameters.first(where: { $0.0 == "signature" })?.1 else { return false }
        let expected = sign(parameters, secret: secret)
        let a = Array(given.lowercased().utf8)
        let b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The parameters of a `POST /session.json` request, signed.
public struct SessionRequest: Sendable {
    /// Who the session acts as.
    public enum Credentials: Sendable {
        /// An application session (read-only; no chat access).
        case application
        case login(String, password: String)
        case email(String, password: String)
    }

    public var applicationID: Int
    public var authKey: String
    public var credentials: Credentials
    public var timestamp: Int
    public var nonce: Int

    public init(applicationID: Int, authKey: String, credentials: Credentials, timestamp: Int, nonce: Int) {
        self.applicationID = applicationID
        self.authKey = authKey
        self.credentials = credentials
        self.timestamp = timestamp
        self.nonce = nonce
    }

    /// Every parameter, `signature` last, with raw (unencoded) values.
    public func parameters(signedWith secret: String) -> [(String, String)] {
        var parameters: [(String, String)] = [
            ("application_id", String(applicationID)),
            ("auth_key", authKey),
            ("nonce", String(nonce)),
            ("timestamp", String(timestamp)),
        ]
        switch credentials {
        case .application: break
        case .login(let login, let password):
            parameters += [("user[login]", login), ("user[password]", password)]
        case .email(let email, let password):
            parameters += [("user[email]", email), ("user[password]", password)]
        }
        parameters.append(("signature", SessionSignature.sign(parameters, secret: secret)))
        return parameters
    }

    /// The form body, percent-encoded.
    public func formBody(signedWith secret: String) -> String {
        QueryString.encode(parameters(signedWith: secret))
    }
}
