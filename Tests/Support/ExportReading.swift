import Archive
import Crypto
import Export
import Foundation
import QueryLanguage
import QuickBlox

/// Reading exports back in tests: digests, a bundle's entries, JSON Lines.
package enum ExportReading {
    package static func sha256(_ data: Data) -> String {
        Crypto.SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Every entry of a bundle by path, read with libarchive.
    package static func entries(_ path: String) throws -> [String: [UInt8]] {
        Dictionary(try AttachmentFixture.entries(path).map { ($0.path, $0.bytes) }) { _, last in last }
    }

    package static func lines(_ bytes: [UInt8]?) throws -> [JSONValue] {
        try (bytes ?? []).split(separator: 10).map { try JSONValue(parsing: Array($0)) }
    }

    /// Every archived message, in export order, with names, read through a snapshot.
    package static func archived(_ archive: any ArchiveReader, _ query: QueryLanguage.Query? = nil) async throws
        -> [SearchHit]
    {
        try await archive.withSnapshot { snapshot in
            var hits: [SearchHit] = []
            for try await batch in snapshot.messages(matching: query) { hits += batch.items }
            return hits
        }
    }
}
