import Foundation
import HTTPTypes
import Hummingbird

/// Lets a request through when it carries the token (`Authorization: Bearer`) or a login session
/// cookie; without a configured token (loopback only) everyone is `local`.
///
/// Refused API calls get 401 with `WWW-Authenticate: Bearer`; refused pages redirect to the login form.
/// `/healthz`, the login form and the stylesheet are public: a load balancer probes health without a
/// secret, and the login page needs its style. Without a token, a request whose `Host` is not a loopback
/// name (or an `--allowed-host`) is refused: a page on another site whose name resolves to 127.0.0.1 (DNS
/// rebinding) could otherwise read the archive through the visitor's browser.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ServiceContext
    static let cookieName = "qbarchive_session"
    static let userHeader = HTTPField.Name("X-QBArchive-User")!

    let check: TokenCheck?
    let sessions: SessionStore
    let configuration: ServiceConfiguration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.remoteAddress = configuration.clientAddress(request, peer: context.remoteAddress)
        let path = request.uri.path
        if check == nil, !configuration.acceptsHost(request.head.authority) {
            throw ServiceError(
                .forbidden, code: "host_not_allowed",
                message: "this service answers only to loopback names; behind a proxy, pass --allowed-host NAME "
                    + "or give the service a --token")
        }
        if Self.isPublic(path) { return try await next(request, context) }
        guard let check else {
            context.actor = "local"
            return try await next(request, context)
        }
        if let presented = Self.bearerToken(request.headers[.authorization]), check.accepts(presented) {
            context.actor = request.headers[Self.userHeader].map { "api:" + String($0.prefix(64)) } ?? "api"
            return try await next(request, context)
        }
        if let cookie = request.cookies[Self.cookieName],
            let name = await sessions.name(of: cookie.value, now: Int(Date().timeIntervalSince1970))
        {
            context.actor = name
            return try await next(request, context)
        }
        if path.hasPrefix("/api/") || path == "/metrics" {
            throw ServiceError.unauthorized
        }
        let target = request.uri.description
        return Response.redirect(to: "/login?next=" + URLText.encode(target))
    }

    /// The credentials of an `Authorization: Bearer TOKEN` header; the scheme is case-insensitive
    /// (RFC 9110 §11.1) and may be followed by several spaces.
    static func bearerToken(_ header: String?) -> Substring? {
        guard let header, header.count > 7, header.prefix(6).lowercased() == "bearer", header.dropFirst(6).first == " "
        else { return nil }
        let token = header.dropFirst(6).drop { $0 == " " }
        return token.isEmpty ? nil : token
    }

    static func isPublic(_ path: String) -> Bool {
        path == "/healthz" || path == "/login" || path.hasPrefix("/static/")
    }
}
