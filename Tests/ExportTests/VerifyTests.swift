import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import ArchiveSQLite
@testable import Export

@Suite("verify: corruption, signatures and the audit log")
struct VerifyTests {
    /// A small bundle: one dialog's messages.
    static func smallBundle(_ fixture: ExportFixture, _ container: ContainerFormat, sign: String? = nil) async throws
        -> String
    {
        let dialog = try await ExportReading.archived(fixture.archive).first?.message.dialogID
        let selection = try ExportSelection(whereText: nil, dialogID: dialog, since: nil, until: nil, now: 0)
        let path = fixture.path("small.\(container.fileExtension)")
        _ = try await BundleExport(selection: selection, container: container, signingKeyPath: sign, toolVersion: "t")
            .run(archive: fixture.archive, to: path)
        return path
    }

    @Test(arguments: ContainerFormat.allCases)
    func everySingleByteFlipFailsVerification(container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make(messages: 60, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let path = try await Self.smallBundle(fixture, container)
        try FileManager.default.removeItem(atPath: path + ".sha256")  // the container itself must tell
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try BundleVerifier().verify(path: path).canonical)
        let damaged = fixture.path("damaged")
        var undetected: [Int] = []
        for offset in 0..<original.count {
            var bytes = original
            bytes[offset] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: damaged))
            do {
                _ = try BundleVerifier().verify(path: damaged)
                undetected.append(offset)
            } catch is BundleProblem {
            } catch {
                Issue.record("offset \(offset): \(error) is not a BundleProblem")
            }
        }
        #expect(undetected.isEmpty, "\(original.count) bytes; undetected flips at \(undetected.prefix(20))")
    }

    @Test func theChecksumFileCatchesAnyChangeFirst() async throws {
        let fixture = try await ExportFixture.make(messages: 60, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let path = try await Self.smallBundle(fixture, .tarGz)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 1
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(
            throws: BundleProblem(file: "small.tar.gz", reason: "does not match its checksum file small.tar.gz.sha256")
        ) {
            try BundleVerifier().verify(path: path)
        }
    }

    @Test func signedBundlesVerifyOnlyWithTheirKey() async throws {
        let fixture = try await ExportFixture.make(messages: 60, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let key = fixture.path("compliance")
        let fingerprint = try SigningKey.generate(at: key)
        #expect(throws: ExportError.self) { try SigningKey.generate(at: key) }  // never overwritten
        let attributes = try FileManager.default.attributesOfItem(atPath: key)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let path = try await Self.smallBundle(fixture, .zip, sign: key)
        let report = try BundleVerifier(publicKeyPath: key + ".pub").verify(path: path)
        #expect(report.signer == fingerprint)
        _ = try SigningKey.generate(at: fixture.path("other"))
        #expect(throws: BundleProblem.self) {
            try BundleVerifier(publicKeyPath: fixture.path("other.pub")).verify(path: path)
        }
        let unsigned = try await Self.smallBundle(fixture, .tarGz)
        #expect(throws: BundleProblem(file: "manifest.sig", reason: "is missing: the bundle is not signed")) {
            try BundleVerifier(publicKeyPath: key + ".pub").verify(path: unsigned)
        }
        // A private key file where a public one belongs is refused.
        #expect(throws: ExportError.self) { try BundleVerifier(publicKeyPath: key).verify(path: path) }
    }

    @Test func exportsAreRecordedInAHashChainedAuditLog() async throws {
        let fixture = try await ExportFixture.make(messages: 60, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let job = ExportJob(
            format: .jsonl,
            selection: try ExportSelection(whereText: "hello", dialogID: nil, since: nil, until: nil, now: 0),
            version: "t")
        let result = try await job.run(archive: fixture.archive, path: fixture.path("hello.jsonl"))
        #expect(await job.audit(result, archive: fixture.archive, path: fixture.path("hello.jsonl"), at: 5))
        #expect(await job.audit(result, archive: fixture.archive, path: "again", at: 6))
        let entries = try await fixture.archive.auditEntries()
        #expect(entries.map(\.action) == ["export", "export"])
        let detail = try JSONValue(parsing: entries[0].detail)
        #expect(detail["sha256"] == .string(result.sha256) && detail["where"] == "hello")
        #expect(try await fixture.archive.firstBrokenAuditEntry() == nil)
        // The table refuses changes; a forged row breaks the chain.
        #expect(throws: SQLiteSurgery.SurgeryFailed.self) {
            try SQLiteSurgery.run(fixture.sqlite.path, "DELETE FROM audit_log")
        }
        try SQLiteSurgery.run(
            fixture.sqlite.path,
            "INSERT INTO audit_log (at, action, detail, previous_hash, hash) VALUES (7, 'export', '{}', NULL, x'00')")
        #expect(try await fixture.archive.firstBrokenAuditEntry()?.at == 7)
    }

    @Test func aFailedExportLeavesNothingUnderTheFinalName() async throws {
        let fixture = try await ExportFixture.make(messages: 60, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let path = fixture.path("never.jsonl")
        let file = try OutputFile(path: path)
        try file.write("half a line")
        file.discard()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).allSatisfy {
                !$0.hasPrefix(".")
            })
        let bad = try ExportSelection(whereText: "from:nobody", dialogID: nil, since: nil, until: nil, now: 0)
        await #expect(throws: (any Error).self) {
            try await BundleExport(selection: bad, toolVersion: "t").run(
                archive: fixture.archive, to: fixture.path("b.tar.gz"))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
        #expect(left.allSatisfy { !$0.hasPrefix(".") && !$0.hasPrefix("b.tar.gz") }, "\(left)")
    }
}
