import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// Erasure, legal holds and retention with the same expectations on every backend: what an erasure leaves
/// is found by no search and no export, skeletons stay, and the register and audit entries are the same.
@Suite("Erasure, holds and retention on every backend")
struct ErasureConformanceTests {
    typealias F = ArchiveFixture

    /// Nine messages from senders 1 + n % 3 with distinct words; message 4 (sender 2) edited once, so it has a
    /// revision; message 7 (sender 2) names an attachment file.
    static func filled(_ backend: TestBackend) async throws -> F {
        let fixture = try await F(backend: backend)
        try await fixture.write(
            (1...9).map { n in
                F.message(
                    n, text: "common Geheimnis\(n) Straße\(n)", offset: n,
                    attachments: n == 7 ? [Attachment(type: "image", id: "blob7", uid: "uid7", name: "p.png")] : [])
            })
        try await fixture.write(
            [F.message(4, text: "common edited Geheimnis4 Straße4", offset: 4, updatedAt: F.baseTime + 50)],
            at: F.baseTime + 50)
        try await fixture.write(
            (10...12).map { F.message($0, text: "other Geheimnis\($0)", offset: $0, dialogID: F.otherDialogID) },
            dialogID: F.otherDialogID)
        return fixture
    }

    static let targets: [ErasureTarget] = [
        .user("2"), .message(id: F.objectID(5)), .dialog(id: F.otherDialogID),
        .sentBefore(F.baseTime + 3, keeping: [F.objectID(1)]),
    ]

    /// Caches of derived figures (the served dashboard's) are keyed by the change marker: an erasure or a
    /// retention purge, made outside any crawl run, must move it, or an erased person's figures and login stay
    /// on screen until the next crawl. A dry run changes nothing and moves nothing.
    @Test(arguments: TestBackend.all, [0, 1, 2, 3])
    func everyErasureMovesTheChangeMarker(backend: TestBackend, which: Int) async throws {
        let fixture = try await Self.filled(backend)
        let before = try await fixture.archive.changeMarker()
        _ = try await fixture.archive.erase(Self.targets[which], reason: "case 1", dryRun: true, at: F.baseTime + 100)
        #expect(try await fixture.archive.changeMarker() == before)
        _ = try await fixture.archive.erase(Self.targets[which], reason: "case 1", dryRun: false, at: F.baseTime + 100)
        let erased = try await fixture.archive.changeMarker()
        #expect(erased != before)
        _ = try await fixture.archive.erase(
            .message(id: F.objectID(9)), reason: "case 2", dryRun: false, at: F.baseTime + 200)
        #expect(try await fixture.archive.changeMarker() != erased)
    }

    @Test(arguments: TestBackend.all, [0, 1, 2, 3])
    func nothingErasedIsFoundOrExportedAndSkeletonsStay(backend: TestBackend, which: Int) async throws {
        let target = Self.targets[which]
        let fixture = try await Self.filled(backend)
        let before = try await fixture.streamed()
        let report = try await fixture.archive.erase(target, reason: "case 1", dryRun: false, at: F.baseTime + 100)
        let erased = before.filter { hit in
            switch target {
            case .user: hit.message.senderID == 2
            case .message(let id): hit.message.id == id
            case .dialog(let id): hit.message.dialogID == id
            case .sentBefore: hit.message.dateSent < F.baseTime + 3 && hit.message.id != F.objectID(1)
            }
        }
        #expect(report.messages == erased.count && !erased.isEmpty)
        let after = try await fixture.streamed()
        #expect(after.map(\.message.id).sorted() == before.map(\.message.id).sorted(), "skeletons stay")
        for hit in erased {
            let number = Int(hit.message.id, radix: 16) ?? 0
            for query in [
                "Geheimnis\(number)", "\"Geheimnis\(number) Straße\(number)\"", "Geheimnis\(number)*",
                "message ctn \"eimnis\(number)\"", "message ctn \"strasse\(number)\"",
                "message ctn \"STRASSE\(number)\"",
            ] {
                #expect(try await !fixture.find(query).contains(hit.message.id), "\(backend) \(query)")
            }
            let exported = after.first { $0.message.id == hit.message.id }
            #expect(exported?.message.text == nil)
            #expect(exported?.message.raw.contains("\"erased\":true") == true)
            #expect(exported?.message.raw.contains("Geheimnis") == false)
            #expect(exported?.message.attachmentsJSON == "[]")
            #expect(try await fixture.archive.messageHistory(id: hit.message.id)?.revisions.isEmpty ?? true)
        }
        if case .user = target { #expect(report.pseudonym?.hasPrefix("erased-") == true) }
        let kept = before.filter { hit in !erased.contains { $0.message.id == hit.message.id } }
        for hit in kept {
            let number = Int(hit.message.id, radix: 16) ?? 0
            #expect(try await fixture.find("Geheimnis\(number)").contains(hit.message.id), "\(backend) kept")
            #expect(
                try await fixture.find("message ctn \"eimnis\(number)\"").contains(hit.message.id),
                "\(backend) kept ctn")
        }
        let revisions = try await fixture.archive.withSnapshot { snapshot in
            var all: [MessageRevision] = []
            for try await batch in snapshot.revisions(matching: nil) { all += batch.items }
            return all
        }
        #expect(!revisions.contains { rev in erased.contains { $0.message.id == rev.messageID } })
        #expect(try await fixture.backend.problems(fixture.archive).isEmpty)
    }

    /// The same input gives the same report, the same audit entries (hashes included) and the same stored
    /// skeletons and pseudonyms on every backend.
    @Test func registerAndAuditEntriesAreTheSameOnEveryBackend() async throws {
        var reports: [[ErasureReport]] = []
        var audits: [[String]] = []
        var exports: [[String]] = []
        for backend in TestBackend.all {
            let fixture = try await Self.filled(backend)
            var made: [ErasureReport] = []
            let hold = try await fixture.archive.addHold(kind: .user, target: "3", reason: "case 2", at: F.baseTime)
            for target in Self.targets {
                var report = try await fixture.archive.erase(target, reason: "r", dryRun: false, at: F.baseTime + 9)
                report.pseudonym = report.pseudonym.map { _ in "p" }  // the archive's id differs
                made.append(report)
            }
            _ = try await fixture.archive.releaseHold(id: hold.id, reason: "closed", at: F.baseTime + 10)
            reports.append(made)
            audits.append(try await fixture.archive.auditEntries().map { "\($0.at) \($0.action) \($0.detail)" })
            exports.append(
                try await fixture.streamed().map { "\($0.message.id) \($0.message.text ?? "-") \($0.message.raw)" })
        }
        #expect(reports.allSatisfy { $0 == reports[0] }, "\(reports)")
        #expect(audits.allSatisfy { $0 == audits[0] }, "\(audits)")
        #expect(exports.allSatisfy { $0 == exports[0] }, "\(exports)")
    }

    /// A hold placed after the caller's check is seen inside the erasure's transaction; a dry run changes
    /// nothing; retention erases only what is older than the cutoff and not kept.
    @Test(arguments: TestBackend.all) func holdsDryRunsAndRetention(backend: TestBackend) async throws {
        let fixture = try await Self.filled(backend)
        let seen = try await fixture.archive.holds().map(\.id).max() ?? 0
        let hold = try await fixture.archive.addHold(kind: .user, target: "2", reason: "case 9", at: F.baseTime)
        await #expect(throws: ArchiveError.holdPlacedMeanwhile(hold.id)) {
            try await fixture.archive.erase(.user("2"), reason: nil, dryRun: false, holdsSeen: seen, at: F.baseTime)
        }
        #expect(try await fixture.find("common").count == 9)
        let before = try await fixture.streamed()
        let auditBefore = try await fixture.archive.auditEntries()
        let dry = try await fixture.archive.erase(.user("1"), reason: nil, dryRun: true, at: F.baseTime + 1)
        #expect(dry.dryRun && dry.messages == before.filter { $0.message.senderID == 1 }.count && dry.messages > 0)
        #expect(try await fixture.streamed() == before)
        #expect(try await fixture.archive.auditEntries() == auditBefore)
        let retention = try await fixture.archive.erase(
            .sentBefore(F.baseTime + 6, keeping: [F.objectID(4)]), reason: "retention", dryRun: false,
            at: F.baseTime + 100)
        #expect(retention.messages == 4 && retention.kept == 1)
        let texts = Dictionary(
            uniqueKeysWithValues: try await fixture.streamed().map { ($0.message.id, $0.message.text) })
        for n in 1...12 {
            let gone = n < 6 && n != 4
            #expect((texts[F.objectID(n)] ?? nil == nil) == gone, "\(backend) message \(n)")
        }
        let released = try await fixture.archive.releaseHold(id: hold.id, reason: "closed", at: F.baseTime + 200)
        #expect(released?.releasedAt == F.baseTime + 200 && released?.releaseReason == "closed")
        #expect(try await fixture.archive.releaseHold(id: hold.id, reason: "again", at: F.baseTime + 201) == nil)
        #expect(try await fixture.archive.holds().first?.isActive == false)
        #expect(try await fixture.archive.auditEntries().suffix(3).map(\.action) == ["hold", "erase", "hold_release"])
    }

    /// An import-like return of erased records is erased again by the register.
    @Test(arguments: TestBackend.all) func reapplyingTheRegisterErasesWhatCameBack(backend: TestBackend) async throws {
        let fixture = try await Self.filled(backend)
        _ = try await fixture.archive.erase(.message(id: F.objectID(5)), reason: nil, dryRun: false, at: F.baseTime)
        #expect(try await fixture.archive.reapplyErasures(keeping: [], at: F.baseTime + 1) == 0)
        // Erasing a dialog erases its messages; nothing of it comes back here, so re-applying finds nothing new.
        #expect(try await fixture.archive.purgeErased() == false)
        #expect(try await fixture.find("Geheimnis5").isEmpty)
    }
}
