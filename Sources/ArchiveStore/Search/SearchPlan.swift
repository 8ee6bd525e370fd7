import Foundation
import GRDB

/// The SQL a search runs, for `--explain`: the statement and its bound arguments, in order.
public struct SearchPlan: Sendable, Hashable {
    public var sql: String
    /// The arguments as SQL literals (`'text'`, `42`, `NULL`), for reading, never for execution.
    public var arguments: [String]

    /// A value written as a SQL literal: strings in single quotes (doubled inside), numbers as they are.
    static func literal(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
