import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// Random query *texts*, as people type them — Slack and Gmail operators, other languages' operators, names,
/// dates, words in many scripts, mistakes — over random messages in many scripts: each is either refused with a
/// positioned error, or the archive's answer is the reference evaluator's for what it parsed to.
@Suite("Search differential, typed queries")
struct ParsedQueryDifferentialTests {
    @Test(arguments: TestBackend.all, [31, 32, 33] as [UInt64])
    func typedQueriesAreRefusedOrAnsweredAsTheReference(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(
            seed: seed, count: 300, backend: backend,
            vocabulary: SearchCorpus.multilingualVocabulary + ["see www.x.io"],
            separators: [" ", "", ", "])
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users, dialogs: corpus.dialogs)
        let parser = QueryParser(now: SearchCorpus.baseTime + 86_400)
        var random = SeededRandom(seed: seed * 7_777)
        var texts = TypedQueries(corpus: corpus)
        var answered = 0
        var nonEmpty = 0
        var refused = 0
        for _ in 0..<400 {
            let text = texts.next(&random)
            let query: Query
            do {
                query = try parser.parse(text)
            } catch {
                refused += 1
                #expect((0...text.count).contains(error.position), "\(text): \(error)")
                continue
            }
            do {
                let hits = try await corpus.archive.search(query, options: SearchOptions(limit: 10_000))
                let expected = Set(corpus.entries.filter { reference.matches(query.root, $0) }.map(\.message.id))
                #expect(Set(hits.map(\.message.id)) == expected, "\(text) → \(query.root)")
                answered += 1
                if !expected.isEmpty { nonEmpty += 1 }
            } catch let error as QueryError {
                // Only the archive knows names: an unknown one, or a filter word whose value names one.
                refused += 1
                #expect((0...text.count).contains(error.position), "\(text): \(error)")
                // Or an `and` of two senders, recipients or dialogs named apart that share no one — a branch that
                // can match nothing, refused as two ids are when the query is parsed (even beside an `or`).
                if error.message.contains("cannot both hold") {
                    #expect(error.message.contains("a message has one"), "\(text)")
                } else {
                    #expect(
                        error.message.hasPrefix("no archived") || error.message.contains("would search for two words"),
                        "\(text): \(error.message)")
                }
            }
        }
        #expect(answered > 200)
        #expect(nonEmpty > 100)
        #expect(refused > 10)
    }
}

/// Query texts built from the corpus's values and the language's (and other languages') operators.
struct TypedQueries {
    var corpus: SearchCorpus

    private func pick<T>(_ items: [T], _ random: inout SeededRandom) -> T {
        items[Int(random.next() % UInt64(items.count))]
    }

    private func day(_ random: inout SeededRandom) -> String {
        let seconds = SearchCorpus.baseTime - 30 * 86_400 + Int(random.next() % (60 * 86_400))
        return String(ISO8601.format(seconds).prefix(random.next() % 3 == 0 ? 7 : 10))
    }

    mutating func term(_ random: inout SeededRandom) -> String {
        let user = pick(corpus.users, &random)
        let dialog = pick(corpus.dialogs, &random)
        var generator = MultilingualTermGenerator()
        switch random.next() % 16 {
        case 0, 1: return generator.variant(&random)
        case 2: return "\"" + generator.variant(&random) + " " + generator.variant(&random) + "\""
        case 3: return String(generator.variant(&random).prefix(2)) + "*"
        case 4: return "from:" + pick([user.login ?? "x", "\"\(user.fullName ?? "")\"", String(user.id)], &random)
        case 5: return "to:" + pick([user.login ?? "x", String(user.id)], &random)
        case 6: return "in:" + pick([dialog.id, "\"\(dialog.name ?? dialog.id)\""], &random)
        case 7: return pick(["before:", "after:", "on:", "during:"], &random) + day(&random)
        case 8: return "has:" + pick(["attachment", "image", "video", "audio", "file", "link"], &random)
        case 9: return "is:" + pick(["edited", "deleted", "hidden", "private", "group", "public"], &random)
        case 10: return "text contains \"" + generator.variant(&random) + "\""
        case 11: return "message ctn \"" + generator.variant(&random) + "\""
        case 12: return "date between \(day(&random)) and \(day(&random))"
        case 13: return "sender_id not in (\(user.id), \(pick(corpus.users, &random).id))"
        case 14: return pick(["from ", "in "], &random) + (random.next() % 2 == 0 ? (user.login ?? "x") : "nobody")
        default: return pick(["limit:5", "sender like x", "message ~ a", "frm:user1", "++", "from:ghost"], &random)
        }
    }

    mutating func next(_ random: inout SeededRandom) -> String {
        var parts = [term(&random)]
        for _ in 0..<Int(random.next() % 3) {
            parts.append(pick(["", "", "or ", "-", "not ", "and "], &random) + term(&random))
        }
        return parts.joined(separator: " ")
    }
}
