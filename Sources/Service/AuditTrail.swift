import Archive
import Crypto
import Foundation
import HTTPTypes
import QuickBlox

/// Writes what people do through the service (searches, views, exports) into the archive's
/// append-only, hash-chained `audit_log`, with who did it and from where.
///
/// The one write the service makes, through its own connection; pages and data come from read-only
/// connections. An action that cannot be recorded is not served (503): an unaudited view of the
/// archive is what the log exists to rule out.
///
/// A long text (a query near its 4 KB cap) is stored as its first ``maximumText`` bytes and its SHA-256 and
/// length (`q`, `q_sha256`, `q_bytes`), so the log grows by at most about a kilobyte per request while
/// still identifying exactly what was asked.
struct AuditTrail: Sendable {
    let archive: any ArchiveWriter

    /// The most bytes of one text value the log keeps.
    static let maximumText = 512

    func record(_ action: String, by context: ServiceContext, via: String, _ detail: [String: JSONValue])
        async throws
    {
        var detail = Self.bounded(detail)
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

    /// `detail` with each string longer than ``maximumText`` bytes cut at a character boundary, marked with
    /// `…`, and its SHA-256 and byte length recorded beside it.
    static func bounded(_ detail: [String: JSONValue]) -> [String: JSONValue] {
        var result = detail
        for (key, value) in detail {
            guard case .string(let text) = value, text.utf8.count > maximumText else { continue }
            var kept = ""
            var bytes = 0
            for character in text {
                bytes += character.utf8.count
                guard bytes <= maximumText else { break }
                kept.append(character)
            }
            result[key] = .string(kept + "…")
            result[key + "_sha256"] = .string(
                SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined())
            result[key + "_bytes"] = .int(text.utf8.count)
        }
        return result
    }
}
