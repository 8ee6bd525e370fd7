import QuickBlox
import Testing

@testable import QueryLanguage

@Suite("Query parser robustness")
struct QueryFuzzTests {
    static let alphabet = Array(#"abcdefromtsn_id.:=!<>()"'\-*&,[]%+ 0123456789é😀"#) + ["\t", "\n", "\u{301}"]
    static let valid = [
        "refund", "from:alice date > 7d", "sender_id[in]=34,45&message[ctn]=refund", #""money back" -spam"#,
        "(a or b) and not c", "date_sent in 2024-03", "read_ids all (1, 2)", "custom.x >= 3",
        "dialog_type in (private, group)", "has:attachment edited = true", #"message ctn "bit.ly""#,
        "updated_at <= 2024-03-01T10:00:00+02:00", "to != 5 or recipient_id nin (1,2)", "refu* -from:bob",
        "dialog_name ctn café", "deleted:yes", "occupants_ids = 3", "attachments.type = image", "a, b",
        "date = today or date = yesterday",
    ]

    /// Each input parses, or throws a `QueryError` positioned inside it (or just past its end).
    static func check(_ input: String) {
        do {
            _ = try parser.parse(input)
        } catch {
            #expect((0...input.count).contains(error.position), "\(input.debugDescription): \(error)")
            #expect(error.length >= 0 && error.position + error.length <= input.count + 1, "\(input.debugDescription)")
            #expect(!error.message.isEmpty)
            #expect(error.rendered(query: input).split(separator: "\n", omittingEmptySubsequences: false).count == 3)
        }
    }

    @Test func randomStringsAndMutations() {
        var random = SeededRandom(seed: 2_024)
        func pick<T>(_ array: [T]) -> T { array[Int(random.next() % UInt64(array.count))] }
        for _ in 0..<2_000 {
            Self.check(String((0..<Int(random.next() % 40)).map { _ in pick(Self.alphabet) }))
        }
        for query in Self.valid {
            #expect(throws: Never.self) { try parser.parse(query) }
            for _ in 0..<100 {
                var characters = Array(query)
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let position = Int(random.next() % UInt64(characters.count + 1))
                    switch random.next() % 3 {
                    case 0: characters.insert(pick(Self.alphabet), at: position)
                    case 1: if position < characters.count { characters.remove(at: position) }
                    default: if position < characters.count { characters[position] = pick(Self.alphabet) }
                    }
                }
                Self.check(String(characters))
            }
        }
    }

    @Test func randomBytes() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            Self.check(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func deepNestingIsRefusedQuicklyWithAPosition() {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for (source, position) in [
                (String(repeating: "(", count: 2_000), 100),
                (String(repeating: "(", count: 2_000) + "a" + String(repeating: ")", count: 2_000), 100),
                (String(repeating: "not ", count: 1_000) + "a", 400),
                (String(repeating: "-(", count: 2_000) + "a", 100),
            ] {
                let error = failure(source)
                #expect(error?.message == "nested deeper than 100 levels")
                #expect(error?.position == position)
            }
        }
        #expect(elapsed < .seconds(5))
        let limit = String(repeating: "(", count: QueryParser.maximumDepth) + "a"
        #expect(throws: Never.self) { try parser.parse(limit + String(repeating: ")", count: 100)) }
    }

    /// Inputs up to the length cap parse in linear time; longer ones are refused where the cap is crossed,
    /// before any other work, however they are made.
    @Test func hugeInputsAreRefusedAtTheCapAndLongOnesAreLinear() throws {
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            let words = String(repeating: "refund ", count: QueryParser.maximumLength / 7)
            guard case .and(let children) = try parser.parse(words).root else {
                throw QueryError(position: 0, length: 0, message: "shape")
            }
            #expect(children.count == QueryParser.maximumLength / 7)
            for huge in [
                String(repeating: "refund ", count: 50_000), String(repeating: "aaaa:", count: 40_000),
                "x" + String(repeating: "a[", count: 40_000), String(repeating: "a", count: 200_000) + ": = 5",
                "\"" + String(repeating: "a b ", count: 50_000), String(repeating: ")", count: 100_000),
                "sender_id in (" + String(repeating: "1, ", count: 50_000) + "2)",
            ] {
                Self.check(huge)
                #expect(failure(huge)?.position == QueryParser.maximumLength)
            }
            for near in [
                String(repeating: "aaaa:", count: 800), "x" + String(repeating: "a[", count: 2_000),
                "\"" + String(repeating: "a b ", count: 1_000), String(repeating: ")", count: 4_000),
                "sender_id in (" + String(repeating: "1, ", count: 1_300) + "2)",
            ] {
                Self.check(near)
            }
        }
        #expect(elapsed < .seconds(30))
    }
}
