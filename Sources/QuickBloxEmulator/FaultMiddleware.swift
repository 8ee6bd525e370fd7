import HTTPTypes
import Hummingbird
import NIOCore
import QuickBlox

/// Injects the configured faults into QuickBlox endpoints and storage downloads: latency, 429,
/// 5xx, dropped connections, bodies cut short, a `Content-Length` larger than the body, and stalls.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = EmulatorContext
    let faults: FaultInjector

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let endpoint = "\(request.method) \(context.endpointPath ?? request.uri.path)"
        let decision = await faults.decide(endpoint: endpoint)
        do {
            let response = try await respond(to: request, context: context, decision: decision, next: next)
            await faults.finished()
            return response
        } catch {
            await faults.finished()
            throw error
        }
    }

    private func respond(
        to request: Request, context: Context, decision: FaultInjector.Decision,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if decision.rateLimited {
            throw EmulatorError(
                status: .tooManyRequests, body: QuickBloxErrorBody.list("Too Many Requests").json,
                headers: [.retryAfter: "1"])
        }
        if decision.latencyMilliseconds > 0 { try await Task.sleep(for: .milliseconds(decision.latencyMilliseconds)) }
        if decision.stall {
            // The request was accepted; not a byte of the answer comes for a while (a client that gave up has
            // closed the connection by then, and the late answer goes nowhere).
            try await Task.sleep(for: .milliseconds(Int(faults.configuration.stallSeconds * 1000)))
        }
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
        if decision.truncate { return truncated(response) }
        if decision.badLength { return misstated(response) }
        return response
    }

    /// The whole body, but a `Content-Length` half as large again, then the connection closes:
    /// the client gets every byte and still falls short of what it was promised.
    private func misstated(_ response: Response) -> Response {
        var response = response
        let body = response.body
        guard let length = body.contentLength, length > 0 else { return response }
        response.body = ResponseBody(contentLength: length) { writer in
            try await body.write(ClosingWriter(parent: writer))
        }
        // After the body: assigning a body resets the header to the body's length.
        response.headers[.contentLength] = String(length + max(1, length / 2))
        return response
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
    case badLength
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

/// Passes every byte through, then fails instead of finishing so the server drops the connection.
struct ClosingWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter

    mutating func write(_ buffer: ByteBuffer) async throws { try await parent.write(buffer) }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        throw InjectedFault.badLength
    }
}
