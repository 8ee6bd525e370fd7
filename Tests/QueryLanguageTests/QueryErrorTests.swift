import Foundation
import Testing

@testable import QueryLanguage

@Suite("Query errors")
struct QueryErrorTests {
    /// `(query, position, length, message)` of each kind of error.
    @Test(arguments: [
        ("sendr_id = 5", 0, 8, "unknown field `sendr_id`"),
        ("refund frm:alice", 7, 3, "unknown field `frm`"),
        ("(a or b", 0, 1, "unbalanced `(`"),
        ("a or b)", 6, 1, "unmatched `)`"),
        (#"say "hello"#, 4, 6, "unterminated quote"),
        ("sender_id ctn 4", 10, 3, "`ctn` is not allowed on `sender_id`"),
        ("message < 4", 8, 1, "`<` is not allowed on `message`"),
        ("has != attachment", 4, 2, "`!=` is not allowed on `has`"),
        ("date = 2024-13-01", 7, 10, "`2024-13-01` is not a date"),
        ("sender_id in ()", 14, 1, "empty list after `in`"),
        ("sender_id in (1, 2", 13, 1, "unbalanced `(` in the list"),
        ("sender_id =", 10, 1, "`=` needs a value after it"),
        ("refund and", 7, 3, "`and` needs a term after it"),
        ("refund or", 7, 2, "`or` needs a term after it"),
        ("and refund", 0, 3, "`and` needs a term before it"),
        ("not", 0, 3, "`not` needs a term after it"),
        ("", 0, 0, "empty query"),
        ("   ", 0, 0, "empty query"),
        ("= 5", 0, 1, "expected a term here"),
        ("a ! b", 2, 1, "unexpected `!`"),
        ("dialog_type = room", 14, 4, "`room` is not a dialog type"),
        ("read_ids = bob", 11, 3, "`bob` is not a user id"),
        ("edited = maybe", 9, 5, "`maybe` is not true or false"),
        ("has:photo", 4, 5, "`has:` takes `attachment`"),
        ("sender_id[foo]=1", 0, 16, "unknown operator `[foo]`"),
        ("date in (2024-01, 2024-02)", 18, 7, "a date field takes one date or period"),
    ])
    func positionedErrors(_ source: String, _ position: Int, _ length: Int, _ message: String) {
        do {
            let query = try parser.parse(source)
            Issue.record("parsed \(query.root)")
        } catch {
            #expect(error.position == position, "\(error)")
            #expect(error.length == length, "\(error)")
            #expect(error.message == message)
        }
    }

    @Test func didYouMeanAndTheRenderedCaret() throws {
        do {
            _ = try parser.parse("refund sendr_id = 5")
            Issue.record("parsed")
        } catch {
            #expect(error.hint == "did you mean `sender_id`?")
            #expect(
                error.rendered(query: "refund sendr_id = 5") == """
                    refund sendr_id = 5
                           ^~~~~~~~
                    unknown field `sendr_id` — did you mean `sender_id`?
                    """)
            #expect(error.errorDescription == "unknown field `sendr_id` at column 8 — did you mean `sender_id`?")
        }
    }

    @Test func deepNestingIsRefusedQuickly() throws {
        for source in [String(repeating: "(", count: 10_000) + "a", String(repeating: "not ", count: 5_000) + "a"] {
            do {
                _ = try parser.parse(source)
                Issue.record("parsed")
            } catch {
                #expect(error.message == "nested deeper than 100 levels")
                #expect(error.position == 100 * (source.hasPrefix("(") ? 1 : 4))
            }
        }
        // A run of dashes negates once and searches for the rest as a word.
        #expect(
            try parsed(String(repeating: "-", count: 3) + "a")
                == .not(.text(TextTerm(kind: .word, text: "--a", range: 0..<0))))
    }

    /// Random strings and mutations of valid queries: each parses or throws a positioned error, never crashes.
    @Test func fuzz() {
        var random = SplitMix(seed: 2024)
        let alphabet = Array(#"abcdefromtsn_id.:=!<>()"'\-*&,[]% 0123456789é😀\#t"#)
        let valid = [
            "refund", "from:alice date > 7d", "sender_id[in]=34,45&message[ctn]=refund", #""money back" -spam"#,
            "(a or b) and not c", "date_sent in 2024-03", "read_ids all (1, 2)", "custom.x >= 3",
            "dialog_type in (private, group)", "has:attachment edited = true", "message ctn \"bit.ly\"",
            "updated_at <= 2024-03-01T10:00:00+02:00", "to != 5 or recipient_id nin (1,2)", "refu* -from:bob",
            "dialog_name ctn café", "deleted:yes", "occupants_ids = 3", "attachments.type = image", "a, b",
            "date = today or date = yesterday",
        ]
        var inputs: [String] = []
        for _ in 0..<2_000 {
            inputs.append(
                String((0..<Int(random.next() % 30)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            )
        }
        for query in valid {
            #expect(throws: Never.self) { try parser.parse(query) }
            for _ in 0..<50 {
                var characters = Array(query)
                let position = Int(random.next() % UInt64(characters.count + 1))
                let character = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: characters.insert(character, at: position)
                case 1: if position < characters.count { characters.remove(at: position) }
                default: if position < characters.count { characters[position] = character }
                }
                inputs.append(String(characters))
            }
        }
        for input in inputs {
            do {
                _ = try parser.parse(input)
            } catch {
                #expect((0...input.count).contains(error.position), "\(input): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
    }
}

/// A small deterministic generator (SplitMix64) so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
