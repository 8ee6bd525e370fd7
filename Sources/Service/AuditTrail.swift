import ArchiveStore
import Foundation
import HTTPTypes
import QuickBlox

/// Writes what people do through the service (searches, views, exports) into the archive's
/// append-only, hash-chained `audit_log`, with who did it and from where.
///
/// The one write the service makes, through its own connection; pages and data come from read-only
/// connections. An action that cannot be recorded is not served (503): an unaudited view of the
/// archive is what the log exists to rule out.
struct AuditTrail: Sendable {
    let archive: Archive

    func record(_ action: String, by context: ServiceContext, via: String, _ detail: [String: JSONValue])
        async throws
    {
        var detail = detail
        detail["by"] = .string(context.actor)
        detail["from"] = context.remoteAddress.map(JSONValue.string) ?? .null
        detail["via"] = .string(via)
        do {
            _ = try await archive.appendAudit(action: action, detail: .object(detail))
        } catch {
            throw ServiceError(
                .serviceUnavailable, code: "audit_unavailable",
                message: "the audit trail could not be written, so the request was not served; retry shortly "
                    + "(a crawl may hold the write lock) or check the archive's permissions")
        }
    }
}
