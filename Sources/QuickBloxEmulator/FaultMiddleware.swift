import HTTPTypes
import Hummingbird
import NIOCore
import QuickBlox

/// Injects the configured faults into QuickBlox endpoints: latency, 429, 5xx, dropped connections
/// and bodies cut short mid-JSON.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = EmulatorContext
    let faults: FaultInjector

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let endpoint = "\(request.method) \(context.endpointPath ?? request.uri.path)"
        let decision = await faults.decide(endpoint: endpoint)
        if decision.rateLimited {
            throw EmulatorError(
                status: .tooManyRequests, body: QuickBloxErrorBody.list("Too Many Requests").json,
                headers: [.retryAfter: "1"])
        }
        if decision.latencyMilliseconds > 0 { try await Task.sleep(for: .milliseconds(decision.latencyMilliseconds)) }
        if let status = decision.failure {
            let text = status == .serviceUnavailable ? "Server is at capacity" : status.reasonPhrase
            throw EmulatorError(status: status, body: QuickBloxErrorBody.list(text).json)
        }
        if decision.reset {
            // Close before any byte of a response, as a proxy or load balancer dropping the request does.
            try? await context.channel.close()
            throw InjectedFault.reset
        }
        let response = try await next(request, context)
        guard decision.truncate else { return response }
        return truncated(response)
    }

    /// The same head (with the full `Content-Length`), but only half the body, then the connection closes.
    private func truncated(_ response: Response) -> Response {
        var response = response
        let body = response.body
        guard let length = body.contentLength, length > 1 else { return response }
        response.headers[.contentLength] = String(length)
        response.body = ResponseBody(contentLength: length) { writer in
            try await body.write(TruncatingWriter(parent: writer, remaining: length / 2))
        }
        return response
    }
}

/// Faults that end a request without a response.
enum InjectedFault: Error {
    case reset
    case truncated
}

/// Passes bytes through until `remaining` run out, then fails so the server drops the connection.
struct TruncatingWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    var remaining: Int

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        if buffer.readableBytes > remaining {
            if remaining > 0, let slice = buffer.readSlice(length: remaining) { try await parent.write(slice) }
            remaining = 0
            throw InjectedFault.truncated
        }
        remaining -= buffer.readableBytes
        try await parent.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        throw InjectedFault.truncated
    }
}
