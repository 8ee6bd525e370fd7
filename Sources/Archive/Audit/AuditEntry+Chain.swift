import Crypto
import Foundation

extension AuditEntry {
    /// An entry's hash: SHA-256 over the previous entry's hash and this entry's time, action and detail,
    /// so removing or editing an entry breaks every later hash. Every backend chains its log this way.
    public static func hash(previous: Data?, at time: Int, action: String, detail: String) -> Data {
        var hasher = SHA256()
        hasher.update(data: previous ?? Data())
        hasher.update(data: Data("\n\(time)\n\(action)\n\(detail)".utf8))
        return Data(hasher.finalize())
    }

    /// The first entry whose hash or link to its predecessor does not hold, or `nil` when the chain is intact.
    public static func firstBroken(in entries: [AuditEntry]) -> AuditEntry? {
        var previous: Data?
        for entry in entries {
            let expected = hash(previous: previous, at: entry.at, action: entry.action, detail: entry.detail)
            guard entry.previousHash == previous, entry.hash == expected else { return entry }
            previous = entry.hash
        }
        return nil
    }
}

extension ArchiveReader {
    /// The first audit entry whose hash or link does not hold, or `nil` when the chain is intact.
    public func firstBrokenAuditEntry() async throws -> AuditEntry? {
        AuditEntry.firstBroken(in: try await auditEntries())
    }
}

extension AuditEntry {
    /// ``hash`` as lowercase hex.
    public var hashHex: String { hash.map { String(format: "%02x", $0) }.joined() }
    /// ``previousHash`` as lowercase hex; `nil` for the first entry.
    public var previousHashHex: String? { previousHash.map { $0.map { String(format: "%02x", $0) }.joined() } }
}
