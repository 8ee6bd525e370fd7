import GRDB
import QueryLanguage

extension SearchCompiler {
    /// The rowids of the messages an expression matches, read from the full-text indexes alone, or
    /// `nil` when the expression needs anything else.
    ///
    /// Words, phrases and prefixes read `message_words`, `message_ctn` of three or more characters
    /// reads `message_trigrams`; `or` is a `UNION`, `and` an `INTERSECT`, and a `not` inside an `and`
    /// with a positive sibling an `EXCEPT`; sibling words are one FTS5 query, intersected inside the
    /// index. A `not` elsewhere would need every message's rowid, so it
    /// gives `nil`. Every indexed rowid is a message (the indexes are kept in step with `messages` in
    /// the same transaction), so counting this set counts the matches without reading one message row:
    /// 1 ms instead of 50 ms for a word in 25,000 messages.
    func fullTextRowids(_ expression: QueryExpression) -> Fragment? {
        switch expression {
        case .text(let term):
            return Self.wordRowids(Self.ftsString(term))
        case .predicate(let predicate):
            guard predicate.field == .message, predicate.op == .contains,
                case .string(let text) = predicate.values.first, text.count >= 3
            else { return nil }
            return Fragment(
                sql: "SELECT rowid FROM message_trigrams WHERE message_trigrams MATCH ?",
                arguments: [Self.trigramPhrase(text).databaseValue])
        case .not:
            return nil
        case .or(let children):
            var sets: [Fragment] = []
            var words: [String] = []
            for child in children {
                if case .text(let term) = child {
                    words.append(Self.ftsString(term))
                } else {
                    guard let set = fullTextRowids(child) else { return nil }
                    sets.append(set)
                }
            }
            if !words.isEmpty { sets.insert(Self.wordRowids(words.joined(separator: " OR ")), at: 0) }
            guard let first = sets.first else { return nil }
            return Self.compound(first, sets.dropFirst(), with: "UNION")
        case .and(let children):
            var positive: [Fragment] = []
            var negative: [Fragment] = []
            var words: [String] = []
            var excludedWords: [String] = []
            for child in children {
                switch child {
                case .text(let term): words.append(Self.ftsString(term))
                case .not(.text(let term)): excludedWords.append(Self.ftsString(term))
                case .not(let inner):
                    guard let set = fullTextRowids(inner) else { return nil }
                    negative.append(set)
                default:
                    guard let set = fullTextRowids(child) else { return nil }
                    positive.append(set)
                }
            }
            // Words and the words excluded next to them are one FTS5 query: `("a" AND "b") NOT "c"`.
            if !words.isEmpty {
                let excluded = excludedWords.map { " NOT " + $0 }.joined()
                positive.insert(Self.wordRowids("(" + words.joined(separator: " AND ") + ")" + excluded), at: 0)
            } else {
                negative += excludedWords.map(Self.wordRowids)
            }
            guard let first = positive.first else { return nil }
            let both = Self.compound(first, positive.dropFirst(), with: "INTERSECT")
            return negative.isEmpty ? both : Self.compound(both, negative[...], with: "EXCEPT")
        }
    }

    private static func wordRowids(_ ftsQuery: String) -> Fragment {
        Fragment(
            sql: "SELECT rowid FROM message_words WHERE message_words MATCH ?", arguments: [ftsQuery.databaseValue])
    }

    /// `SELECT rowid FROM (a) OP SELECT rowid FROM (b) …`, each operand wrapped so that compounds nest.
    /// `a - b - c` is `(a ∩ …) EXCEPT b EXCEPT c`, which SQLite reads left to right as wanted.
    private static func compound(_ first: Fragment, _ rest: ArraySlice<Fragment>, with op: String) -> Fragment {
        guard !rest.isEmpty else { return first }
        let parts = [first] + rest
        return Fragment(
            sql: parts.map { "SELECT rowid FROM (\($0.sql))" }.joined(separator: " \(op) "),
            arguments: parts.flatMap(\.arguments))
    }
}
