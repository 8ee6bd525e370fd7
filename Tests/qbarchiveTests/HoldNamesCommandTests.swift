import Archive
import Foundation
import GRDB
import QuickBlox
import Testing

/// A query hold keeps what its names meant when it was placed (the built binary): names are pinned to ids, so a
/// dialog renamed on the server — and another given its old name — or a login that changes moves nothing; a hold
/// that cannot say what it keeps stops every erasure, naming itself, and is still listed.
@Suite("qbarchive hold: names in a query hold are pinned to ids when it is placed")
struct HoldNamesCommandTests {
    static func kept(_ archive: String) async throws -> [Int?] {
        let list = try await CommandRunner.run(["hold", "list", "--archive", archive, "--json"])
        return try JSONValue(parsing: list.stdout).arrayValue?.map { $0["messages_kept"]?.lenientInt } ?? []
    }

    @Test func renamedDialogsAndChangedLoginsMoveNothingAHoldKeeps() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let database = try DatabaseQueue(path: archive)
            let named = try await database.read { db in
                try Row.fetchAll(db, sql: "SELECT id, name FROM dialogs WHERE name IS NOT NULL ORDER BY id LIMIT 2")
                    .map { ($0["id"] as String, $0["name"] as String) }
            }
            try #require(named.count == 2)
            let (held, heldName) = named[0]
            let (other, _) = named[1]
            let user = try #require(
                try await database.read { db in
                    try Row.fetchOne(
                        db, sql: "SELECT id, login FROM users WHERE login IS NOT NULL ORDER BY id LIMIT 1")
                }.map { ($0["id"] as Int, $0["login"] as String) })
            try database.close()
            let before = try await HoldRetainCommandTests.messages(archive)
            let inDialog = before.filter { $0.value.dialog == held }.map(\.key)
            let fromUser = before.filter { $0.value.sender == user.0 }.map(\.key)
            try #require(!inDialog.isEmpty && !fromUser.isEmpty)

            for (query, pinned) in [
                ("in:\"\(heldName)\"", "(dialog in (\"\(held)\"))"), ("from:\(user.1)", "(sender_id in (\(user.0)))"),
                ("-from:\(user.1) in:\"\(heldName)\"", "-(sender_id in (\(user.0))) (dialog in (\"\(held)\"))"),
            ] {
                let add = try await CommandRunner.run(
                    ["hold", "add", "--archive", archive, "--reason", "case 7", "--query=\(query)", "--json"])
                #expect(add.status == 0, "\(add)")
                #expect(try JSONValue(parsing: add.stdout)["target"] == .string(pinned), "\(add.stdout)")
            }
            let keptBefore = try await Self.kept(archive)
            #expect(keptBefore.count == 3 && keptBefore.allSatisfy { ($0 ?? 0) > 0 })

            // The held dialog renamed, the other given its name; the user's login changed.
            let writer = try DatabaseQueue(path: archive)
            try await writer.write { db in
                try db.execute(sql: "UPDATE dialogs SET name = 'Renamed' WHERE id = ?", arguments: [held])
                try db.execute(sql: "UPDATE dialogs SET name = ? WHERE id = ?", arguments: [heldName, other])
                try db.execute(sql: "UPDATE users SET login = 'someone-else' WHERE id = ?", arguments: [user.0])
            }
            try writer.close()
            #expect(try await Self.kept(archive) == keptBefore)
            for id in [inDialog[0], fromUser[0]] {
                let erase = try await CommandRunner.run(["erase", "--archive", archive, "--message", id, "--dry-run"])
                #expect(erase.status == 15 && erase.stderr.contains("legal hold #"), "\(erase)")
            }
        }
    }

    @Test func aHoldThatCannotSayWhatItKeepsStopsErasureAndIsListed() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            // An unknown numeric id is refused like an unknown login, and no hold is recorded.
            for user in ["999999", "no-such-login"] {
                let add = try await CommandRunner.run(
                    ["hold", "add", "--archive", archive, "--reason", "case 8", "--user", user])
                #expect(add.status == 14 && add.stderr.contains("holds no user"), "\(add)")
            }
            for reason in ["", "   "] {
                let release = try await CommandRunner.run([
                    "hold", "release", "1", "--archive", archive, "--reason", reason,
                ])
                #expect(release.status == 2 && release.stderr.contains("--reason must say why"), "\(release)")
            }
            let none = try await CommandRunner.run(["hold", "list", "--archive", archive, "--all"])
            #expect(none.status == 0 && none.stdout.contains("no legal hold"), "\(none)")

            // A hold placed before names were pinned, whose name no longer resolves.
            let writer = try DatabaseQueue(path: archive)
            try await writer.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO holds (kind, target, reason, created_at) VALUES ('query', 'from:gone-login', 'x', 1)"
                )
            }
            try writer.close()
            let list = try await CommandRunner.run(["hold", "list", "--archive", archive])
            #expect(list.status == 15 && list.stdout.contains("#1 query from:gone-login"), "\(list)")
            #expect(list.stdout.contains("CANNOT SAY WHAT IT KEEPS"), "\(list)")
            let json = try await CommandRunner.run(["hold", "list", "--archive", archive, "--json"])
            let entry = try #require(try JSONValue(parsing: json.stdout).arrayValue?.first)
            #expect(entry["messages_kept"] == .null && entry["problem"]?.stringValue?.contains("gone-login") == true)
            let message = try #require(try await HoldRetainCommandTests.messages(archive).keys.first)
            for command in [["erase", "--message", message], ["retain", "--older-than", "1d", "--apply"]] {
                let run = try await CommandRunner.run(command + ["--archive", archive])
                #expect(run.status == 15 && run.stderr.contains("hold #1 (query from:gone-login)"), "\(run)")
            }
            #expect(try await HoldRetainCommandTests.messages(archive)[message] != nil)
        }
    }
}
