import Foundation
import Testing

@testable import QueryLanguage

@Suite("Query errors")
struct QueryErrorTests {
    /// `(query, position, length, message)` of each kind of error.
    @Test(arguments: [
        ("sendr_id = 5", 0, 8, "unknown field `sendr_id`"),
        ("refund frm:alice", 7, 3, "unknown field `frm`"),
        ("sendr_id ctn 4", 0, 8, "unknown field `sendr_id`"),
        ("sendr_id[in]=1", 0, 8, "unknown field `sendr_id`"),
        ("custom.a$b = 1", 0, 10, "unknown field `custom.a$b`"),
        ("(a or b", 0, 1, "unbalanced `(`"),
        ("((a) or b", 0, 1, "unbalanced `(`"),
        ("x -(", 3, 1, "unbalanced `(`"),
        ("a or b)", 6, 1, "unmatched `)`"),
        ("(a))", 3, 1, "unmatched `)`"),
        ("()", 0, 2, "empty `()`"),
        (#"say "hello"#, 4, 6, "unterminated quote"),
        (#"message[ctn]="abc"#, 13, 4, "unterminated quote"),
        ("sender_id ctn 4", 10, 3, "`ctn` is not allowed on `sender_id`"),
        ("message < 4", 8, 1, "`<` is not allowed on `message`"),
        ("has != attachment", 4, 2, "`!=` is not allowed on `has`"),
        ("message[lt]=x", 7, 4, "`lt` is not allowed on `message`"),
        ("sender_id[foo]=1", 9, 5, "unknown operator `[foo]`"),
        ("message[]=x", 7, 2, "unknown operator `[]`"),
        ("date = 2024-13-01", 7, 10, "`2024-13-01` is not a date"),
        ("date in (2024-01, 2024-02)", 18, 7, "a date field takes one date or period"),
        ("sender_id in ()", 14, 1, "empty list after `in`"),
        ("from nin ( )", 11, 1, "empty list after `nin`"),
        ("sender_id in (1, 2", 13, 1, "unbalanced `(` in the list"),
        ("sender_id in (1 2)", 16, 1, "expected `,` or `)` in the list"),
        ("sender_id in (1, )", 15, 1, "a value is missing after `,`"),
        ("sender_id in (=)", 14, 1, "expected a value in the list"),
        ("sender_id[in]=1,,2", 16, 1, "a value is missing in the list"),
        ("sender_id[in]=", 13, 1, "a value is missing after `=`"),
        ("sender_id =", 10, 1, "`=` needs a value after it"),
        ("from:", 4, 1, "`:` needs a value after it"),
        ("from: and x", 4, 1, "`:` needs a value after it"),
        ("message ctn", 8, 3, "`ctn` needs a value after it"),
        ("sender_id in", 10, 2, "`in` needs a value after it"),
        ("refund and", 7, 3, "`and` needs a term after it"),
        ("refund AND)", 7, 3, "`and` needs a term after it"),
        ("refund or", 7, 2, "`or` needs a term after it"),
        ("a &", 2, 1, "`&` needs a term after it"),
        ("and refund", 0, 3, "`and` needs a term before it"),
        ("or refund", 0, 2, "`or` needs a term before it"),
        ("not", 0, 3, "`not` needs a term after it"),
        ("a -)", 2, 1, "`-` needs a term after it"),
        ("", 0, 0, "empty query"),
        ("    ", 0, 0, "empty query"),
        (" \t\n ", 1, 1, "a control character (U+0009 tab) cannot be part of a query"),
        ("= 5", 0, 1, "expected a term here"),
        ("(a) = 5", 4, 1, "unexpected `=`"),
        ("a ! b", 2, 1, "unexpected `!`"),
        ("dialog_type = room", 14, 4, "`room` is not a dialog type"),
        ("read_ids = bob", 11, 3, "`bob` is not a user id"),
        ("edited = maybe", 9, 5, "`maybe` is not true or false"),
        ("is:gone", 3, 4, "`gone` is not a state `is:` knows"),
        ("refund is:", 9, 1, "`:` needs a value after it"),
        ("hidden_for > 3", 11, 1, "`>` is not allowed on `hidden_for`"),
        ("has:pics", 4, 4, "`pics` is not something `has:` knows"),
        ("re:hello", 0, 2, "unknown field `re`"),
        ("*", 0, 1, "`*` has nothing a word search can find: words are letters, digits, emoji and symbols"),
        (#"a """#, 2, 2, "\"\" has nothing a word search can find: words are letters, digits, emoji and symbols"),
        ("++", 0, 2, "`++` has nothing a word search can find: words are letters, digits, emoji and symbols"),
        (#"from:"""#, 5, 2, "an empty login"),
    ])
    func positionedErrors(_ source: String, _ position: Int, _ length: Int, _ message: String) {
        guard let error = failure(source) else { return }
        #expect(error.position == position, "\(source): \(error)")
        #expect(error.length == length, "\(source): \(error)")
        #expect(error.message == message, "\(source)")
    }

    @Test(arguments: [
        ("sendr_id = 5", "sender_id"),
        ("frm:alice", "from"),
        ("dialog_tpye = group", "dialog_type"),
        ("updatd_at > 7d", "updated_at"),
        ("recipent_id = 5", "recipient_id"),
        ("Mesage ctn x", "message"),
        ("attachment.type = image", "attachments.type"),
    ])
    func didYouMean(_ source: String, _ suggestion: String) {
        #expect(failure(source)?.hint == "did you mean `\(suggestion)`?")
    }

    @Test func noSuggestionForFarOffNames() {
        let error = failure("zzz = 5")
        #expect(error?.message == "unknown field `zzz`")
        #expect(error?.hint?.hasPrefix("search operators are from:, to:, in:, before:") == true)
    }

    @Test func theRenderedCaretAndTheDescription() {
        let query = "refund sendr_id = 5"
        guard let error = failure(query) else { return }
        #expect(
            error.rendered(query: query) == """
                refund sendr_id = 5
                       ^~~~~~~~
                unknown field `sendr_id` — did you mean `sender_id`?
                """)
        #expect(error.errorDescription == "unknown field `sendr_id` at column 8 — did you mean `sender_id`?")
        #expect(error.localizedDescription == error.errorDescription)
    }

    /// The caret stands under the token in a terminal's columns: CJK, full-width letters and emoji take two, an
    /// invisible format character none, an accent (precomposed or combining) one with its letter.
    @Test(arguments: [
        ("北京 frm:x", 5), ("🎉 frm:x", 3), ("\u{FF26}\u{FF35}\u{FF2C}\u{FF2C} frm:x", 9), ("x\u{200B}y frm:z", 3),
        ("café frm:x", 5), ("cafe\u{301} frm:x", 5), ("👍🏽 frm:x", 3), ("❤\u{FE0F} frm:x", 3), ("한국 frm:x", 5),
        ("ab frm:x", 3),
    ])
    func theCaretStandsUnderTheTokenInTerminalColumns(query: String, column: Int) throws {
        let error = try #require(failure(query))
        let lines = error.rendered(query: query).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == Substring(String(repeating: " ", count: column) + "^~~"), "\(query): \(lines[1])")
    }

    @Test func aWideTokenIsUnderlinedWhole() {
        let error = QueryError(position: 2, length: 2, message: "x")
        #expect(error.rendered(query: "a 北京 b").split(separator: "\n")[1] == "  ^~~~")
    }

    @Test func renderingAtTheEndOfAMultiLineQuery() {
        // A query is one line; a line break is refused where it is, and shown as a space under the caret.
        let query = "refund\nsender_id ="
        guard let error = failure(query) else { return }
        #expect(
            error.rendered(query: query)
                == "refund sender_id =\n      ^\na control character (U+000A line feed) cannot be part of a query — "
                + "a query is one line of text: remove it, and write a space for a line break or a tab")
        let laterError = QueryError(position: 18, length: 0, message: "`=` needs a value after it")
        #expect(
            laterError.rendered(query: query) == "refund sender_id =\n                  ^\n`=` needs a value after it")
        #expect(QueryError(position: 0, length: 0, message: "empty query").rendered(query: "") == "\n^\nempty query")
    }

    @Test func theBadDateHint() {
        let error = failure("date_sent > 2024-13-01")
        #expect(error?.message == "`2024-13-01` is not a date")
        #expect(error?.hint?.hasPrefix("use YYYY-MM-DD, YYYY-MM, YYYY, 2024-03-01T10:00:00Z, unix seconds, 7d") == true)
    }

    @Test func longValuesAreShortenedInMessages() {
        let value = String(repeating: "x", count: 500)
        let error = failure("read_ids = \(value)")
        #expect(error?.message == "`" + String(repeating: "x", count: 39) + "…` is not a user id")
        #expect(error?.length == 500)
    }
}
