import Archive
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QueryLanguage
import QuickBlox

/// An API error: an HTTP status and a JSON body `{"error": {"code", "message", ...}}` a client can act on.
///
/// Query errors carry the position, length and hint, and the caret rendering the CLI prints, so a
/// moderator sees the same message in every interface, and never an empty result.
public struct ServiceError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    /// A stable machine-readable code (`invalid_query`, `not_found`, ...).
    public var code: String
    public var message: String
    public var details: [String: JSONValue]
    public var headers: HTTPFields
    /// For a query that cannot be run: the error and the text its positions refer to, so pages can show
    /// it at its place without re-reading the JSON details.
    public var queryFailure: QueryFailure?

    /// A query error and the query text it is positioned in.
    public struct QueryFailure: Sendable, Hashable {
        public var error: QueryError
        public var query: String
    }

    public init(
        _ status: HTTPResponse.Status, code: String, message: String, details: [String: JSONValue] = [:],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var error = details
        error["code"] = .string(code)
        error["message"] = .string(message)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        var bytes = JSONValue.object(["error": .object(error)]).serialized()
        bytes.append(0x0A)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static let unauthorized = ServiceError(
        .unauthorized, code: "unauthorized",
        message: "send the service token as 'Authorization: Bearer TOKEN' (qbarchive serve --token)",
        headers: [.wwwAuthenticate: "Bearer realm=\"qbarchive\""])

    /// The service's answer to an archive read that ran past the statement timeout: 503 `query_timeout`.
    static func timedOut(_ error: ArchiveError) -> ServiceError? {
        guard case .timedOut = error else { return nil }
        return ServiceError(
            .serviceUnavailable, code: "query_timeout", message: error.localizedDescription)
    }

    static func notFound(_ what: String) -> ServiceError {
        ServiceError(.notFound, code: "not_found", message: what)
    }

    static func badRequest(_ message: String) -> ServiceError {
        ServiceError(.badRequest, code: "bad_request", message: message)
    }

    /// A query that does not parse: 400 with where and why.
    ///
    /// A query over the length cap is echoed only up to a little past the place of the error, and control
    /// characters are echoed as their Unicode pictures (one for one, so positions still hold).
    static func invalidQuery(_ error: QueryError, query: String) -> ServiceError {
        var query = QueryError.visible(query)
        if query.utf8.count > QueryParser.maximumLength {
            query = String(query.prefix(error.position + 16)) + "…"
        }
        var details: [String: JSONValue] = [
            "position": .int(error.position), "length": .int(error.length), "query": .string(query),
            "rendered": .string(error.rendered(query: query)),
        ]
        if let hint = error.hint { details["hint"] = .string(hint) }
        var failure = ServiceError(.badRequest, code: "invalid_query", message: error.message, details: details)
        failure.queryFailure = QueryFailure(error: error, query: query)
        return failure
    }
}
