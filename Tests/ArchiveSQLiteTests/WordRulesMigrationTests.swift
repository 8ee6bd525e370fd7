import ArchiveTestSupport
import Foundation
import GRDB
import QueryLanguage
import QuickBlox
import Synchronization
import Testing

@testable import ArchiveSQLite

/// Migration v11-word-rules-2 on an archive whose word index the first rules made: rebuilt, with progress, so that
/// digits of scripts written without spaces and words with invisible format characters are found; an index
/// already made by the second rules is kept.
@Suite("Upgrading an archive to the second word rules")
struct WordRulesMigrationTests {
    typealias F = ArchiveFixture

    static let texts = [
        "ปี ๒๐๒๔", "ราคา๕๐๐บาท", "infor\u{AD}mation desk", "pass\u{2060}word reset", "year 2024", "ឆ្នាំ ២០២៤",
        "plain words",
    ]

    @Test func anIndexOfTheFirstRulesIsRebuilt() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.sqlite")
        let old = try SQLiteArchive.create(at: path, migratedUpTo: "v10-stats-rollups", now: F.baseTime)
        _ = try await old.storeDialogs(rawItems: [F.dialog(F.dialogID).json], at: F.baseTime)
        let messages = Self.texts.enumerated().map { F.message($0.offset + 1, text: $0.element, offset: $0.offset) }
        _ = try await old.storeMessages(
            dialogID: F.dialogID, rawItems: messages.map(\.json), cursor: nil, at: F.baseTime)
        // The word index as the first rules left it: declared version 1, its tokens those rules' (here: none of
        // these texts' — what matters is that the second rules' tokens are not there until the rebuild).
        try await old.pool.write { db in
            try db.execute(sql: "DROP TABLE message_words")
            try db.execute(
                sql: SQLiteArchive.createWordIndex.replacingOccurrences(
                    of: "'qbarchive_words \(WordIndexTokenizer.version)'", with: "'qbarchive_words 1'"))
        }
        try old.close()

        let reports = Mutex<[UpgradeProgress]>([])
        let archive = try SQLiteArchive.open(at: path) { progress in reports.withLock { $0.append(progress) } }
        #expect(reports.withLock { $0 }.contains { $0.step == "rebuilding the word index for every script" })
        let declared = try await archive.pool.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'message_words'") ?? ""
        }
        #expect(declared.contains("tokenize='qbarchive_words 2'"))
        #expect(try await archive.integrityProblems() == [])
        let parser = QueryParser(now: F.baseTime)
        for (query, expected) in [
            ("2024", [1, 5, 6]), ("๒๐๒๔", [1, 5, 6]), ("500", [2]), ("information", [3]), ("password", [4]),
            ("words", [7]), ("infor", []),
        ] {
            let hits = try await archive.search(try parser.parse(query), options: SearchOptions(limit: 50))
            #expect(Set(hits.map(\.message.id)) == Set(expected.map(F.objectID)), "\(query)")
        }
        try archive.close()

        // Opened again: nothing left to do.
        let again = Mutex<[UpgradeProgress]>([])
        try SQLiteArchive.open(at: path) { progress in again.withLock { $0.append(progress) } }.close()
        #expect(again.withLock { $0 }.isEmpty)
    }

    @Test func anIndexTheSecondRulesMadeIsKept() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("new.sqlite")
        let archive = try SQLiteArchive.create(at: path, migratedUpTo: "v10-stats-rollups", now: F.baseTime)
        _ = try await archive.storeDialogs(rawItems: [F.dialog(F.dialogID).json], at: F.baseTime)
        _ = try await archive.storeMessages(
            dialogID: F.dialogID, rawItems: [F.message(1, text: "ปี ๒๐๒๔").json], cursor: nil, at: F.baseTime)
        try archive.close()
        let reports = Mutex<[UpgradeProgress]>([])
        let reopened = try SQLiteArchive.open(at: path) { progress in reports.withLock { $0.append(progress) } }
        #expect(reports.withLock { $0 }.isEmpty, "v7 made it with these rules: no rebuild")
        #expect(try await reopened.count(try QueryParser(now: F.baseTime).parse("2024")) == 1)
        try reopened.close()
    }
}
