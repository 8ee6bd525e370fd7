import QuickBlox
import Testing

@testable import QueryLanguage

/// The query's syntax as phones and input methods type it — dashes for `-`, “typographic” quotes, full-width
/// parentheses, colons, letters and keywords — means what its ASCII form means; a mark or modifier typed right
/// after a quote, a dash or a space stays in the text; CJK prose with full-width punctuation stays text.
@Suite("Query lexer: lookalikes of the syntax")
struct QueryLookalikeTests {
    /// Each dash and exclamation mark a keyboard types for `-` or `!`, before a word, a filter and a group.
    @Test(arguments: [
        "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2015}", "\u{2212}", "\u{FE63}", "\u{FF0D}",
        "\u{FF01}",
    ])
    func dashesBeforeATermNegateIt(dash: String) throws {
        for (typed, ascii) in [
            ("banana \(dash)apple", "banana -apple"), ("\(dash)from:user1 refund", "-from:user1 refund"),
            ("refund \(dash)(apple or pear)", "refund -(apple or pear)"), ("(a)\(dash)b", "(a)-b"),
        ] {
            #expect(try parsed(typed) == parsed(ascii), "\(typed)")
        }
        // Inside a word, or with a space after it, a dash is text as `-` is.
        #expect(try parsed("e\(dash)mail") == word("e\(dash)mail"))
    }

    @Test(arguments: [
        ("\u{201C}late refund\u{201D}", "late refund"), ("\u{201E}late refund\u{201C}", "late refund"),
        ("\u{201D}late refund\u{201D}", "late refund"), ("\u{201C}late refund\"", "late refund"),
        ("\u{FF02}late refund\u{FF02}", "late refund"),
        ("\"he said \u{201C}hi\u{201D}\"", "he said \u{201C}hi\u{201D}"),
    ])
    func typographicQuotesMakeAPhrase(typed: String, phrase text: String) throws {
        #expect(try parsed(typed) == phrase(text))
        #expect(try parsed("refund \(typed) -spam") == parsed("refund \"\(text)\" -spam"))
    }

    @Test func fullWidthSyntaxIsTheSyntax() throws {
        for (typed, ascii) in [
            ("\u{FF08}apple or banana\u{FF09} only", "(apple or banana) only"),
            ("from\u{FF1A}user2", "from:user2"), ("before\u{FF1A}2025-01-01", "before:2025-01-01"),
            ("\u{FF46}\u{FF52}\u{FF4F}\u{FF4D}:user2", "from:user2"),
            ("apple \u{FF4F}\u{FF52} banana", "apple or banana"), ("apple \u{FF2F}\u{FF32} banana", "apple or banana"),
            ("\u{FF2E}\u{FF2F}\u{FF34} apple", "not apple"), ("a \u{FF41}\u{FF4E}\u{FF44} b", "a and b"),
            ("message \u{FF43}\u{FF54}\u{FF4E} \"x\"", "message ctn \"x\""),
        ] {
            #expect(try parsed(typed) == parsed(ascii), "\(typed)")
        }
    }

    /// A name of Latin letters with accents before a colon is refused as no field, as an ASCII one is.
    @Test(arguments: ["café:x", "fröm:user2", "fro\u{308}m:user2", "ñame:x", "Straße:12"])
    func accentedNamesBeforeAColonAreNoField(typed: String) throws {
        let error = try #require(failure(typed))
        #expect(error.position == 0, "\(typed): \(error)")
    }

    /// CJK and other prose with full-width punctuation, and names of other alphabets, stay text.
    @Test(arguments: ["退款，紧急", "注意：退款", "你好！", "価格（税込）", "Внимание:текст", "ελλάδα:x", "re: refund"])
    func proseStaysText(typed: String) throws {
        let root = try parsed(typed)
        #expect(!"\(root)".contains("predicate"), "\(typed): \(root)")
    }

    /// A combining mark or an emoji modifier typed right after a quote, a dash, a parenthesis or a space.
    @Test func marksAfterSyntaxStayInTheText() throws {
        #expect(
            try parsed("message ctn \"\u{301}\"") == predicate(.message, .contains, [.string("\u{301}")]))
        #expect(try parsed("message ctn \"🏽\"") == predicate(.message, .contains, [.string("🏽")]))
        #expect(try parsed("message ctn \"\u{948}\"") == predicate(.message, .contains, [.string("\u{948}")]))
        #expect(try parsed("message ctn 🏽") == predicate(.message, .contains, [.string("🏽")]))
        if case .and(let children) = try parsed("apple -\u{301}banana") {
            #expect(children.count == 2)
            if case .not = children[1] {} else { Issue.record("not negated: \(children)") }
        } else {
            Issue.record("not an and")
        }
        #expect(try parsed("(\u{301}apple or pear)") == parsed("(apple or pear)"))
        // The quote after `or apple` opens a phrase that never closes: refused there, not read as something else.
        let error = try #require(failure("message ctn \"\u{301}\" or apple \""))
        #expect(error.message == "unterminated quote" && error.position == 24, "\(error)")
    }

    /// `*` is a prefix only at a word's end; before or inside a word it is refused, not dropped.
    @Test(arguments: ["*fund", "re*fund", "a*", "*"])
    func starsBeforeOrInsideAWordAreRefused(typed: String) throws {
        if typed == "a*" {
            #expect(try parsed(typed) == prefix("a"))
            return
        }
        let error = try #require(failure("refund \(typed)"))
        #expect(error.position == 7, "\(typed): \(error)")
        if typed != "*" { #expect(error.message.hasPrefix("`*` stands only at the end of a word")) }
    }
}
