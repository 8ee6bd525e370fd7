import Export
import Foundation
import QuickBlox

/// The JSON body of `POST /api/exports`: `{"where", "dialog", "since", "until", "container"}`, all optional.
struct ExportRequest: Sendable {
    var whereText: String?
    var dialog: String?
    var since: String?
    var until: String?
    var container: ContainerFormat

    init(body: [UInt8]) throws {
        let json: JSONValue
        do {
            json = body.allSatisfy({ $0 == 0x20 || $0 == 0x0A }) ? .object([:]) : try JSONValue(parsing: body)
        } catch {
            throw ServiceError.badRequest("the body must be a JSON object: \(error.localizedDescription)")
        }
        guard case .object(let fields) = json else {
            throw ServiceError.badRequest("the body must be a JSON object such as {\"where\": \"refund\"}")
        }
        let known: Set = ["where", "dialog", "since", "until", "container"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw ServiceError.badRequest(
                "unknown field \(unknown); an export takes \(known.sorted().joined(separator: ", "))")
        }
        func text(_ key: String) throws -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value.isEmpty ? nil : value
            default: throw ServiceError.badRequest("\(key) must be a string")
            }
        }
        whereText = try text("where")
        dialog = try text("dialog")
        since = try text("since")
        until = try text("until")
        let containerText = try text("container") ?? ContainerFormat.tarGz.rawValue
        guard let container = ContainerFormat(rawValue: containerText) else {
            throw ServiceError.badRequest(
                "container must be one of \(ContainerFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.container = container
    }
}
