import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One log line per request at `info` (`serve --verbose`): method, path, status, milliseconds.
///
/// Written here rather than Hummingbird's `LogRequestsMiddleware`, which logs the whole URI: a search's query
/// string holds what a moderator searched for (names, phrases from messages), which the audit log records
/// under its own controls and a service log, copied to journald and beyond, should not. The path is enough to
/// follow a request; its query string is left out.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServiceContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status.code, since: start)
            return response
        } catch let error as any HTTPResponseError {
            log(request, context, status: error.status.code, since: start)
            throw error
        } catch {
            log(request, context, status: 500, since: start)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "\(request.method.rawValue) \(request.uri.path) \(status) \(String(format: "%.1f", milliseconds)) ms")
    }
}
