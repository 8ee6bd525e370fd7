import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

/// QuickBlox deletes per user unless the owner forces it (reference §8). Through the built binary: a message
/// or dialog one user removed for themselves is kept (hidden for them), one deleted for everyone becomes a
/// tombstone with its evidence, and user scope never claims more than one view proves.
@Suite("qbarchive crawl: per-user deletion (the built binary)")
struct PerUserDeletionCommandTests {
    static let apiKey = "deletion-test-key"

    struct World: Sendable {
        var emulator: Emulator
        var hooks: any TestClientProtocol
        var environment: [String: String]
        var directory: URL

        /// `DELETE` as `user` (API key + On-Behalf-Of), without or with `force=1`.
        func delete(_ path: String, as user: Int, force: Bool = false) async throws {
            var headers = HTTPFields()
            headers[.authorization] = "ApiKey \(PerUserDeletionCommandTests.apiKey)"
            headers[HTTPField.Name("On-Behalf-Of")!] = String(user)
            let response = try await hooks.execute(
                uri: path + (force ? "?force=1" : ""), method: .delete, headers: headers, body: nil)
            #expect(response.status == .ok, "\(path) as \(user): \(String(buffer: response.body))")
        }

        func crawl(_ archive: String, scope: String, _ extra: [String] = []) async throws -> CommandRunner.Result {
            try await CommandRunner.run(
                ["crawl", "--archive", archive, "--scope", scope] + extra, environment: environment)
        }
    }

    static func run(
        _ configure: @Sendable (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: @Sendable (World) async throws -> Void
    ) async throws {
        var configuration = EmulatorConfiguration()
        configuration.seed = 33
        configuration.users = 6
        configuration.dialogs = 14
        configuration.messages = 1200
        configuration.apiKey = apiKey
        configure(&configuration)
        let emulator = try Emulator(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("deletion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "deletion-cli-test")
        logger.logLevel = .critical
        try await emulator.buildApplication(logger: logger).test(.live) { hooks in
            let environment = [
                "QB_ENDPOINT": "http://localhost:\(hooks.port!)", "QB_APP_ID": "1", "QB_AUTH_KEY": "emulator-auth-key",
                "QB_AUTH_SECRET": "emulator-auth-secret", "QB_LOGIN": "user1", "QB_PASSWORD": "password1",
                "QB_API_KEY": apiKey,
            ]
            try await body(World(emulator: emulator, hooks: hooks, environment: environment, directory: directory))
        }
    }

    /// The truth's dialogs and messages, with who still sees each.
    struct Truth {
        var dialogs: [String: (dialog: Dialog, visibleTo: [Int]?)] = [:]
        var messages: [String: (message: Message, visibleTo: [Int]?)] = [:]

        init(_ emulator: Emulator) async throws {
            for line in await emulator.truthLines() {
                let json = try JSONValue(parsing: line)
                guard let record = json["record"] else { continue }
                let visibleTo = json["visible_to"]?.arrayValue?.compactMap(\.lenientInt)
                if json["kind"] == "dialog" {
                    dialogs[try Dialog(json: record).id] = (try Dialog(json: record), visibleTo)
                } else if json["kind"] == "message" {
                    messages[try Message(json: record).id] = (try Message(json: record), visibleTo)
                }
            }
        }

        /// Messages some user can still read: their dialog and they are not hidden from everyone.
        var visibleToSomeone: Set<String> {
            Set(
                messages.filter { _, entry in
                    entry.visibleTo?.isEmpty != true && dialogs[entry.message.chatDialogID]?.visibleTo?.isEmpty != true
                }.keys)
        }
    }

    static func archived(_ path: String) async throws -> [String: ArchivedMessageFacts] {
        let archive = try SQLiteArchive.open(at: path)
        var result: [String: ArchivedMessageFacts] = [:]
        for summary in try await archive.dialogSummaries(limit: 10_000, offset: 0) {
            for message in try await archive.messages(dialogID: summary.id) {
                result[message.id] = ArchivedMessageFacts(
                    dialogDeleted: summary.deletedAt != nil, deleted: message.deletedAt != nil,
                    hiddenFor: Set(message.hiddenFor.map(\.user)), evidence: message.deletionEvidence)
            }
        }
        return result
    }

    struct ArchivedMessageFacts: Sendable {
        var dialogDeleted: Bool
        var deleted: Bool
        var hiddenFor: Set<Int>
        var evidence: String?
        var live: Bool { !dialogDeleted && !deleted }
    }

    @Test(
        "A hides, B still sees: app scope keeps it hidden for A; a force delete is a tombstone; user scope never tombstones"
    )
    func messagesAndDialogs() async throws {
        try await Self.run { world in
            let app = world.directory.appendingPathComponent("app.sqlite").path
            let mine = world.directory.appendingPathComponent("user1.sqlite").path
            #expect(try await world.crawl(app, scope: "app").status == 0)
            #expect(try await world.crawl(mine, scope: "user").status == 0)

            let truth = try await Truth(world.emulator)
            // A group that user1 (100001) is in with at least two others, and messages by others in it.
            let dialogs: [Dialog] = truth.dialogs.values.map(\.dialog).sorted { $0.id < $1.id }
            let groups: [Dialog] = dialogs.filter { dialog in
                dialog.type == .group && dialog.occupantIDs.contains(100_001) && dialog.occupantIDs.count >= 3
            }
            let group = try #require(groups.first)
            let all: [Message] = truth.messages.values.map(\.message)
            let inGroup: [Message] = all.filter { $0.chatDialogID == group.id }.sorted { $0.id < $1.id }
            let other = try #require(group.occupantIDs.first { $0 != 100_001 && $0 != group.userID })
            let hiddenByMe = try #require(inGroup.first { $0.senderID != 100_001 })
            let hiddenByOther = try #require(inGroup.first { $0.id != hiddenByMe.id && $0.senderID != other })
            let forced = try #require(
                inGroup.last { message in
                    message.senderID != nil && message.id != hiddenByMe.id && message.id != hiddenByOther.id
                })
            try await world.delete("/chat/Message/\(hiddenByMe.id).json", as: 100_001)
            try await world.delete("/chat/Message/\(hiddenByOther.id).json", as: other)
            try await world.delete("/chat/Message/\(forced.id).json", as: forced.senderID!, force: true)

            // Dialogs: user1 removes one private dialog from its own list; an owner deletes a group for all.
            let privateDialog = try #require(
                dialogs.first { dialog in dialog.type == .private && dialog.occupantIDs.contains(100_001) })
            let doomed = try #require(groups.first { dialog in dialog.id != group.id })
            try await world.delete("/chat/Dialog/\(privateDialog.id).json", as: 100_001)
            try await world.delete("/chat/Dialog/\(doomed.id).json", as: try #require(doomed.userID), force: true)

            let appRun = try await world.crawl(app, scope: "app", ["--reconcile"])
            #expect(appRun.status == 0, "\(appRun.stderr)")
            #expect(appRun.stdout.contains("hidden for someone"), "\(appRun.stdout)")
            let appArchive = try await Self.archived(app)
            #expect(appArchive[hiddenByMe.id]?.live == true)
            #expect(appArchive[hiddenByMe.id]?.hiddenFor == [100_001])
            #expect(appArchive[hiddenByOther.id]?.live == true)
            #expect(appArchive[hiddenByOther.id]?.hiddenFor == [other])
            #expect(appArchive[forced.id]?.deleted == true)
            let evidence = try JSONValue(parsing: try #require(appArchive[forced.id]?.evidence))
            #expect(Set(evidence["absent_from"]?.arrayValue?.compactMap(\.lenientInt) ?? []) == Set(group.occupantIDs))
            let appReader = try SQLiteArchive.open(at: app)
            #expect(try await appReader.dialogSummary(id: privateDialog.id)?.deletedAt == nil)
            #expect(try await appReader.dialogSummary(id: privateDialog.id)?.hiddenFor.map(\.user) == [100_001])
            #expect(try await appReader.dialogSummary(id: doomed.id)?.deletedAt != nil)

            // Search speaks it: is:hidden, hidden_for (id or login), is:deleted.
            func search(_ archive: String, _ query: String) async throws -> Set<String> {
                let result = try await CommandRunner.run([
                    "search", "--archive", archive, "--format", "jsonl", "--limit", "1000", query,
                ])
                #expect(result.status == 0, "\(query): \(result.stderr)")
                return Set(
                    result.stdout.split(separator: "\n").compactMap {
                        try? JSONValue(parsing: Data($0.utf8))["id"]?.stringValue
                    })
            }
            #expect(try await search(app, "is:hidden").isSuperset(of: [hiddenByMe.id, hiddenByOther.id]))
            #expect(try await search(app, "hidden_for:100001").contains(hiddenByMe.id))
            #expect(try await !search(app, "hidden_for:100001").contains(hiddenByOther.id))
            #expect(try await search(app, "hidden_for:user1").contains(hiddenByMe.id))
            #expect(try await search(app, "is:deleted").contains(forced.id))
            let line = try await CommandRunner.run(
                ["search", "--archive", app, "--format", "jsonl", "hidden_for:\(other)"])
            #expect(line.stdout.contains(#""hidden_for":[{"since":"#))

            // User scope: what user1 no longer sees is hidden for user1 — never deleted for everyone.
            let userRun = try await world.crawl(mine, scope: "user", ["--reconcile"])
            #expect(userRun.status == 0, "\(userRun.stderr)")
            let userArchive = try await Self.archived(mine)
            #expect(userArchive[hiddenByMe.id]?.live == true)
            #expect(userArchive[hiddenByMe.id]?.hiddenFor == [100_001])
            #expect(userArchive[hiddenByOther.id]?.live == true && userArchive[hiddenByOther.id]?.hiddenFor == [])
            #expect(userArchive[forced.id]?.live == true && userArchive[forced.id]?.hiddenFor == [100_001])
            #expect(userArchive.values.allSatisfy { !$0.deleted && !$0.dialogDeleted }, "one view proves no deletion")
            let userReader = try SQLiteArchive.open(at: mine)
            for dialog in [privateDialog.id, doomed.id] {
                #expect(try await userReader.dialogSummary(id: dialog)?.deletedAt == nil)
                #expect(try await userReader.dialogSummary(id: dialog)?.hiddenFor.map(\.user) == [100_001])
            }
        }
    }

    @Test(
        "Random sends, edits, hides and force deletes by random occupants, pages not as asked: the archive's live set is the truth's visible-to-someone set",
        arguments: [1, 2, 3, 4, 5] as [UInt64])
    func property(seed: UInt64) async throws {
        try await Self.run({
            $0.seed = 40 + seed
            $0.pageFaultRate = 0.2
        }) { world in
            let app = world.directory.appendingPathComponent("app.sqlite").path
            #expect(try await world.crawl(app, scope: "app").status == 0)
            for round in 0..<3 {
                _ = try await world.hooks.execute(
                    uri: "/_emulator/live?count=150", method: .post, headers: [:], body: nil)
                let run = try await world.crawl(app, scope: "app", round == 2 ? ["--reconcile"] : [])
                #expect(run.status == 0, "round \(round): \(run.stdout) \(run.stderr)")
            }
            let truth = try await Truth(world.emulator)
            let archived = try await Self.archived(app)
            let live = Set(archived.filter(\.value.live).keys)
            let visible = truth.visibleToSomeone
            #expect(visible.subtracting(live).isEmpty, "lost: \(visible.subtracting(live).sorted().prefix(5))")
            #expect(
                live.subtracting(visible).isEmpty,
                "live in the archive, seen by no one: \(live.subtracting(visible).sorted().prefix(5))")
            // Hidden-for records agree with the truth for every message some user still sees.
            for id in visible {
                guard let entry = truth.messages[id], let facts = archived[id] else { continue }
                let readers = Set(truth.dialogs[entry.message.chatDialogID]?.visibleTo ?? entry.visibleTo ?? [])
                if let visibleTo = entry.visibleTo {
                    #expect(
                        !facts.hiddenFor.contains { Set(visibleTo).contains($0) }, "\(id) recorded hidden for a reader")
                } else if !readers.isEmpty {
                    #expect(facts.hiddenFor.isDisjoint(with: readers), "\(id)")
                }
            }
        }
    }
}
