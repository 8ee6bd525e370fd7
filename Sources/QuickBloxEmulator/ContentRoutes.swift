import Foundation
import HTTPTypes
import Hummingbird
import QuickBlox

/// The Content API: blob info, and downloads that redirect to a short-lived storage URL on the
/// emulator itself (as QuickBlox redirects to a presigned S3 URL), which serves the bytes.
///
/// - `GET /blobs/{id}.json`: `{"blob":{...}}` (any session or API key; 404 for unknown ids).
/// - `GET /blobs/{id or uid}/download`: 302 to the storage URL. Without credentials only public
///   blobs redirect; a private one answers 401 as any endpoint without a session does.
/// - `GET /blobs/{uid}` (the SDKs' public and `?token=` private URL): 302 as above; without
///   credentials a private blob answers 403.
/// - `GET /_storage/{uid}?expires=T&signature=S`: the bytes (see `ContentRoutes+Storage.swift`).
struct ContentRoutes: Sendable {
    let routes: EmulatorRoutes
    let signer: StorageSigner
    let statistics: DownloadStatistics

    var store: EmulatorStore { routes.store }

    func register(on group: RouterGroup<EmulatorContext>) {
        group.get("/blobs/{id}") { request, context -> Response in
            let key = try EmulatorRoutes.parameter(context, "id")
            if let id = Int(key) { return try await info(id: id, request) }
            return try await redirect(key, request, privateAnswer: EmulatorError.forbidden)
        }
        group.get("/blobs/{id}/download") { request, context -> Response in
            try await redirect(
                try EmulatorRoutes.parameter(context, "id"), request, privateAnswer: EmulatorError.sessionDoesNotExist)
        }
        registerStorage(on: group)
    }

    /// `GET /blobs/{id}.json`.
    func info(id: Int, _ request: Request) async throws -> Response {
        let parameters = try await RequestParameters.read(request)
        let principal = try await routes.authenticate(request, parameters, requireUser: false)
        guard let blob = await store.blob(id: id) else { throw EmulatorError.notFound }
        return EmulatorRoutes.json(blob.wrapped, principal)
    }

    /// Whether the request carries any credentials (which must then be valid).
    static func hasCredentials(_ request: Request, _ parameters: RequestParameters) -> Bool {
        if let authorization = request.headers[.authorization], authorization.hasPrefix("ApiKey ") { return true }
        if let token = request.headers[EmulatorRoutes.tokenHeader], !token.isEmpty { return true }
        return !(parameters.string("token") ?? "").isEmpty
    }

    /// A download by id or uid: 302 to a storage URL valid for `--storage-url-ttl` seconds.
    ///
    /// - Parameter privateAnswer: the error for a private blob asked for without credentials.
    func redirect(_ key: String, _ request: Request, privateAnswer: EmulatorError) async throws -> Response {
        let parameters = try await RequestParameters.read(request)
        var principal: Principal?
        if Self.hasCredentials(request, parameters) {
            principal = try await routes.authenticate(request, parameters, requireUser: false)
        }
        let found = if let id = Int(key) { await store.blob(id: id) } else { await store.blob(uid: key) }
        guard let blob = found else { throw EmulatorError.notFound }
        guard principal != nil || blob.isPublic else { throw privateAnswer }
        var headers = principal.map(EmulatorRoutes.headers(for:)) ?? HTTPFields()
        let path = signer.path(uid: blob.uid, now: EmulatorRoutes.now)
        // Absolute, as the real service's redirect to S3 is, on whatever host the client used.
        headers[.location] = request.head.authority.map { "http://\($0)\(path)" } ?? path
        headers[.cacheControl] = "no-cache"
        await statistics.redirected()
        return Response(status: .found, headers: headers, body: .init())
    }
}
