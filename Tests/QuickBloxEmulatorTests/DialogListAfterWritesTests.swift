import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Testing

/// The dialog list each user pages follows every write that changes who may list a dialog. The emulator answers
/// a listing from an index of each user's dialogs (`DialogReaderIndex`), dropped whenever a dialog changes; these
/// checks fail if a change reached the dialogs but not the index.
@Suite("Dialog lists after writes")
struct DialogListAfterWritesTests {
    /// The users whose lists are compared after each step: those the steps add, remove or hide for, and one
    /// they never touch.
    static let users = [100_001, 100_002, 100_003, 100_004, 100_005, 100_008]

    /// Pages every user's list — in `created_at` order, where only a page's dialogs are presented, and by the
    /// newest last message (the default order), where every dialog is — and compares each with the truth:
    /// the dialogs it occupies or that are public, less those it removed for itself.
    static func check(_ harness: EmulatorHarness, after step: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let lines = try await harness.truth().filter { $0["kind"] == "dialog" }
        for user in users {
            let expected = lines.filter { line in
                guard let record = line["record"] else { return false }
                if let readers = line["visible_to"]?.arrayValue { return readers.contains(.int(user)) }
                return record["type"] == 1 || TruthRecords.occupants(record).contains(user)
            }
            .compactMap { $0["record"] }
            .sorted {
                let a = ReferenceFilter.seconds($0["created_at"]?.stringValue ?? "") ?? 0
                let b = ReferenceFilter.seconds($1["created_at"]?.stringValue ?? "") ?? 0
                return (a, TruthRecords.id($0)) < (b, TruthRecords.id($1))
            }.ids
            let byCreation = try await DialogFilterTests.allDialogs(
                "sort_asc=created_at", as: user, harness, limit: 3, sourceLocation: sourceLocation)
            #expect(byCreation == expected, "\(step): user \(user), by created_at", sourceLocation: sourceLocation)
            let byLastMessage = try await DialogFilterTests.allDialogs(
                "sort_desc=last_message_date_sent", as: user, harness, limit: 3, sourceLocation: sourceLocation)
            #expect(
                Set(byLastMessage) == Set(expected) && byLastMessage.count == expected.count,
                "\(step): user \(user), by last message", sourceLocation: sourceLocation)
            // A page by `created_at` presents only its own dialogs; each must show what the listing that presents
            // every dialog shows (the last message and the asker's unread count).
            let presented = ["last_message", "last_message_date_sent", "last_message_id", "unread_messages_count"]
            let pageOnly = try await harness.json("/chat/Dialog.json?limit=100&sort_asc=created_at", as: user)
            let every = try await harness.json("/chat/Dialog.json?limit=100", as: user)
            let shown = Dictionary(
                uniqueKeysWithValues: (every["items"]?.arrayValue ?? []).map { (TruthRecords.id($0), $0) })
            for item in pageOnly["items"]?.arrayValue ?? [] {
                let other = shown[TruthRecords.id(item)]
                #expect(
                    presented.map { item[$0] } == presented.map { other?[$0] },
                    "\(step): user \(user), \(TruthRecords.id(item))", sourceLocation: sourceLocation)
            }
            let (status, body) = try await harness.body("/chat/Dialog.json?count=1", as: user)
            #expect(status == .ok, sourceLocation: sourceLocation)
            #expect(
                body == #"{"items":{"count":\#(expected.count)}}"#, "\(step): user \(user), count=1",
                sourceLocation: sourceLocation)
        }
    }

    @Test("Created, joined, left, hidden and deleted dialogs leave and enter exactly the right users' lists")
    func listsFollowWrites() async throws {
        try await EmulatorHarness.run { harness in
            try await Self.check(harness, after: "seeded data")

            let created = try await harness.request(
                .post, "/chat/Dialog.json", headers: WriteTests.jsonBody,
                body: #"{"type":2,"name":"Incident review","occupants_ids":"100002,100003"}"#)
            #expect(created.status == .created, "\(created.text)")
            let group = try Dialog(json: created.json)
            try await Self.check(harness, after: "a group created")

            let changed = try await harness.request(
                .put, "/chat/Dialog/\(group.id).json", headers: WriteTests.form(as: 100_001),
                body: "push_all%5Boccupants_ids%5D%5B%5D=100004&pull_all[occupants_ids][]=100002")
            #expect(changed.status == .ok, "\(changed.text)")
            try await Self.check(harness, after: "100004 added, 100002 removed")

            let left = try await harness.request(
                .delete, "/chat/Dialog/\(group.id).json", headers: EmulatorHarness.asUser(100_003))
            #expect(left.status == .ok)
            try await Self.check(harness, after: "100003 removed the group for itself")

            let open = try await harness.request(
                .post, "/chat/Dialog.json", headers: WriteTests.jsonBody, body: #"{"type":1,"name":"Town hall"}"#)
            #expect(open.status == .created, "\(open.text)")
            let publicDialog = try Dialog(json: open.json)
            try await Self.check(harness, after: "a public dialog created")

            let hidden = try await harness.request(
                .delete, "/chat/Dialog/\(publicDialog.id).json", headers: EmulatorHarness.asUser(100_005))
            #expect(hidden.status == .ok)
            try await Self.check(harness, after: "100005 removed the public dialog for itself")

            let gone = try await harness.request(
                .delete, "/chat/Dialog/\(group.id).json?force=1", headers: EmulatorHarness.asUser(100_001))
            #expect(gone.status == .ok)
            try await Self.check(harness, after: "the group deleted for everyone")
        }
    }
}
