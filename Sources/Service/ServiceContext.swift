import Hummingbird
import NIOCore

/// The request context: Hummingbird's storage plus who is asking, for the audit trail.
public struct ServiceContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who made the request: a login-form name, the `X-QBArchive-User` of a bearer-token client (else
    /// `api`), or `local` when the service runs without a token on loopback. Set by ``AuthMiddleware``.
    public var actor: String
    /// The peer's IP address (behind `--trust-proxy`, the client's), recorded beside ``actor``.
    public var remoteAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        actor = "anonymous"
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Request bodies are small JSON objects and login forms.
    public var maxUploadSize: Int { 64 * 1024 }
}
