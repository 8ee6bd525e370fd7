import Foundation
import HTTPTypes
import Hummingbird

/// Refuses requests another site makes through a visitor's browser.
///
/// Browsers say where a request comes from: `Sec-Fetch-Site` (`same-origin`, `same-site`, `cross-site`, or
/// `none` when a person typed the address) and, on most non-`GET` requests, `Origin`. A request marked
/// `cross-site` or `same-site` (another port of this machine is the same site), or whose `Origin` is not this
/// service's, is refused with 403 `cross_site_request` before it can search, export or write the audit log:
/// without a token, any page a moderator visits could otherwise make the service work and fill the log.
/// Clients that are not browsers send neither header and are not affected.
///
/// A link another site shows (a ticket linking `/dialogs/ID`) is a top-level navigation: it gets a page
/// that performs nothing and offers the same link, which, followed, is a same-origin request.
/// `/healthz` and the stylesheet stay open: they do no work and read nothing archived.
struct CrossSiteMiddleware: RouterMiddleware {
    typealias Context = ServiceContext
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let secFetchMode = HTTPField.Name("Sec-Fetch-Mode")!
    static let secFetchDest = HTTPField.Name("Sec-Fetch-Dest")!

    let configuration: ServiceConfiguration
    let pages: PageRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        guard path != "/healthz", !path.hasPrefix("/static/"), isCrossSite(request) else {
            return try await next(request, context)
        }
        if request.method == .get, request.headers[Self.secFetchMode] == "navigate",
            request.headers[Self.secFetchDest] == "document", !path.hasPrefix("/api/"), path != "/metrics"
        {
            return pages.error(
                ServiceError(
                    .forbidden, code: "cross_site_request",
                    message: "This address was opened from another site, so nothing was searched or shown. "
                        + "Follow the link below if you meant to open it."),
                actor: nil, link: ArchiveService.safeNext(request.uri.description))
        }
        throw ServiceError(
            .forbidden, code: "cross_site_request",
            message: "requests from other sites are refused (Sec-Fetch-Site or Origin names another site); "
                + "call the API from a client, or open the page in the service itself")
    }

    /// Whether the browser says another site (or another origin of this site) made the request.
    func isCrossSite(_ request: Request) -> Bool {
        if let site = request.headers[Self.secFetchSite]?.lowercased(), site != "same-origin", site != "none" {
            return true
        }
        guard let origin = request.headers[.origin] else { return false }
        return !isOwnOrigin(origin, request: request)
    }

    /// Whether `origin` (`scheme://host[:port]`) names this service: the request's own `Host`, a loopback
    /// name on the same port, or an `--allowed-host` (a reverse proxy's public name).
    func isOwnOrigin(_ origin: String, request: Request) -> Bool {
        let lowered = origin.lowercased()
        guard let schemeEnd = lowered.range(of: "://") else { return false }  // includes "null"
        let scheme = lowered[..<schemeEnd.lowerBound]
        guard scheme == "http" || scheme == "https" else { return false }
        let authority = String(lowered[schemeEnd.upperBound...])
        guard !authority.contains("/"), !authority.contains("@") else { return false }
        if let host = request.head.authority?.lowercased(), host == authority { return true }
        var name = authority
        if name.hasPrefix("[") {
            name = String(name.dropFirst().prefix { $0 != "]" })
        } else if let colon = name.lastIndex(of: ":") {
            name = String(name[..<colon])
        }
        return configuration.allowedHosts.contains { $0.lowercased() == name }
    }
}
