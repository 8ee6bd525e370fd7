/// Text as the SQLite archive stores it, for PostgreSQL's `text`, which cannot hold U+0000.
///
/// The SQLite backend binds text through the C API as a NUL-terminated string (GRDB passes a length of -1), so
/// a column holds what comes before a U+0000. Every column but a message's text (which ``MessageContent``
/// already stores with U+FFFD for each U+0000) gets the same cut here, so both backends store the same value.
/// JSON columns never need it: canonical JSON writes U+0000 as `\u0000`.
enum SQLiteText {
    /// `text` up to its first U+0000.
    static func cut(_ text: String) -> String {
        guard let nul = text.unicodeScalars.firstIndex(of: "\u{0}") else { return text }
        return String(text.unicodeScalars[..<nul])
    }

    /// ``cut(_:)`` of an optional.
    static func cut(_ text: String?) -> String? { text.map(cut) }
}
