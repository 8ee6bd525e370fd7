import Archive
import QuickBlox
import Testing

@testable import Export

/// A bundle's message line is parsed once: its `raw` record is derived as parsed with the line, not written out as
/// text and parsed again. The reference is the derivation from `raw` as text (``ImportedMessage/init(_:)``, what a
/// restore from another archive does), which every line must match, column for column.
@Suite("import: a message line derives its columns from its parsed raw record")
struct ImportRecordTests {
    static let dialogID = "5f00000000000000000000aa"

    /// `raw` as a bundle might hold it: its keys in any order, with spaces, numbers of both kinds, texts in several
    /// scripts, a U+0000, attachments with keys QuickBlox does not define, custom parameters, receipts.
    static let raws: [String] = [
        #"{"_id":"6a0000000000000000000001","chat_dialog_id":"5f00000000000000000000aa","date_sent":1700000000,"message":"hello","sender_id":7}"#,
        #"{ "sender_id" : 8 , "message" : "Καλημέρα κόσμε 你好世界", "date_sent" : 1700000001, "_id" : "6a0000000000000000000002", "chat_dialog_id" : "5f00000000000000000000aa" }"#,
        #"{"_id":"6a0000000000000000000003","chat_dialog_id":"5f00000000000000000000aa","date_sent":1700000002,"message":"a\u0000b \ud83d\ude00","sender_id":9,"recipient_id":10,"read_ids":[10,9],"delivered_ids":[9,10,11]}"#,
        #"{"_id":"6a0000000000000000000004","chat_dialog_id":"5f00000000000000000000aa","date_sent":1700000003,"sender_id":7,"attachments":[{"type":"image","id":"blob-1","name":"p.png","size":1024},{"id":"blob-2","type":"file","extra":{"z":1,"a":[1.5,-2,true,null]}}],"color":"red","weight":2.25,"nested":{"b":"x","a":{"c":[]}}}"#,
        #"{"chat_dialog_id":"5f00000000000000000000aa","_id":"6a0000000000000000000005","date_sent":1700000004,"message":null,"sender_id":7,"created_at":"2023-11-14T22:13:24Z","updated_at":"2023-11-14T22:13:25Z","markable":"1","big":12345678901234,"tiny":1e-7}"#,
    ]

    /// The line a bundle holds for `raw`, the archive's own columns around it.
    static func line(raw: String, id: String, dialogID: String = dialogID, omitting omitted: String? = nil) -> String {
        var members = [
            #""id":"\#(id)""#, #""dialog_id":"\#(dialogID)""#, #""sender_id":7"#, #""date_sent":1700000000"#,
            #""text":"from the column""#, #""attachments":[]"#, #""custom":{}"#, #""raw":\#(raw)"#,
            #""first_seen_at":"2023-11-15T00:00:00Z""#, #""last_seen_at":"2023-11-16T00:00:00Z""#, #""edited":0"#,
            #""deleted_at":null"#, #""hidden_for":[{"user":9,"since":"2023-11-17T00:00:00Z"}]"#,
        ]
        if let omitted { members.removeAll { $0.hasPrefix("\"\(omitted)\":") } }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func record(_ line: String) throws -> ImportRecord {
        try #require(ImportRecord(JSONValue(parsing: Array(line.utf8))))
    }

    @Test(arguments: raws)
    func aMessageLineDerivesWhatTheRawTextDerives(raw: String) throws {
        let rawValue = try JSONValue(parsing: Array(raw.utf8))
        let id = try #require(rawValue["_id"]?.stringValue)
        let imported = try Self.record(Self.line(raw: raw, id: id)).message()

        // The reference: the same record with `raw` as text, derived by parsing it.
        let reference = try ImportedMessage(
            ArchivedMessage(
                id: id, dialogID: Self.dialogID, senderID: 7, recipientID: nil, dateSent: 1_700_000_000,
                createdAt: nil, updatedAt: nil, text: "from the column", attachmentsJSON: "[]", customJSON: "{}",
                raw: rawValue.jsonString, firstSeenAt: 1_700_006_400, lastSeenAt: 1_700_092_800, edited: 0,
                deletedAt: nil, hiddenFor: [HiddenFor(user: 9, since: 1_700_179_200)]))
        #expect(imported.content.message == reference.content.message)
        #expect(imported.content.raw == reference.content.raw)
        #expect(imported.content.attachments == reference.content.attachments)
        #expect(imported.content.custom == reference.content.custom)
        #expect(imported.content.readIDs == reference.content.readIDs)
        #expect(imported.content.deliveredIDs == reference.content.deliveredIDs)
        #expect(imported.content.contentHash == reference.content.contentHash)

        // The archive's own columns are taken as given; the derived ones are what the archive stores.
        let archived = imported.archived
        #expect(archived.text == "from the column" && archived.senderID == 7 && archived.dateSent == 1_700_000_000)
        #expect(archived.firstSeenAt == 1_700_006_400 && archived.lastSeenAt == 1_700_092_800)
        #expect(archived.hiddenFor == [HiddenFor(user: 9, since: 1_700_179_200)])
        #expect(archived.raw == rawValue.jsonString, "the record as compact JSON with sorted keys")
        #expect(archived.attachmentsJSON == imported.content.attachments)
        #expect(archived.customJSON == imported.content.custom)
    }

    /// What the line lacks or what its `raw` says otherwise is refused, naming the field or the message.
    @Test(arguments: [
        (Self.line(raw: Self.raws[0], id: "6a0000000000000000000001", omitting: "raw"), "`raw` is missing"),
        (
            Self.line(raw: Self.raws[0], id: "6a0000000000000000000001", omitting: "attachments"),
            "`attachments` is missing"
        ),
        (Self.line(raw: Self.raws[0], id: "6a0000000000000000000001", omitting: "custom"), "`custom` is missing"),
        (
            Self.line(raw: Self.raws[0], id: "6a0000000000000000000001", omitting: "first_seen_at"),
            "`first_seen_at` is missing"
        ),
        (Self.line(raw: "[1,2]", id: "6a0000000000000000000001"), "the `raw` record is not a QuickBlox message"),
        (Self.line(raw: #""text""#, id: "6a0000000000000000000001"), "the `raw` record is not a QuickBlox message"),
        (
            Self.line(raw: Self.raws[0], id: "6a0000000000000000000009"),
            "the `raw` record is message 6a0000000000000000000001 of dialog 5f00000000000000000000aa, not of dialog"
        ),
        (
            Self.line(raw: Self.raws[0], id: "6a0000000000000000000001", dialogID: "5f00000000000000000000bb"),
            "not of dialog 5f00000000000000000000bb"
        ),
    ])
    func aLineItCannotDeriveIsRefused(line: String, reason: String) throws {
        let refusal = #expect(throws: ImportRecord.Missing.self) { try Self.record(line).message() }
        #expect(refusal?.reason.contains(reason) == true, "\(refusal?.reason ?? "no refusal")")
    }
}
