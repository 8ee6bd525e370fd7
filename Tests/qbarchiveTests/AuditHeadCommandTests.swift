import Foundation
import GRDB
import QuickBlox
import Testing

/// Removing the newest audit entries leaves a whole, shorter chain: `audit verify --expect-head` with a head
/// recorded earlier says so (the built binary).
@Suite("qbarchive audit verify --expect-head: the newest entries cannot go unnoticed")
struct AuditHeadCommandTests {
    static func head(_ archive: String) async throws -> String {
        let run = try await CommandRunner.run(["audit", "verify", "--archive", archive, "--json"])
        #expect(run.status == 0, "\(run)")
        return try #require(try JSONValue(parsing: run.stdout)["head"]?.stringValue)
    }

    @Test func aRecordedHeadCatchesATruncatedLog() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            for reason in ["case 1", "case 2", "case 3"] {
                let add = try await CommandRunner.run(
                    ["hold", "add", "--archive", archive, "--reason", reason, "--query", "refund"])
                #expect(add.status == 0, "\(add)")
                if reason == "case 1" { _ = try await Self.head(archive) }
            }
            let middle = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
            let hashes = middle.stdout.split(separator: "\n").compactMap {
                try? JSONValue(parsing: String($0))["hash"]?.stringValue
            }
            try #require(hashes.count >= 3)
            let recorded = hashes[hashes.count - 2]  // the second-newest entry's head, as a monitor kept it
            for given in [recorded, String(recorded.prefix(16)), recorded.uppercased()] {
                let fine = try await CommandRunner.run(
                    ["audit", "verify", "--archive", archive, "--expect-head", given])
                #expect(fine.status == 0 && fine.stdout.contains("1 after it"), "\(fine)")
            }
            // The newest two entries removed (the append-only trigger dropped first, as someone editing would).
            let database = try DatabaseQueue(path: archive)
            try await database.write { db in
                try db.execute(sql: "DROP TRIGGER audit_log_append_only_delete")
                try db.execute(sql: "DELETE FROM audit_log WHERE id >= (SELECT MAX(id) - 1 FROM audit_log)")
            }
            try database.close()
            let plain = try await CommandRunner.run(["audit", "verify", "--archive", archive])
            #expect(plain.status == 0, "a shorter chain is whole: \(plain)")
            let caught = try await CommandRunner.run(
                ["audit", "verify", "--archive", archive, "--expect-head", String(recorded.prefix(16)), "--json"])
            #expect(caught.status == 20 && caught.stderr.contains("audit log SHORTENED"), "\(caught)")
            #expect(try JSONValue(parsing: caught.stdout)["expected_head_found"] == .bool(false))
            for bad in ["abc", "zz" + String(repeating: "0", count: 20), String(repeating: "0", count: 65)] {
                let refused = try await CommandRunner.run([
                    "audit", "verify", "--archive", archive, "--expect-head", bad,
                ])
                #expect(refused.status == 2, "\(bad): \(refused)")
            }
        }
    }
}
