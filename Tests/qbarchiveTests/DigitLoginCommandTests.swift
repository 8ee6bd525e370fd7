import Archive
import ArchiveSQLite
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// `--user` (erase, hold add) and `--subject` (export) with logins made of digits (the built binary): bare digits
/// that only one reading matches are that person; digits that are one user's id and another's login are refused
/// with nothing changed, and `id:`/`login:` say which.
@Suite("qbarchive erase, hold, export: logins made of digits")
struct DigitLoginCommandTests {
    typealias F = ArchiveFixture

    /// Users 1 `ana`, 2 `447700900123` (a phone number as login) and 3 `1` (user 1's id as login); 30 messages,
    /// sent by 1 + n % 3.
    static func archive() async throws -> (F, String) {
        let fixture = try await F()
        let users = [(1, "ana"), (2, "447700900123"), (3, "1")]
        _ = try await fixture.archive.storeUsers(
            users.map { id, login in
                let user = User(id: id, login: login, fullName: nil, createdAt: F.baseTime, updatedAt: F.baseTime)
                return (user, user.json)
            }, observedAt: F.baseTime)
        try await fixture.write((1...30).map { F.message($0, text: "note \($0)", offset: $0) })
        try fixture.sqlite.close()
        return (fixture, fixture.directory.file("archive.sqlite"))
    }

    static func erased(_ archive: String, _ user: String) async throws -> (status: Int32, id: JSONValue?, err: String) {
        let run = try await CommandRunner.run([
            "erase", "--archive", archive, "--user", user, "--reason", "test", "--dry-run", "--json",
        ])
        return (run.status, run.status == 0 ? try JSONValue(parsing: run.stdout)["id"] : nil, run.stderr)
    }

    @Test func digitsNameOnePersonOrAreRefusedNamingBoth() async throws {
        let (fixture, archive) = try await Self.archive()
        _ = fixture
        // One reading only: the phone number is user 2's login, and no user has it as an id.
        #expect(try await Self.erased(archive, "447700900123").id == .string("2"))
        #expect(try await Self.erased(archive, "login:447700900123").id == .string("2"))
        #expect(try await Self.erased(archive, "2").id == .string("2"))
        #expect(try await Self.erased(archive, "ana").id == .string("1"))
        // Two readings: user 1 by id, user 3 by login. Refused, naming both; the prefixes choose.
        let both = try await Self.erased(archive, "1")
        #expect(both.status == 2)
        #expect(both.err.contains("--user 1 names two people: user 1 by id, and user 3 by login"), "\(both.err)")
        #expect(both.err.contains("--user id:1 or --user login:1"))
        #expect(try await Self.erased(archive, "id:1").id == .string("1"))
        #expect(try await Self.erased(archive, "login:1").id == .string("3"))
        // Prefixes that name nothing, or no number.
        #expect(try await Self.erased(archive, "login:447700900999").status == 14)
        #expect(try await Self.erased(archive, "id:447700900123").status == 14)
        #expect(try await Self.erased(archive, "id:ana").status == 2)

        // A real erasure refused for two readings changes nothing.
        let refused = try await CommandRunner.run(["erase", "--archive", archive, "--user", "1", "--reason", "t"])
        #expect(refused.status == 2)
        let search = try await CommandRunner.run(["search", "--archive", archive, "--count", "--json", "note"])
        #expect(search.status == 0, "\(search.stderr)")
        #expect(try JSONValue(parsing: search.stdout)["total"] == .int(30))

        // A hold on the phone number keeps user 2; on "1", refused with nothing recorded.
        let held = try await CommandRunner.run([
            "hold", "add", "--archive", archive, "--user", "447700900123", "--reason", "case 1",
        ])
        #expect(held.status == 0, "\(held.stderr)")
        let ambiguous = try await CommandRunner.run([
            "hold", "add", "--archive", archive, "--user", "1", "--reason", "case 2",
        ])
        #expect(ambiguous.status == 2 && ambiguous.stderr.contains("names two people"), "\(ambiguous.stderr)")
        let list = try await CommandRunner.run(["hold", "list", "--archive", archive, "--json"])
        let holds = try JSONValue(parsing: list.stdout).arrayValue ?? []
        #expect(holds.count == 1 && holds.first?["target"] == .string("2"), "\(list.stdout)")
        #expect(holds.first?["messages_kept"]?.lenientInt == 10)

        // A subject-access export the same way.
        let subject = try await CommandRunner.run([
            "export", "--archive", archive, "--subject", "1", "--format", "jsonl", "--out", "-",
        ])
        #expect(subject.status == 2 && subject.stderr.contains("--subject id:1 or --subject login:1"))
        let phone = try await CommandRunner.run([
            "export", "--archive", archive, "--subject", "447700900123", "--format", "jsonl", "--out", "-",
        ])
        #expect(phone.status == 0, "\(phone.stderr)")
    }
}
