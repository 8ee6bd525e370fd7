import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// `export --subject USER`, a subject-access request, through the built binary: what the person took part in
/// (their messages, messages to them, every dialog they are or were a member of), and no one else's identity.
@Suite("qbarchive export --subject: what a person took part in, everyone else pseudonymised (the built binary)")
struct SubjectAccessCommandTests {
    typealias F = ArchiveFixture

    /// Everyone's profile: the subject is 1 (alice); no other login, name or address may leave the archive.
    static let people: [User] = [
        User(
            id: 1, login: "alice", email: "alice@own.example", fullName: "Alice Subject", phone: "+49 30 1111111",
            createdAt: 0, updatedAt: 0),
        User(id: 2, login: "login-bob", email: "bob@else.example", fullName: "Bob Builder", createdAt: 0, updatedAt: 0),
        User(
            id: 3, login: "login-carol", email: "carol@else.example", fullName: "Carol Danvers", createdAt: 0,
            updatedAt: 0),
        User(
            id: 4, login: "login-dave", email: "dave@else.example", fullName: "Dave Grohl", createdAt: 0, updatedAt: 0),
        User(
            id: 5, login: "login-erin", email: "erin@else.example", fullName: "Erin Brockovich", createdAt: 0,
            updatedAt: 0),
        User(
            id: 6, login: "login-frank", email: "frank@else.example", fullName: "Frank Ocean", createdAt: 0,
            updatedAt: 0),
    ]
    static let privateID = F.objectID(0xE01)
    static let foreignID = F.objectID(0xE02)
    static let leftID = F.objectID(0xE03)

    static func message(_ number: Int, dialog: String, sender: Int, recipient: Int = 0, hiddenBy: [Int] = []) -> Message
    {
        Message(
            id: F.objectID(number), chatDialogID: dialog, text: "message \(number)", dateSent: F.baseTime + number,
            senderID: sender, recipientID: recipient, attachments: [], readIDs: [1, 2, 3, 4, 5, 6],
            deliveredIDs: [sender], createdAt: F.baseTime + number, updatedAt: F.baseTime + number)
    }

    @Test func onlyWhatTheSubjectTookPartInAndNoOneElsesIdentity() async throws {
        let fixture = try await F()
        let archive = fixture.directory.file("archive.sqlite")
        try await fixture.archive.storeUsers(rawItems: Self.people.map(\.json))
        try await fixture.archive.storeDialogs(
            rawItems: [
                Dialog(
                    id: Self.privateID, type: .private, name: "Dave Grohl", photo: "dave.png", userID: 4,
                    occupantIDs: [1, 4], createdAt: 0, updatedAt: 0
                ).json,
                F.dialog(Self.foreignID, occupants: [4, 5], name: "Not hers").json,
                F.dialog(Self.leftID, occupants: [1, 5], name: "Left later").json,
            ], at: F.baseTime)
        // Alice leaves the last group: it stays hers to see, through its membership history.
        try await fixture.archive.storeDialogs(
            rawItems: [F.dialog(Self.leftID, occupants: [5, 6], name: "Left later").json], at: F.baseTime + 500)
        try await fixture.write((1...6).map { F.message($0, text: "group \($0)", offset: $0) })  // senders 2, 3, 1, …
        try await fixture.write(
            [
                Self.message(101, dialog: Self.privateID, sender: 4, recipient: 1),
                Self.message(102, dialog: Self.privateID, sender: 1, recipient: 4),
            ], dialogID: Self.privateID)
        try await fixture.write(
            [
                Self.message(201, dialog: Self.foreignID, sender: 4),
                Self.message(202, dialog: Self.foreignID, sender: 5),
            ],
            dialogID: Self.foreignID)
        try await fixture.write(
            [Self.message(301, dialog: Self.leftID, sender: 5), Self.message(302, dialog: Self.leftID, sender: 6)],
            dialogID: Self.leftID)

        // Both occupants removed the private dialog from their own lists; the group she left was deleted for
        // everyone, the views of two others behind its tombstone.
        #expect(try await fixture.archive.recordDialogHidden(id: Self.privateID, for: 4, at: F.baseTime + 600))
        #expect(try await fixture.archive.recordDialogHidden(id: Self.privateID, for: 1, at: F.baseTime + 700))
        let evidence = DeletionEvidence(absentFrom: [5, 6], readers: 2, scope: "app")
        #expect(try await fixture.archive.tombstoneDialog(id: Self.leftID, evidence: evidence, at: F.baseTime + 800))

        let path = fixture.directory.file("sar.tar.gz")
        let run = try await CommandRunner.run(["export", "--archive", archive, "--subject", "alice", "--out", path])
        #expect(run.status == 0, "\(run.stderr)")
        let entries = try ExportReading.entries(path)
        let messages = try ExportReading.lines(entries["messages.jsonl"])
        let expected = Set(((1...6).map { $0 } + [101, 102, 301, 302]).map(F.objectID))
        #expect(Set(messages.compactMap { $0["id"]?.stringValue }) == expected)

        // Everyone else: a negative id, the same one everywhere for the same person, named participant-N.
        var pseudonyms: [Int: Int] = [:]
        let realSender = [101: 4, 102: 1, 301: 5, 302: 6].merging(
            Dictionary(uniqueKeysWithValues: (1...6).map { ($0, 1 + $0 % 3) })
        ) { first, _ in first }
        for record in messages {
            let number = Int(record["id"]?.stringValue ?? "", radix: 16) ?? 0
            let sender = try #require(record["sender_id"]?.lenientInt)
            let real = try #require(realSender[number])
            if real == 1 {
                #expect(sender == 1 && record["sender_login"] == "alice" && record["sender_name"] == "Alice Subject")
            } else {
                #expect(sender < 0 && record["sender_login"]?.stringValue == "participant-\(-sender)")
                #expect(pseudonyms[real, default: sender] == sender, "person \(real) has two pseudonyms")
                pseudonyms[real] = sender
                #expect(record["raw"]?["sender_id"]?.lenientInt == sender)
            }
            for reader in record["raw"]?["read_ids"]?.arrayValue ?? [] {
                #expect(reader == 1 || (reader.lenientInt ?? 0) < 0, "a real reader id: \(reader)")
            }
        }
        #expect(Set(pseudonyms.values).count == pseudonyms.count, "two people share a pseudonym")
        let privateRecord = try #require(messages.first { $0["id"]?.stringValue == F.objectID(101) })
        #expect(privateRecord["dialog_name"] == .null && privateRecord["recipient_id"] == 1)

        let users = try ExportReading.lines(entries["users.jsonl"])
        let subject = try #require(users.first { $0["id"] == 1 })
        #expect(subject["email"] == "alice@own.example" && subject["phone"] == "+49 30 1111111")
        for user in users where user["id"] != 1 {
            let id = try #require(user["id"]?.lenientInt)
            #expect(id < 0 && user["login"]?.stringValue == "participant-\(-id)" && user["email"] == .null)
            #expect(user["raw"] == .null)
        }
        for dialog in try ExportReading.lines(entries["dialogs.jsonl"]) {
            for occupant in dialog["occupant_ids"]?.arrayValue ?? [] {
                #expect(occupant == 1 || (occupant.lenientInt ?? 0) < 0, "\(dialog)")
            }
            if dialog["id"]?.stringValue == Self.privateID {
                #expect(dialog["name"] == .null && dialog["photo"] == .null && dialog["raw"]?["name"] == .null)
                #expect(dialog["hidden_for"]?.arrayValue?.count == 2)
            }
            for hide in dialog["hidden_for"]?.arrayValue ?? [] {
                #expect(hide["user"] == 1 || (hide["user"]?.lenientInt ?? 0) < 0, "\(dialog)")
            }
            if dialog["id"]?.stringValue == Self.leftID {
                let absent = try #require(dialog["deletion_evidence"]?["absent_from"]?.arrayValue)
                #expect(absent.count == 2 && absent.allSatisfy { ($0.lenientInt ?? 0) < 0 }, "\(dialog)")
            }
        }
        for period in try ExportReading.lines(entries["membership.jsonl"]) {
            #expect(period["user_id"] == 1 || (period["user_id"]?.lenientInt ?? 0) < 0)
        }
        // No other person's login, name or address in any byte of the bundle.
        let others = Self.people.dropFirst().flatMap { [$0.login ?? "", $0.fullName ?? "", $0.email ?? ""] }
        for (name, bytes) in entries {
            let text = String(decoding: bytes, as: UTF8.self)
            for other in others { #expect(!text.contains(other), "\(other) in \(name)") }
        }
        let manifest = try JSONValue(parsing: entries["manifest.json"] ?? [])
        #expect(manifest["privacy"]?["subject_access"]?["subject"] == 1)
        #expect(manifest["selection"]?["resolved"]?["subject"]?["user_id"] == 1)

        // By id, with a date range: the same person, fewer messages.
        let byID = try await CommandRunner.run([
            "export", "--archive", archive, "--subject", "1", "--format", "jsonl", "--out", "-",
            "--where", "dialog_type:private",
        ])
        #expect(byID.status == 0, "\(byID.stderr)")
        let ids = try byID.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0))["id"]?.stringValue }
        #expect(Set(ids) == [F.objectID(101), F.objectID(102)])
    }
}
