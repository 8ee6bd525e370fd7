import Archive
import QueryLanguage
import QuickBlox

/// Which key a set of full-text keys holds: the word index keys messages by ``SQLDialect/wordKey`` (in date
/// order), the substring index by ``SQLDialect/messageKey``.
enum KeySpace {
    case word, message
}

extension SearchCompiler {
    /// The keys of the messages an expression matches, read from the full-text indexes alone, and which key
    /// they are; `nil` when the expression needs anything else.
    ///
    /// Words, phrases and prefixes read the word index, `message ctn` of a text the substring index can
    /// answer reads that one; `or` is a `UNION`, `and` an `INTERSECT`, and a `not` inside an `and`
    /// with a positive sibling an `EXCEPT`; sibling words are one word query, intersected inside the
    /// index. A `not` elsewhere would need every message's key, so it gives `nil`. Every indexed key is a
    /// message (the indexes are kept in step with `messages` in the same transaction), so counting this
    /// set counts the matches without reading one message row: 2 ms instead of 50 ms for a word in 25,000
    /// messages. Sets of both indexes are combined in the word index's keys.
    func fullTextKeys(_ expression: QueryExpression) -> (keys: SQLFragment, space: KeySpace)? {
        switch expression {
        case .text(let term):
            return (dialect.wordKeys(dialect.wordQuery(.term(term))), .word)
        case .predicate(let predicate):
            if predicate.field == .hasLink, predicate.op == .equal, predicate.values.first == .bool(true) {
                return (linkKeys, .message)
            }
            guard predicate.field == .message, predicate.op == .contains,
                case .string(let text) = predicate.values.first, let keys = substringKeys(text)
            else { return nil }
            return (keys, .message)
        case .not:
            return nil
        case .or(let children):
            var sets: [(keys: SQLFragment, space: KeySpace)] = []
            var words: [WordQuery] = []
            for child in children {
                if case .text(let term) = child {
                    words.append(.term(term))
                } else {
                    guard let set = fullTextKeys(child) else { return nil }
                    sets.append(set)
                }
            }
            if !words.isEmpty { sets.insert((dialect.wordKeys(dialect.wordQuery(.any(words))), .word), at: 0) }
            guard !sets.isEmpty else { return nil }
            return compound(sets, with: "UNION")
        case .and(let children):
            var positive: [(keys: SQLFragment, space: KeySpace)] = []
            var negative: [(keys: SQLFragment, space: KeySpace)] = []
            var words: [WordQuery] = []
            var excludedWords: [WordQuery] = []
            for child in children {
                switch child {
                case .text(let term): words.append(.term(term))
                case .not(.text(let term)): excludedWords.append(.term(term))
                case .not(let inner):
                    guard let set = fullTextKeys(inner) else { return nil }
                    negative.append(set)
                default:
                    guard let set = fullTextKeys(child) else { return nil }
                    positive.append(set)
                }
            }
            // Words and the words excluded next to them are one word query: `("a" AND "b") NOT "c"`.
            if !words.isEmpty {
                let query = WordQuery.except(.group(.all(words)), excludedWords)
                positive.insert((dialect.wordKeys(dialect.wordQuery(query)), .word), at: 0)
            } else {
                negative += excludedWords.map { (dialect.wordKeys(dialect.wordQuery($0)), .word) }
            }
            guard !positive.isEmpty else { return nil }
            let both = compound(positive, with: "INTERSECT")
            return negative.isEmpty ? both : compound([both] + negative, with: "EXCEPT")
        }
    }

    /// The keys of the messages an `or` matches when some of its branches are full-text ones
    /// (``fullTextKeys(_:)``) and the others are not: those sets (`text`) `UNION` the keys of the messages the
    /// other branches select (`others`, a statement of its own); `nil` for any other expression. The parts are
    /// given apart for a caller to weigh or bound them first.
    ///
    /// Counted as one condition, `invoice OR from:user101` tested every message against the word index (a
    /// hashed set of 25,000 keys) and the sender: 430 ms at a million messages on PostgreSQL. Apart, the word's
    /// keys come from its index and the sender's from theirs: 56 ms (whole processes, with the page: PostgreSQL
    /// 581 → 112 ms, SQLite 388 → 66; docs/performance.md). The union holds a message exactly when one branch
    /// matches it: a branch whose condition is `NULL` (an absent field) keeps none, as `OR` does in a `WHERE`.
    func keysOfMixedOr(_ expression: QueryExpression) throws(QueryError)
        -> (keys: SQLFragment, text: SQLFragment, others: SQLFragment)?
    {
        guard case .or(let children) = expression else { return nil }
        let (textual, rest) = children.reduce(into: ([QueryExpression](), [QueryExpression]())) { parts, child in
            if fullTextKeys(child) != nil { parts.0.append(child) } else { parts.1.append(child) }
        }
        guard !textual.isEmpty, !rest.isEmpty,
            let text = fullTextKeys(textual.count == 1 ? textual[0] : .or(textual))
        else { return nil }
        let condition = try compile(rest.count == 1 ? rest[0] : .or(rest))
        let others: SQLFragment = """
            SELECT \(raw: dialect.wordKey) AS \(raw: dialect.keyColumn) FROM messages m \
            LEFT JOIN dialogs d ON d.id = m.dialog_id WHERE \(condition)
            """
        return (compound([text, (others, .word)], with: "UNION").keys, text.keys, others)
    }

    /// The keys of the messages an expression does *not* match, when it is a negation of what the full-text
    /// indexes answer (``fullTextKeys(_:)``): `-invoice`, `NOT "see you"`, `-invoice -refund` (the keys of
    /// `invoice OR refund`); `nil` for any other expression. Every message is one of the matches or one of these
    /// keys, never both, so the matches count as the messages less these keys: at a million messages, `NOT
    /// invoice` tested every message against the word's 24,904 keys (1.1 s on SQLite).
    func keysOfComplement(_ expression: QueryExpression) -> SQLFragment? {
        switch expression {
        case .not(let inner):
            return fullTextKeys(inner)?.keys
        case .and(let children):
            var negated: [QueryExpression] = []
            for child in children {
                guard case .not(let inner) = child else { return nil }
                negated.append(inner)
            }
            return fullTextKeys(.or(negated))?.keys
        default:
            return nil
        }
    }

    /// The word index's keys of an `and`'s words, phrases and prefixes when other conditions stand beside them
    /// (`invoice dialog_type:private`, `refund -from:user2`, `(invoice OR refund) -from:user2`); `nil` for any
    /// other expression, and when those words are no word-index query (none, or only excluded ones).
    ///
    /// A word child is a word, phrase or prefix, or a group of them the word index answers alone (an `or` of
    /// words; ``singleWordQuery(_:)``). Without the groups, `(invoice OR refund) -from:user101` fetched and
    /// sorted all 49,064 hits for its page and read them again for its total (440 ms at a million messages on
    /// SQLite), where `invoice -from:user101` walked the date index for its page.
    func wordKeysBesideConditions(_ expression: QueryExpression) -> SQLFragment? {
        guard let words = wordsBesideConditions(expression),
            let (keys, space) = fullTextKeys(words.count == 1 ? words[0] : .and(words)), space == .word
        else { return nil }
        return keys
    }

    /// The word children of an `and` that also has other conditions (``wordKeysBesideConditions(_:)``); `nil`
    /// when it has none, or nothing else.
    func wordsBesideConditions(_ expression: QueryExpression) -> [QueryExpression]? {
        guard case .and(let children) = expression else { return nil }
        let words = children.filter { singleWordQuery($0) != nil }
        return words.isEmpty || words.count == children.count ? nil : words
    }

    /// The one word-index query an expression is, when it is only words, phrases and prefixes under one `and`
    /// (some of them negated) or one `or`: what the word index can page through in date order.
    func singleWordQuery(_ expression: QueryExpression) -> WordQuery? {
        switch expression {
        case .text(let term):
            return .term(term)
        case .or(let children):
            let terms = children.compactMap { if case .text(let term) = $0 { WordQuery.term(term) } else { nil } }
            return terms.count == children.count ? .any(terms) : nil
        case .and(let children):
            var words: [WordQuery] = []
            var excluded: [WordQuery] = []
            for child in children {
                switch child {
                case .text(let term): words.append(.term(term))
                case .not(.text(let term)): excluded.append(.term(term))
                default: return nil
                }
            }
            return words.isEmpty ? nil : .except(.group(.all(words)), excluded)
        default:
            return nil
        }
    }

    /// A words-only query (``singleWordQuery(_:)``), or one within a period of `date_sent` (`after:`, `before:`,
    /// `on:`, `date_sent[gt]=…`): its word query and the range of word keys the period spans (``SQLDialect/wordKey``
    /// is in date order, so the word index reads a period as a range of its keys and counts it without reading a
    /// row). `nil` for anything else, and for a period ending at the ends of the keys' dates (1970, 2514), where
    /// dates outside share keys.
    func wordQueryInPeriod(_ expression: QueryExpression) -> (words: WordQuery, atLeast: Int64?, below: Int64?)? {
        if let words = singleWordQuery(expression) { return (words, nil, nil) }
        guard case .and(let children) = expression else { return nil }
        var rest: [QueryExpression] = []
        var first: Int?
        var end: Int?
        for child in children {
            guard case .predicate(let predicate) = child, predicate.field == .dateSent else {
                rest.append(child)
                continue
            }
            guard let (from, to) = Self.seconds(predicate) else { return nil }
            if let from { first = max(first ?? from, from) }
            if let to { end = min(end ?? to, to) }
        }
        guard !rest.isEmpty, rest.count < children.count,
            let words = singleWordQuery(rest.count == 1 ? rest[0] : .and(rest))
        else { return nil }
        return (
            words, first.map { dialect.dateKeys(sentAt: $0).lowerBound },
            end.map { dialect.dateKeys(sentAt: $0).lowerBound }
        )
    }

    /// The seconds a `date_sent` comparison keeps, `[from, to)`, either end open; `nil` when it is no single range,
    /// or an end lies where the word keys clamp dates.
    private static func seconds(_ predicate: QueryPredicate) -> (from: Int?, to: Int?)? {
        guard predicate.values.count == 1, case .period(let start, let end) = predicate.values[0] else { return nil }
        let range: (from: Int?, to: Int?)
        switch predicate.op {
        case .lessThan: range = (nil, start)
        case .lessThanOrEqual: range = (nil, end)
        case .greaterThan: range = (end, nil)
        case .greaterThanOrEqual: range = (start, nil)
        case .equal, .in: range = (start, end)  // `on:` and `during:` are `in` a period
        default: return nil
        }
        let keyed = 1...DateKey.lastSecond
        guard range.from.map(keyed.contains) ?? true, range.to.map(keyed.contains) ?? true else { return nil }
        return range
    }

    /// `SELECT key FROM (a) OP SELECT key FROM (b) …`, each operand wrapped so that compounds nest, in the word
    /// index's keys when the operands hold both kinds. `a - b - c` is `(a ∩ …) EXCEPT b EXCEPT c`, which SQL reads
    /// left to right as wanted.
    private func compound(_ sets: [(keys: SQLFragment, space: KeySpace)], with op: String)
        -> (keys: SQLFragment, space: KeySpace)
    {
        guard sets.count > 1 else { return sets[0] }
        let space: KeySpace = sets.allSatisfy { $0.space == .message } ? .message : .word
        let operands = sets.map { set -> SQLFragment in
            guard set.space != space else { return "SELECT \(raw: dialect.keyColumn) FROM (\(set.keys)) AS k" }
            return """
                SELECT \(raw: dialect.wordKey) AS \(raw: dialect.keyColumn) FROM messages m \
                WHERE \(raw: dialect.messageKey) IN (\(set.keys))
                """
        }
        return (.joined(operands, separator: " \(op) "), space)
    }
}
