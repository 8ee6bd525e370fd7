import ArchiveStore
import Foundation
import Hummingbird
import QuickBlox

extension ArchiveService {
    private struct LoginView {
        var next: String
        var name: String
        var failed: Bool
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
            guard !name.isEmpty, name.count <= 64, TokenCheck(token: token).accepts(form["token"] ?? "") else {
                try await Task.sleep(for: .milliseconds(300))  // slows guessing; tokens are long anyway
                let view = LoginView(next: next, name: String(name.prefix(64)), failed: true)
                return service.pages.page(
                    "login", title: "Log in", view: view, section: "/login", status: .unauthorized)
            }
            let session = await service.sessions.open(name: name, now: Archive.now())
            var response = Response.redirect(to: next, type: .found)
            response.setCookie(
                Cookie(
                    name: AuthMiddleware.cookieName, value: session, maxAge: service.configuration.sessionLifetime,
                    path: "/", httpOnly: true, sameSite: .strict))
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
                    name: AuthMiddleware.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict)
            )
            return response
        }
    }

    /// A local path to return to after login; anything else (another site, `//host`) becomes `/search`.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\") else { return "/search" }
        return next
    }
}
