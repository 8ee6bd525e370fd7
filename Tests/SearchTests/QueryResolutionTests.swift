import Archive
import ArchiveSQLite
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// The users and dialogs a query names, resolved by the archive: logins, full names and ids, dialog ids and
/// names; an unknown one is a positioned error naming the nearest; a filter word without its colon is refused
/// when its value names one of them.
@Suite("Names in queries, resolved by the archive")
struct QueryResolutionTests {
    static let parser = QueryParser(now: SearchCorpus.baseTime)

    func ids(_ corpus: SearchCorpus, _ text: String) async throws -> Set<String> {
        Set(
            try await corpus.archive.search(try Self.parser.parse(text), options: SearchOptions(limit: 10_000)).map(
                \.message.id))
    }

    func error(_ corpus: SearchCorpus, _ text: String) async throws -> QueryError? {
        do {
            _ = try await corpus.archive.search(try Self.parser.parse(text))
            Issue.record("`\(text)` ran")
            return nil
        } catch let error as QueryError {
            // The same error from the count and the reading: no path runs a query it did not understand.
            await #expect(throws: QueryError.self) { try await corpus.archive.count(try Self.parser.parse(text)) }
            await #expect(throws: QueryError.self) {
                try await corpus.archive.describe(try Self.parser.parse(text), zone: QueryDate.utc)
            }
            return error
        }
    }

    @Test func usersByLoginFullNameOrIdAndDialogsByIdOrName() async throws {
        let corpus = try await SearchCorpus.make(seed: 21, count: 300)
        defer { corpus.remove() }
        let bySender = Set(corpus.entries.filter { $0.message.senderID == 3 }.map(\.message.id))
        #expect(!bySender.isEmpty)
        for text in ["from:user3", "from:3", "from:USER3", #"from:"User 3""#, #"from:"user 3""#, "sender_id = user3"] {
            #expect(try await ids(corpus, text) == bySender, "\(text)")
        }
        let dialog = try #require(corpus.entries.first { $0.dialog.name != nil }?.dialog)
        let inDialog = Set(corpus.entries.filter { $0.message.chatDialogID == dialog.id }.map(\.message.id))
        let name = try #require(dialog.name)
        for text in [
            "in:\(dialog.id)", "in:\"\(name)\"", "dialog = \"\(name.uppercased())\"",
            "in:\"\(name.replacingOccurrences(of: "é", with: "e"))\"",
        ] {
            #expect(try await ids(corpus, text) == inDialog, "\(text)")
        }
        let summary = try await corpus.archive.describe(
            try Self.parser.parse("from:user3 in:\"\(name)\""), zone: QueryDate.utc)
        #expect(summary == "sender is user3 (User 3, user 3) AND dialog is \"\(name)\" (dialog \(dialog.id))")
    }

    @Test func unknownNamesAreErrorsNamingTheNearest() async throws {
        let corpus = try await SearchCorpus.make(seed: 22, count: 50)
        defer { corpus.remove() }
        let login = try #require(try await error(corpus, "refund from:usr3"))
        #expect(login.message == "no archived user has the login or name `usr3`")
        #expect(login.hint?.hasPrefix("the nearest are user3 (User 3, user 3)") == true)
        #expect(login.position == 7 && login.length == 9)
        let id = try #require(try await error(corpus, "to:999"))
        #expect(id.message == "no archived user has the id or login 999, and no archived message names it")
        let dialog = try #require(try await error(corpus, #"in:"Room 1 cafe bar""#))
        #expect(dialog.message.hasPrefix("no archived dialog has the id or name"))
        #expect(dialog.hint?.contains("\"Room 1 café\"") == true)
        let unknownID = try #require(try await error(corpus, "dialog = 0123456789abcdef01234567"))
        #expect(unknownID.message.hasPrefix("no archived dialog has the id or name"))
        let hidden = try #require(try await error(corpus, "hidden_for:ghost"))
        #expect(hidden.message == "no archived user has the login or name `ghost`")
        // Negated and listed forms are checked too: a typo is a typo.
        #expect(try await error(corpus, "-from:usr3")?.message == login.message)
        #expect(try await error(corpus, "sender_id in (1, usr3)")?.message == login.message)
    }

    /// A login folded is a login before it is anyone's full name, whatever the case typed; `*` is no wildcard.
    @Test func loginsComeBeforeFullNamesInAnyCase() async throws {
        let corpus = try await SearchCorpus.make(seed: 23, count: 20)
        defer { corpus.remove() }
        let ann = User(id: 7, login: "ann", fullName: "Bob", createdAt: 0, updatedAt: 0)
        let bob = User(id: 8, login: "bob", fullName: "Robert Roe", createdAt: 0, updatedAt: 0)
        _ = try await corpus.archive.storeUsers(rawItems: [ann.json, bob.json], at: SearchCorpus.baseTime)
        for typed in ["from:bob", "from:Bob", "from:BOB", #"from:"Bob""#, "from:bób"] {
            let summary = try await corpus.archive.describe(try Self.parser.parse(typed), zone: QueryDate.utc)
            #expect(summary == "sender is bob (Robert Roe, user 8)", "\(typed)")
        }
        // A full name no login folds to still finds its person.
        let robert = try await corpus.archive.describe(
            try Self.parser.parse(#"from:"robert roe""#), zone: QueryDate.utc)
        #expect(robert.hasSuffix("is bob (Robert Roe, user 8)"), "\(robert)")
        for typed in ["from:user1*", "to:user1*", "sender_id = user1*"] {
            let error = try #require(try await error(corpus, typed), "\(typed)")
            #expect(error.hint?.hasPrefix("`*` is no wildcard for a person; the nearest are user1") == true, "\(typed)")
        }
        let dialog = try #require(try await error(corpus, "in:Room*"))
        #expect(dialog.hint?.hasPrefix("`*` is no wildcard for a dialog") == true)
    }

    /// Two senders, recipients or dialogs of one `and` named apart that stand for no one in common are refused,
    /// positioned on the second, as two ids are; names of the same person or overlapping lists are not.
    @Test func contradictoryNamesAreRefusedOnceResolved() async throws {
        let corpus = try await SearchCorpus.make(seed: 24, count: 40)
        defer { corpus.remove() }
        let dialogs = Array(Set(corpus.entries.compactMap(\.dialog.name))).sorted()
        try #require(dialogs.count >= 2)
        for (text, second) in [
            ("from:user1 from:user2", "from:user2"), ("from:user1 refund from:3", "from:3"),
            ("to:user1 to:user2", "to:user2"), ("in:\"\(dialogs[0])\" in:\"\(dialogs[1])\"", "in:\"\(dialogs[1])\""),
            ("sender_id in (user1, user2) from:user3", "from:user3"),
        ] {
            let refused = try #require(try await error(corpus, text), "\(text)")
            #expect(
                refused.message.hasSuffix(
                    "cannot both hold: a message has one "
                        + (text.hasPrefix("in:") ? "dialog" : text.hasPrefix("to:") ? "recipient" : "sender")),
                "\(text): \(refused.message)")
            #expect(refused.position == Array(text).count - second.count, "\(text)")
        }
        for text in [
            "from:user1 from:\"User 1\"", "from:user1 from:1", "sender_id in (user1, user2) from:user2",
            "from:user1 (from:user2 or refund)", "from:user1 or from:user2",
        ] {
            _ = try await ids(corpus, text)
        }
    }

    @Test func filterWordsWithoutColonAreRefusedWhenTheArchiveKnowsTheValue() async throws {
        let corpus = try await SearchCorpus.make(seed: 23, count: 50)
        defer { corpus.remove() }
        let user = try #require(try await error(corpus, "refund from user3"))
        #expect(user.message == "`from user3` would search for two words, but user3 (User 3, user 3) exists")
        #expect(user.hint?.hasPrefix("write from:user3 to filter by it") == true)
        #expect(user.position == 7 && user.length == 10)
        let name = try #require(corpus.entries.first { $0.dialog.name != nil }?.dialog.name)
        let dialog = try #require(try await error(corpus, "in \"\(name)\""))
        #expect(dialog.message.contains("exists"))
        // Words that name nothing are searched for, as typed.
        for text in ["money from mom", "i believe in you", "to be or nothing"] {
            await #expect(throws: Never.self) { try await corpus.archive.search(try Self.parser.parse(text)) }
        }
    }

    /// A first name, a surname, a typo of either, or the start of a name: the person of that name comes first
    /// among the nearest, before short logins a few letters away.
    @Test(arguments: [
        ("alice", "amartin (Alice Martin"), ("martin", "amartin (Alice Martin"), ("alise", "amartin (Alice Martin"),
        ("marti", "amartin (Alice Martin"), ("stone", "bob (Bob Stone"), ("keler", "akeller (Alicia Keller"),
        ("alicia", "akeller (Alicia Keller"), ("alx", "alex (Alex Chen"), ("chen", "alex (Alex Chen"),
        ("Ali Martin", "amartin (Alice Martin"),
    ])
    func theNearestNamesPutThePersonFirst(typed: String, first: String) async throws {
        let directory = NSTemporaryDirectory() + "qbarchive-names-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let archive = try SQLiteArchive.create(at: directory + "/a.sqlite")
        let people = [
            ("alex", "Alex Chen"), ("amartin", "Alice Martin"), ("bob", "Bob Stone"), ("akeller", "Alicia Keller"),
            ("al", nil), ("ali", "Al I"),
        ]
        let users = people.enumerated().map { index, person in
            User(id: index + 1, login: person.0, fullName: person.1, createdAt: 0, updatedAt: 0)
        }
        try await archive.storeUsers(rawItems: users.map(\.json), at: 1)
        do {
            _ = try await archive.search(try Self.parser.parse("from:\"\(typed)\""))
            Issue.record("from:\(typed) ran")
        } catch let error as QueryError {
            #expect(error.hint?.hasPrefix("the nearest are \(first)") == true, "\(typed): \(error.hint ?? "")")
        }
    }
}
