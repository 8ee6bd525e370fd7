import Archive
import HTTPTypes
import Hummingbird

/// Runs each request that reads the archive in a turn of the ``WorkLimiter``: searches, stats, transcripts,
/// dialogs, messages, the dashboard and metrics.
///
/// Health, the stylesheet, login, stored files and export downloads do not wait: they read nothing costly
/// (health has its own connection, downloads stream files), so `/healthz` answers however busy the archive
/// is. `POST /api/exports` has its own gate (one export at a time).
struct WorkLimitMiddleware: RouterMiddleware {
    typealias Context = ServiceContext
    let limiter: WorkLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard Self.readsArchive(request.uri.path) else { return try await next(request, context) }
        guard await limiter.acquire() else {
            throw ServiceError(
                .tooManyRequests, code: "busy",
                message: "the service is answering as many queries as it can; retry in a moment",
                headers: [.retryAfter: "1"])
        }
        do {
            let response = try await next(request, context)
            await limiter.release()
            return response
        } catch {
            await limiter.release()
            if let archiveError = error as? ArchiveError, let timeout = ServiceError.timedOut(archiveError) {
                throw timeout
            }
            throw error
        }
    }

    static func readsArchive(_ path: String) -> Bool {
        !(path == "/healthz" || path.hasPrefix("/static/") || path == "/login" || path == "/logout"
            || path.hasPrefix("/files/") || path.hasPrefix("/api/exports"))
    }
}
