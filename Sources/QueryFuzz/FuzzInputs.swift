import QuickBlox

/// Random query texts of four kinds: characters drawn from the language's syntax and many scripts, mutations of
/// valid queries, sequences of the language's tokens, and raw bytes read as UTF-8.
struct FuzzInputs {
    static let alphabet =
        Array(
            #"abcdefromtsnilkg_id.:=!<>()[]"'\-*&|~,%+ 0123456789 AZ/\@#$^"# + "éßİıςΣ北京见ไทยكتابال🎉👍🏽\u{301}\u{200D}"
        ) + ["\t", "\n", "\u{0}", "\u{1B}", "\u{85}", "\u{FEFF}"]

    static let seeds = [
        "refund", "from:alice date > 7d", "sender_id[in]=34,45&message[ctn]=refund", #""money back" -spam"#,
        "(a or b) and not c", "date_sent in 2024-03", "read_ids all (1, 2)", "custom.x >= 3", "before:2024-01-01",
        "after:2024-03 on:2024-03-05", "during:2024 has:link is:edited", "in:\"Book club\" has:image -is:private",
        "text contains refund", "date between 2024-01-01 and 2024-02-01", "sender_id not in (1, 2)", "a && b || c",
        "北京 ελλαδα كتاب 🎉", "message ctn \"ก\"", "limit:10", "order by date", "sender like bob", "message ~ x",
        "from user42", "after:2025-01-01 before:2024-01-01", "refund -refund", "is:private is:group", "!spam",
    ]

    static let tokens = [
        "from", "to", "in", "before", "after", "on", "during", "has", "is", "message", "text", "sender_id",
        "dialog", "dialog_type", "date", "updated_at", "custom.k", "read_ids", "hidden_for", ":", "=", "==", "!=",
        "<>", "<", "<=", ">", ">=", "ctn", "contains", "like", "between", "and", "or", "not", "nin", "all", "~",
        "=~", "&&", "||", "-", "!", "(", ")", ",", "\"", "2024-03-01", "2024-13", "7d", "today", "now", "link",
        "image", "edited", "private", "alice", "北京", "ελλάδα", "🎉", "42", "-5", "99999999999999999999", "*",
        "refu*", "[in]", "[ctn]=", "%20", "+", "limit", "order", "by", "\\",
    ]

    var kind = 0

    mutating func next(_ random: inout SeededRandom) -> String {
        kind = (kind + 1) % 4
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        switch kind {
        case 0:
            return String((0..<Int(random.next() % 48)).map { _ in pick(Self.alphabet) })
        case 1:
            var characters = Array(pick(Self.seeds))
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let position = Int(random.next() % UInt64(characters.count + 1))
                switch random.next() % 4 {
                case 0: characters.insert(pick(Self.alphabet), at: position)
                case 1: if position < characters.count { characters.remove(at: position) }
                case 2: if position < characters.count { characters[position] = pick(Self.alphabet) }
                default: characters.insert(contentsOf: Array(" " + pick(Self.tokens)), at: position)
                }
            }
            return String(characters)
        case 2:
            return (0..<(1 + Int(random.next() % 9))).map { _ in pick(Self.tokens) }
                .joined(separator: random.next() % 3 == 0 ? "" : " ")
        default:
            let bytes = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
