import Hummingbird

/// Records every request in ``ServiceMetrics`` under its route pattern (`/api/dialogs/{id}/messages`),
/// never the concrete path, so ids do not explode the label set.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = ServiceContext
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await next(request, context)
            metrics.record(
                route: context.endpointPath ?? "unmatched", method: request.method.rawValue,
                status: response.status.code, duration: clock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.record(
                route: context.endpointPath ?? "unmatched", method: request.method.rawValue, status: status,
                duration: clock.now - start)
            throw error
        }
    }
}
