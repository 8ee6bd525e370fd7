/// What `qbarchive serve` needs: the archive, where to listen, who may use it, where exports go.
public struct ServiceConfiguration: Sendable {
    /// The archive to serve (read-only connections; the audit trail is its only write).
    public var archivePath: String
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

    /// Whether ``host`` names this machine only (`127.0.0.0/8`, `::1`, `localhost`).
    public var bindsLoopback: Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The shortest token accepted: a guessable token on a network is worse than none on loopback.
    public static let minimumTokenLength = 16

    /// Refuses settings that would expose the archive: another address without a token, a short token.
    public func validate() throws(ServiceSetupError) {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        if let token {
            guard token.count >= Self.minimumTokenLength else { throw .tokenTooShort(length: token.count) }
        } else if !bindsLoopback {
            throw .tokenRequired(host: host)
        }
    }
}
