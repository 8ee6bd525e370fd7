import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator
import Testing

@testable import Crawler

@Suite("Dialog listing in a frozen window")
struct DialogListerTests {
    @Test("A user's dialogs (occupied and public) are listed completely, in creation order, even in small pages")
    func complete() async throws {
        try await MessagePagerTests.run({ $0.dialogs = 40 }) { emulator, client, _ in
            let truth = try await MessagePagerTests.truth(emulator)
            for user in [100_001, 100_004] {
                var lister = DialogLister(client: client, onBehalfOf: user)
                lister.pageSize = 7
                let listed = try await lister.dialogs(createdUpTo: Int(Date().timeIntervalSince1970))
                let expected = truth.dialogs.filter { $0.type == .publicGroup || $0.occupantIDs.contains(user) }
                    .sorted { ($0.createdAt ?? 0, $0.id) < ($1.createdAt ?? 0, $1.id) }
                #expect(listed.map(\.dialog.id) == expected.map(\.id))
                #expect(listed.allSatisfy { $0.raw["_id"]?.stringValue == $0.dialog.id })
            }
        }
    }

    @Test("Dialogs created after the run started wait for the next run; changed ones are found by updated_at")
    func frozenWindowAndChanges() async throws {
        try await MessagePagerTests.run { emulator, client, hooks in
            let runStart = Int(Date().timeIntervalSince1970) - 1
            let lister = DialogLister(client: client, onBehalfOf: 100_001)
            let before = try await lister.dialogs(createdUpTo: runStart)
            var headers = HTTPFields()
            headers[.authorization] = "ApiKey k"
            headers[HTTPField.Name("On-Behalf-Of")!] = "100001"
            headers[.contentType] = "application/json"
            let created = try await hooks.execute(
                uri: "/chat/Dialog.json", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"type":2,"name":"After the start","occupants_ids":[100002]}"#))
            #expect(created.status == .created)
            let target = try #require(before.first { $0.dialog.occupantIDs.contains(100_001) })
            let message = try await hooks.execute(
                uri: "/chat/Message.json", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"chat_dialog_id":"\#(target.dialog.id)","message":"bump"}"#))
            #expect(message.status == .created)
            let again = try await lister.dialogs(createdUpTo: runStart)
            #expect(again.map(\.dialog.id) == before.map(\.dialog.id))
            let changed = try await lister.dialogs(
                updatedAfter: runStart, createdUpTo: Int(Date().timeIntervalSince1970) + 1)
            #expect(Set(changed.map(\.dialog.id)).contains(target.dialog.id))
            #expect(changed.contains { $0.dialog.name == "After the start" })
            #expect(changed.count == 2)
        }
    }
}
