import HTTPTypes
import Hummingbird
import NIOCore
import QuickBlox

/// An error the emulator answers with, in one of QuickBlox's two JSON error forms.
///
/// Errors are always JSON: the official JS SDK fails on any other body.
struct EmulatorError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var body: JSONValue
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        EmulatorResponse.json(body, status: status, headers: headers)
    }

    /// 401 `{"errors":{"base":["Required session does not exist"]}}`, with `WWW-Authenticate`.
    static let sessionDoesNotExist = EmulatorError(
        status: .unauthorized, body: QuickBloxErrorBody.base("Required session does not exist").json,
        headers: [.wwwAuthenticate: "QB-Token realm=\"QuickBlox\""])
    /// 422 `{"errors":{"base":["Forbidden. Need user."]}}`: an application session on a chat endpoint.
    static let needUser = EmulatorError(
        status: .unprocessableContent, body: QuickBloxErrorBody.base("Forbidden. Need user.").json)
    /// 404 `{"errors":["The resource wasn't found"]}`.
    static let notFound = EmulatorError(
        status: .notFound, body: QuickBloxErrorBody.list("The resource wasn't found").json)
    /// 403 `{"errors":["You don't have appropriate permissions to perform this operation"]}`.
    static let forbidden = EmulatorError(
        status: .forbidden,
        body: QuickBloxErrorBody.list("You don't have appropriate permissions to perform this operation").json)
    /// 403 `{"errors":{"base":["WrongPermissions: only the owner can delete for everyone (force=1)"]}}`: a
    /// `force=1` delete by someone other than the owner.
    static let wrongPermissions = EmulatorError(
        status: .forbidden,
        body: QuickBloxErrorBody.base("WrongPermissions: only the owner can delete for everyone (force=1)").json)
    /// 401 `{"errors":["Unauthorized"]}`: wrong login or password.
    static let unauthorized = EmulatorError(
        status: .unauthorized, body: QuickBloxErrorBody.list("Unauthorized").json,
        headers: [.wwwAuthenticate: "QB-Token realm=\"QuickBlox\""])
    static let unexpectedSignature = EmulatorError(
        status: .unprocessableContent, body: QuickBloxErrorBody.base("Unexpected signature").json)
    static let badTimestamp = EmulatorError(
        status: .unprocessableContent, body: QuickBloxErrorBody.base("Bad timestamp").json)
    static let unexpectedNonce = EmulatorError(
        status: .unprocessableContent, body: QuickBloxErrorBody.base("Unexpected nonce").json)

    /// 400 `{"errors":[message]}` for malformed parameters.
    static func badRequest(_ message: String) -> EmulatorError {
        EmulatorError(status: .badRequest, body: QuickBloxErrorBody.list(message).json)
    }

    /// 422 `{"errors":{field:["message"]}}`, Rails-style validation.
    static func validation(_ field: String, _ message: String) -> EmulatorError {
        EmulatorError(status: .unprocessableContent, body: ["errors": [field: [.string(message)]]])
    }
}

/// Builds emulator responses: JSON with QuickBlox's content type.
enum EmulatorResponse {
    static let contentType = "application/json; charset=utf-8"

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        bytes(value.serialized(), status: status, headers: headers)
    }

    static func bytes(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// 200 with an empty body, as QuickBlox answers deletions.
    static func empty(headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: .ok, headers: fields, body: .init())
    }
}
