import HTTPTypes
import Hummingbird
import Logging
import QuickBlox

/// Turns every error that is not already a QuickBlox-shaped one into a JSON error body, so no
/// response of the emulator is ever HTML or empty (the official JS SDK fails on those).
struct JSONErrorMiddleware: RouterMiddleware {
    typealias Context = EmulatorContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as EmulatorError {
            throw error
        } catch let error as InjectedFault {
            throw error
        } catch let error as any HTTPResponseError {
            if error.status == .notFound { throw EmulatorError.notFound }
            throw EmulatorError(status: error.status, body: QuickBloxErrorBody.list(error.status.reasonPhrase).json)
        } catch {
            context.logger.error("unexpected error: \(String(describing: type(of: error)))")
            throw EmulatorError(
                status: .internalServerError, body: QuickBloxErrorBody.list("Internal Server Error").json)
        }
    }
}
