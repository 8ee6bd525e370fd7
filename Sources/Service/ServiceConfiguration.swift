import Foundation
import HTTPTypes
import Hummingbird

/// What `qbarchive serve` needs: the archive, where to listen, who may use it, where exports go.
public struct ServiceConfiguration: Sendable {
    /// The archive to serve (read-only connections; the audit trail is its only write).
    public var archivePath: String
    /// A read replica of ``archivePath`` (`--read-url`, a PostgreSQL hot standby): searches, pages, stats,
    /// metrics and exports read from it, the audit trail is still written to ``archivePath``. `nil`: every
    /// read goes to ``archivePath``. It must hold the same archive (the same identity), or the service
    /// refuses to start.
    public var readLocation: String?
    /// The address to bind. Loopback unless a ``token`` protects the service.
    public var host: String
    /// The port; 0 picks a free one (tests).
    public var port: Int
    /// The shared secret API clients send as `Authorization: Bearer …` and people type into the
    /// login form. `nil` serves without authentication, which only loopback allows.
    public var token: String?
    /// Where `POST /api/exports` writes bundles, created when missing.
    public var exportsDirectory: String
    /// Where the saved moderation queries (`NAME.qbq`) are.
    public var queriesDirectory: String
    /// A private key to sign export manifests with (`qbarchive keygen`).
    public var signingKeyPath: String?
    /// The qbarchive version, recorded in export manifests and shown in the page footer.
    public var toolVersion: String
    /// How long a login session lasts, in seconds.
    public var sessionLifetime: Int
    /// Host names (the `Host` header, without the port) accepted besides loopback names when the service
    /// has no token: a reverse proxy's public name. Without a token, any other `Host` is refused, which
    /// defeats DNS rebinding (a web page whose name resolves to 127.0.0.1 reading the archive).
    public var allowedHosts: [String] = []
    /// The service runs behind a reverse proxy that terminates TLS: `X-Forwarded-For` names the client in the
    /// audit log and the session cookie is `Secure` (unless the proxy says `X-Forwarded-Proto: http`).
    public var trustProxy = false
    /// What one request, and all of them together, may cost.
    public var limits = ServiceLimits()

    public init(
        archivePath: String, host: String = "127.0.0.1", port: Int = 8080, token: String? = nil,
        exportsDirectory: String = "exports", queriesDirectory: String = "queries", signingKeyPath: String? = nil,
        toolVersion: String = "0.0.0", sessionLifetime: Int = 12 * 3600
    ) {
        self.archivePath = archivePath
        self.host = host
        self.port = port
        self.token = token
        self.exportsDirectory = exportsDirectory
        self.queriesDirectory = queriesDirectory
        self.signingKeyPath = signingKeyPath
        self.toolVersion = toolVersion
        self.sessionLifetime = sessionLifetime
    }

    /// `location` as the service may show it: a URL's password (in its user part or a `password=` parameter)
    /// replaced by `***`. A file path is shown as it is.
    public static func shown(_ location: String) -> String {
        guard let schemeEnd = location.range(of: "://") else { return location }
        var text = location
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
        if let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
            let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
        {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        guard let question = text.firstIndex(of: "?") else { return text }
        let parameters = text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .map { parameter in
                parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
            }
        return text[...question] + parameters.joined(separator: "&")
    }

    /// Whether ``host`` names this machine only (`127.0.0.0/8`, `::1`, `localhost`).
    public var bindsLoopback: Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || Self.isLoopbackIPv4(host)
    }

    /// Whether a request's `Host` header may reach an unauthenticated service: a loopback name or
    /// address (any port), or one of ``allowedHosts``.
    public func acceptsHost(_ header: String?) -> Bool {
        guard let header, !header.isEmpty else { return false }
        var name = header.lowercased()
        if name.hasPrefix("[") {
            name = String(name.dropFirst().prefix { $0 != "]" })
        } else if let colon = name.lastIndex(of: ":") {
            name = String(name[..<colon])
        }
        return name == "localhost" || name == "::1" || Self.isLoopbackIPv4(name)
            || allowedHosts.contains { $0.lowercased() == name }
    }

    /// `127.x.y.z` as a literal address (not a name such as `127.0.0.1.example.com`).
    static func isLoopbackIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }

    /// Whether `request` reached the service over TLS, as far as the service can know: behind
    /// ``trustProxy``, unless the proxy says `X-Forwarded-Proto: http`. The session cookie is `Secure` then.
    public func isSecure(_ request: Request) -> Bool {
        guard trustProxy else { return false }
        let proto = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.split(separator: ",").first
        return proto.map { $0.trimmingCharacters(in: .whitespaces).lowercased() != "http" } ?? true
    }

    /// The client's address: the connection's peer, or behind ``trustProxy`` the last address the proxy
    /// appended to `X-Forwarded-For`.
    public func clientAddress(_ request: Request, peer: String?) -> String? {
        guard trustProxy, let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty,
            last.count <= 64
        else { return peer }
        return last
    }

    /// The shortest token accepted: a guessable token on a network is worse than none on loopback.
    public static let minimumTokenLength = 16

    /// Refuses settings that would expose the archive: another address without a token, a short token.
    public func validate() throws(ServiceSetupError) {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        try limits.validate()
        if let token {
            guard token.count >= Self.minimumTokenLength else { throw .tokenTooShort(length: token.count) }
        } else if !bindsLoopback {
            throw .tokenRequired(host: host)
        }
    }
}
