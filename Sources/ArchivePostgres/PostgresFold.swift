import Foundation
import TextIndex

/// `qbarchive_fold(text)`: ``TextIndex/ContainsFolding`` as a SQL function, so that `ctn` on a column the writer
/// does not fold (a dialog's name, a custom parameter) compares as it does everywhere else.
///
/// PostgreSQL cannot call this program's code, and its own `lower()` is not the same rule: it depends on the
/// database's locale (ASCII only under `C`), keeps `ß` and final `ς`, and knows no full case folding. So the
/// function is compiled from ContainsFolding's own table when the schema is made: canonical composition
/// (`normalize(…, NFC)`) when a scalar may compose (the same condition as ContainsFolding's), then each folding of several scalars (`ß` → `ss`) by `replace`, then every folding of
/// one scalar by one `translate`. Text that is pure ASCII (as many bytes as characters) takes a shortcut,
/// `lower(… COLLATE "C")`, which changes `A`–`Z` alone. The table is built from the Unicode data of the Swift
/// that made the schema; message text itself is folded by the writer in Swift (`messages.text_folded`).
enum PostgresFold {
    /// The `CREATE FUNCTION` statement.
    static var createFunction: String {
        let folds = ContainsFolding.nonASCIIFolds
        var from = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        var to = "abcdefghijklmnopqrstuvwxyz"
        // Composed only when a scalar may compose, as ContainsFolding does (NFC of every text would also map
        // singletons such as U+1FBB, which the Swift rule keeps in a text without marks).
        let composing = ContainsFolding.composingScalarRanges.map { range in
            String(Character(Unicode.Scalar(range.lowerBound)!))
                + (range.count > 1 ? "-" + String(Character(Unicode.Scalar(range.upperBound)!)) : "")
        }.joined()
        var expanded = "(CASE WHEN $1 ~ \(literal("[" + composing + "]")) THEN normalize($1, NFC) ELSE $1 END)"
        for (scalar, folded) in folds {
            if folded.count == 1 {
                from.unicodeScalars.append(scalar)
                to.unicodeScalars.append(folded[0])
            } else {
                var replacement = ""
                replacement.unicodeScalars.append(contentsOf: folded)
                expanded = "replace(\(expanded), \(literal(String(scalar))), \(literal(replacement)))"
            }
        }
        return """
            CREATE FUNCTION qbarchive_fold(text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fold$
            SELECT CASE WHEN octet_length($1) = char_length($1) THEN lower($1 COLLATE "C")
                ELSE translate(\(expanded), \(literal(from)), \(literal(to))) END
            $fold$
            """
    }

    /// `text` as a SQL string literal: single quotes doubled (standard strings take backslashes as they are).
    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
