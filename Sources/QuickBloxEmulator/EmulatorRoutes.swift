import Foundation
import HTTPTypes
import Hummingbird
import QuickBlox

/// The QuickBlox REST endpoints the emulator serves, and how a request is authenticated.
struct EmulatorRoutes: Sendable {
    let store: EmulatorStore
    let configuration: EmulatorConfiguration
    let faults: FaultInjector

    static let tokenHeader = HTTPField.Name("QB-Token")!
    static let expirationHeader = HTTPField.Name("QB-Token-ExpirationDate")!
    static let onBehalfOfHeader = HTTPField.Name("On-Behalf-Of")!

    /// Registers every QuickBlox endpoint on `group`, each with and without the `.json` suffix.
    func register(on group: RouterGroup<EmulatorContext>) {
        registerSessions(on: group)
        registerUsers(on: group)
        registerDialogs(on: group)
        registerMessages(on: group)
    }

    /// `path` and `path.json`: QuickBlox accepts both.
    static func paths(_ path: String) -> [RouterPath] { [RouterPath(path), RouterPath(path + ".json")] }

    /// A path parameter without its optional `.json` suffix.
    static func parameter(_ context: EmulatorContext, _ name: String) throws -> String {
        let value = try context.parameters.require(name)
        return value.hasSuffix(".json") ? String(value.dropLast(5)) : value
    }

    static var now: Double { Date().timeIntervalSince1970 }

    /// Resolves `QB-Token` (header or `token` parameter) or `Authorization: ApiKey` (+ `On-Behalf-Of`).
    ///
    /// - Parameters:
    ///   - requireUser: chat endpoints refuse application sessions with 422 "Forbidden. Need user."
    ///   - apiKeyActsForApp: an API key without `On-Behalf-Of` is let through as the application itself
    ///     (the reference's "delete from all histories" recipe); an application session still is not.
    func authenticate(
        _ request: Request, _ parameters: RequestParameters, requireUser: Bool, apiKeyActsForApp: Bool = false
    ) async throws -> Principal {
        var principal: Principal
        if let authorization = request.headers[.authorization], authorization.hasPrefix("ApiKey ") {
            let key = authorization.dropFirst("ApiKey ".count).trimmingCharacters(in: .whitespaces)
            guard let apiKey = configuration.apiKey, key == apiKey else { throw EmulatorError.sessionDoesNotExist }
            principal = Principal(userID: nil)
            if let onBehalf = request.headers[Self.onBehalfOfHeader] {
                guard let userID = Int(onBehalf.trimmingCharacters(in: .whitespaces)), await store.userExists(userID)
                else {
                    throw EmulatorError.validation("On-Behalf-Of", "is not a user of this application")
                }
                principal.userID = userID
            }
        } else if let token = request.headers[Self.tokenHeader] ?? parameters.string("token"), !token.isEmpty {
            principal = try await store.principal(token: token, now: Self.now)
        } else {
            throw EmulatorError.sessionDoesNotExist
        }
        if requireUser, principal.userID == nil, !(apiKeyActsForApp && principal.token == nil) {
            throw EmulatorError.needUser
        }
        return principal
    }

    /// Headers every authenticated response carries: the session's new expiry.
    static func headers(for principal: Principal) -> HTTPFields {
        var fields = HTTPFields()
        if let expiresAt = principal.expiresAt {
            fields[expirationHeader] = ISO8601.formatHeader(Int(expiresAt))
        }
        return fields
    }

    static func json(_ value: JSONValue, _ principal: Principal, status: HTTPResponse.Status = .ok) -> Response {
        EmulatorResponse.json(value, status: status, headers: headers(for: principal))
    }

    // MARK: Session

    func registerSessions(on group: RouterGroup<EmulatorContext>) {
        for path in Self.paths("/session") {
            group.post(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let (session, expiresAt) = try await store.createSession(parameters, now: Self.now)
                return Self.json(
                    ["session": session.json], Principal(userID: session.userID, expiresAt: expiresAt), status: .created
                )
            }
            group.get(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: false)
                guard let token = principal.token, let session = await store.session(token: token) else {
                    throw EmulatorError.sessionDoesNotExist
                }
                // GET /session.json writes dates with an offset (`+00:00`), unlike every other endpoint.
                var json = session.json.objectValue ?? [:]
                for key in ["created_at", "updated_at"] {
                    if let text = json[key]?.stringValue, text.hasSuffix("Z") {
                        json[key] = .string(text.dropLast() + "+00:00")
                    }
                }
                return Self.json(["session": .object(json)], principal)
            }
            group.delete(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: false)
                if let token = principal.token { await store.deleteSession(token: token) }
                return EmulatorResponse.empty()
            }
        }
        for path in Self.paths("/login") {
            group.post(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: false)
                guard let token = principal.token else { throw EmulatorError.sessionDoesNotExist }
                guard let login = parameters.string("login") ?? parameters.string("email"),
                    let password = parameters.string("password")
                else { throw EmulatorError.validation("login", "and password are required") }
                let user = try await store.login(token: token, login: login, password: password)
                return Self.json(user.wrapped, principal, status: .accepted)
            }
        }
    }

    // MARK: Users

    func registerUsers(on group: RouterGroup<EmulatorContext>) {
        for path in Self.paths("/users") {
            group.get(path) { request, _ -> Response in
                let parameters = try await RequestParameters.read(request)
                let principal = try await authenticate(request, parameters, requireUser: false)
                let page = Int(parameters.string("page") ?? "1") ?? 1
                let perPage = Int(parameters.string("per_page") ?? "10") ?? 10
                guard page >= 1, perPage >= 1 else {
                    throw EmulatorError.badRequest("page and per_page must be positive")
                }
                let users = await store.users(page: page, perPage: min(perPage, 100))
                return Self.json(users.json, principal)
            }
        }
        group.get("/users/{id}") { request, context -> Response in
            let parameters = try await RequestParameters.read(request)
            let principal = try await authenticate(request, parameters, requireUser: false)
            guard let id = Int(try Self.parameter(context, "id")), let user = await store.user(id: id) else {
                throw EmulatorError.notFound
            }
            return Self.json(user.wrapped, principal)
        }
    }
}
