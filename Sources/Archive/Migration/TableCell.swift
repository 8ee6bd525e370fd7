import Foundation

/// One column value of a row copied verbatim between archives (``VerbatimTable``): the storage classes both
/// backends share (PostgreSQL's `bigint`, `text`, `bytea`; SQLite's INTEGER, TEXT, BLOB).
public enum TableCell: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The bytes ``VerbatimTable`` hashes for this cell: a type tag, then the value (lengths prefixed).
    public func appendDigestBytes(to bytes: inout [UInt8]) {
        func length(_ count: Int) { withUnsafeBytes(of: UInt64(count).bigEndian) { bytes.append(contentsOf: $0) } }
        switch self {
        case .null:
            bytes.append(0)
        case .integer(let value):
            bytes.append(1)
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        case .real(let value):
            bytes.append(2)
            withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
        case .text(let value):
            bytes.append(3)
            length(value.utf8.count)
            bytes.append(contentsOf: value.utf8)
        case .blob(let value):
            bytes.append(4)
            length(value.count)
            bytes.append(contentsOf: value)
        }
    }
}
