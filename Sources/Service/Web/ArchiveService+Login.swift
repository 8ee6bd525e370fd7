import Archive
import Foundation
import Hummingbird
import QuickBlox

extension ArchiveService {
    private struct LoginView {
        var next: String
        var name: String
        var failed: Bool
        /// Seconds until this address may try again, when it failed too often.
        var wait: Int? = nil
    }

    /// The login form (when the service has a token): a name for the audit trail and the token, which
    /// opens a session cookie (`HttpOnly`, `SameSite=Strict`).
    func registerLogin(on router: Router<ServiceContext>) {
        let service = self
        router.get("/login") { request, context -> Response in
            guard service.configuration.token != nil else { return Response.redirect(to: "/search") }
            let view = LoginView(
                next: Self.safeNext(try RequestParameters(request).string("next")), name: "", failed: false)
            return service.pages.page("login", title: "Log in", view: view, section: "/login")
        }
        router.post("/login") { request, context -> Response in
            guard let token = service.configuration.token else { return Response.redirect(to: "/search") }
            let body = try await request.body.collect(upTo: context.maxUploadSize)
            let form = FormEncoding.fields(String(buffer: body)).fields
            let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let next = Self.safeNext(form["next"])
            let address = context.remoteAddress ?? "unknown"
            if let wait = await service.logins.wait(for: address, now: ArchiveTime.now()) {
                // The form again, saying how long to wait (a person submitted it: not the API's JSON error).
                let view = LoginView(next: next, name: String(name.prefix(64)), failed: false, wait: wait)
                var response = service.pages.page(
                    "login", title: "Log in", view: view, section: "/login", status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
                return response
            }
            guard !name.isEmpty, name.count <= 64, TokenCheck(token: token).accepts(form["token"] ?? "") else {
                await service.logins.fail(address, now: ArchiveTime.now())
                var trail = context
                trail.actor = "anonymous"
                try await service.audit.record(
                    "login_failed", by: trail, via: "web", ["name": .string(String(name.prefix(64)))])
                try await Task.sleep(for: .milliseconds(300))  // slows guessing; tokens are long anyway
                let view = LoginView(next: next, name: String(name.prefix(64)), failed: true)
                return service.pages.page(
                    "login", title: "Log in", view: view, section: "/login", status: .unauthorized)
            }
            let session = await service.sessions.open(name: name, now: ArchiveTime.now())
            var response = Response.redirect(to: next, type: .found)
            response.setCookie(
                Cookie(
                    name: AuthMiddleware.cookieName, value: session, maxAge: service.configuration.sessionLifetime,
                    path: "/", secure: service.configuration.isSecure(request), httpOnly: true, sameSite: .strict))
            var trail = context
            trail.actor = name
            try await service.audit.record("login", by: trail, via: "web", [:])
            return response
        }
        router.post("/logout") { request, _ -> Response in
            if let cookie = request.cookies[AuthMiddleware.cookieName] { await service.sessions.close(cookie.value) }
            var response = Response.redirect(to: "/login", type: .found)
            response.setCookie(
                Cookie(
                    name: AuthMiddleware.cookieName, value: "", maxAge: 0, path: "/",
                    secure: service.configuration.isSecure(request), httpOnly: true, sameSite: .strict))
            return response
        }
    }

    /// A local path to return to after login, or `/` for anything else.
    ///
    /// Only a single leading `/` followed by URL-safe printable ASCII (RFC 3986's unreserved and reserved
    /// characters and `%`) is kept, up to 2,048 bytes: browsers drop tabs and line breaks from a `Location`
    /// and read `\` as `/`, so `/<TAB>/evil.example`, `//evil.example` and `/\evil.example` would all leave
    /// the site.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.utf8.count <= 2048, next.utf8.first == UInt8(ascii: "/") else { return "/" }
        let bytes = Array(next.utf8)
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return "/" }
        return bytes.allSatisfy(isURLSafe) ? next : "/"
    }

    private static let urlSafePunctuation = Set("-._~:/?#[]@!$&'()*+,;=%".utf8)

    private static func isURLSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: urlSafePunctuation.contains(byte)
        }
    }
}
