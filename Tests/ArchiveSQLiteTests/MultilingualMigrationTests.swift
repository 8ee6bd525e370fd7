import ArchiveTestSupport
import Foundation
import GRDB
import QueryLanguage
import QuickBlox
import Synchronization
import Testing

@testable import ArchiveSQLite

/// Migration v7-multilingual-words on an archive an earlier qbarchive made: both indexes rebuilt by the new
/// rules with progress, every message kept, words in every script found afterwards, the storage sound.
@Suite("Upgrading an archive to the multilingual indexes")
struct MultilingualMigrationTests {
    @Test func theRebuildKeepsEveryMessageAndFindsEveryScript() async throws {
        let directory = NSTemporaryDirectory() + "qbarchive-v7-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/old.sqlite"
        let count = 45_000
        try OlderArchive.make(at: path, count: count)
        let reports = Mutex<[UpgradeProgress]>([])
        let archive = try SQLiteArchive.open(at: path) { progress in reports.withLock { $0.append(progress) } }
        let seen = reports.withLock { $0 }
        #expect(Set(seen.map(\.step)).count == 2, "one step per index")
        #expect(seen.allSatisfy { $0.total == count })
        #expect(seen.filter { $0.done == count }.count == 2)
        #expect(seen.count > 4, "progress along the way, every 20,000 messages")
        #expect(try await archive.counts().messages == count)
        #expect(try await archive.integrityProblems() == [])
        let parser = QueryParser(now: 1_800_000_000)
        let perText = count / OlderArchive.texts.count
        for (query, expected) in [
            ("北京", perText), ("ελλαδα", perText), ("ελλαδασ", perText), ("istanbul", perText), ("strasse", perText),
            ("كتاب", perText), ("جديد", perText), ("🎉", perText), ("café", perText), ("message ctn \"ΛΆΔ\"", perText),
            ("words", perText),
        ] {
            let found = try await archive.count(try parser.parse(query))
            #expect(abs(found - expected) <= 1, "\(query): \(found)")
        }
        // The newest page of a common word comes from the word index's date order.
        let page = try await archive.search(try parser.parse("words"), options: SearchOptions(limit: 5))
        let dates = page.map(\.message.dateSent)
        #expect(dates == dates.sorted(by: >) && dates.count == 5)
        let newest = try await archive.search(
            try parser.parse("date > 2000-01-01 message ctn \"words\""), options: SearchOptions(limit: 5))
        #expect(page.map(\.message.id) == newest.map(\.message.id))
    }

    @Test func aReadOnlyOpenUpgradesAWritableArchiveFirst() async throws {
        let directory = NSTemporaryDirectory() + "qbarchive-v7-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/old.sqlite"
        try OlderArchive.make(at: path, count: 500)
        let reader = try SQLiteArchive.openReadOnly(at: path)
        #expect(try await reader.count(try QueryParser(now: 0).parse("北京")) > 0)
    }
}
