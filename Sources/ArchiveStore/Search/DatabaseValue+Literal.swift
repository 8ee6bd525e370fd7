import Foundation
import GRDB

extension DatabaseValue {
    /// The value written as a SQL literal, for `--explain`: strings in single quotes (doubled inside),
    /// numbers as they are.
    var literal: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
