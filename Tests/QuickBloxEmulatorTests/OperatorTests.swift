import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Testing

/// Every filter operator on every field the reference lists, checked against an independent evaluator
/// over the truth dump (written here from the reference's semantics, not from the emulator's code).
@Suite("Filter operators against the truth")
struct OperatorTests {
    /// A field's values in a truth record: numbers, texts, or nothing.
    enum Value {
        case numbers([Int])
        case texts([String])
        case none
    }

    static func value(_ record: JSONValue, _ field: String) -> Value {
        switch field {
        case "attachments.type":
            return .texts(record["attachments"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? [])
        case "updated_at", "created_at":
            guard let text = record[field]?.stringValue, let seconds = ISO8601.parse(text) else { return .none }
            return .numbers([seconds])
        default:
            switch record[field] {
            case .int(let number)?: return .numbers([number])
            case .array(let elements)?: return .numbers(elements.compactMap(\.lenientInt))
            case .string(let text)?: return .texts([text])
            default: return .none
            }
        }
    }

    /// The reference's semantics: every filter holds, `[or]` filters together form one alternative.
    static func matches(_ record: JSONValue, _ filters: [(String, String, String)]) -> Bool {
        func holds(_ field: String, _ op: String, _ raw: String) -> Bool {
            let list = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            switch value(record, field) {
            case .none: return op == "ne" || op == "nin"
            case .numbers(let have):
                let want = list.map { Int($0) ?? ISO8601.parse($0) ?? Int.min }
                switch op {
                case "": return have.contains(want[0])
                case "ne": return !have.contains(want[0])
                case "lt": return have.contains { $0 < want[0] }
                case "lte": return have.contains { $0 <= want[0] }
                case "gt": return have.contains { $0 > want[0] }
                case "gte": return have.contains { $0 >= want[0] }
                case "in", "or": return have.contains { want.contains($0) }
                case "nin": return !have.contains { want.contains($0) }
                case "all": return want.allSatisfy { have.contains($0) }
                default: return false
                }
            case .texts(let have):
                switch op {
                case "": return have.contains(list.first ?? raw)
                case "ne": return !have.contains(raw)
                case "ctn": return have.contains { $0.lowercased().contains(raw.lowercased()) }
                case "in", "or": return have.contains { list.contains($0) }
                case "nin": return !have.contains { list.contains($0) }
                default: return false
                }
            }
        }
        let plain = filters.filter { $0.1 != "or" }
        let alternatives = filters.filter { $0.1 == "or" }
        return plain.allSatisfy { holds($0.0, $0.1, $0.2) }
            && (alternatives.isEmpty || alternatives.contains { holds($0.0, $0.1, $0.2) })
    }

    static func query(_ filters: [(String, String, String)]) -> String {
        filters.map { field, op, value in
            // Keys raw (as the docs show them), values percent-encoded (names hold `#`, `&`, quotes, UTF-8).
            (op.isEmpty ? field : "\(field)[\(op)]") + "=" + QueryString.encode(value)
        }.joined(separator: "&")
    }

    @Test("Message filters: lt lte gt gte ne in nin all or ctn on every listed field")
    func messageOperators() async throws {
        try await EmulatorHarness.run({ $0.messages = 2000 }) { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            #expect(messages.count > 100)
            let records = try await harness.truth().filter {
                $0["kind"] == "message" && $0["record"]?["chat_dialog_id"]?.stringValue == dialog.id
            }
            .compactMap { $0["record"] }
            let dates = messages.map(\.dateSent).sorted()
            let median = String(dates[dates.count / 2])
            let (a, b) = (String(dialog.occupantIDs[0]), String(dialog.occupantIDs[1]))
            let someUpdated = String(messages.compactMap(\.updatedAt).sorted()[messages.count / 3])
            let isoUpdated = ISO8601.format(Int(someUpdated)!)
            let readers =
                messages.first { $0.readIDs.count >= 2 }.map {
                    $0.readIDs.prefix(2).map(String.init).joined(separator: ",")
                } ?? a
            let customAge = messages.compactMap { $0.extra["age"]?.stringValue }.first ?? "25"
            let cases: [[(String, String, String)]] = [
                [("date_sent", "lt", median)], [("date_sent", "lte", median)], [("date_sent", "gt", median)],
                [("date_sent", "gte", median)], [("date_sent", "ne", median)],
                [("date_sent", "in", "\(dates[3]), \(dates[9])")], [("date_sent", "nin", "\(dates[3]),\(dates[9])")],
                [("sender_id", "lt", b)], [("sender_id", "lte", a)], [("sender_id", "gt", a)],
                [("sender_id", "gte", b)],
                [("sender_id", "ne", a)], [("sender_id", "in", "\(a), \(b)")], [("sender_id", "nin", a)],
                [("sender_id", "", b)],
                [("recipient_id", "lt", "1")], [("recipient_id", "gt", "0")], [("recipient_id", "ne", "0")],
                [("recipient_id", "in", "0,\(a)")], [("recipient_id", "nin", "0")],
                [("updated_at", "gt", someUpdated)], [("updated_at", "gte", isoUpdated)],
                [("updated_at", "lt", someUpdated)],
                [("updated_at", "lte", someUpdated)],
                [("_id", "ne", messages[5].id)], [("_id", "", messages[7].id)],
                [("message", "ne", messages[2].text ?? "")], [("message", "ctn", "REFUND")],
                [("message", "ctn", "straßenfest")],
                [("message", "ctn", "é")], [("attachments.type", "", "image")], [("read_ids", "all", readers)],
                [("sender_id", "or", a), ("recipient_id", "or", a)], [("date_sent", "or", "\(dates[1]),\(dates[2])")],
                [("age", "", customAge)], [("sender_id", "", a), ("message", "ctn", "a")],
            ]
            for filters in cases {
                let expected = records.filter { Self.matches($0, filters) }.compactMap { $0["_id"]?.stringValue }
                var got: [String] = []
                var skip = 0
                while true {
                    let page = try await harness.messages(dialog.id, Self.query(filters) + "&limit=100&skip=\(skip)")
                    got += page.map(\.id)
                    skip += page.count
                    if page.count < 100 { break }
                }
                #expect(got == expected, "\(Self.query(filters))")
                let count = try await harness.json(
                    "/chat/Message.json?chat_dialog_id=\(dialog.id)&mark_as_read=0&count=1&\(Self.query(filters))")
                #expect(
                    count == .object(["items": .object(["count": .int(expected.count)])]),
                    "count \(Self.query(filters))")
            }
        }
    }

    @Test("Dialog filters: type, name, _id, dates, last_message_date_sent, occupants_ids, data[...]")
    func dialogOperators() async throws {
        try await EmulatorHarness.run({ $0.dialogs = 60 }) { harness in
            let user = 100_001
            let records = try await harness.truth().filter { $0["kind"] == "dialog" }.compactMap { $0["record"] }
                .filter { $0["type"] == 1 || ($0["occupants_ids"]?.lenientIntArray.contains(user) ?? false) }
            let dialogs = try records.map { try Dialog(json: $0) }
            let created = dialogs.compactMap(\.createdAt).sorted()
            let lastDates = dialogs.compactMap(\.lastMessageDateSent).sorted()
            let pair =
                dialogs.first { $0.occupantIDs.count >= 3 }.map { "\($0.occupantIDs[0]),\($0.occupantIDs[2])" }
                ?? "\(user)"
            let someName = dialogs.compactMap(\.name).first ?? "x"
            let cases: [[(String, String, String)]] = [
                [("type", "in", "1,2")], [("type", "", "3")], [("type", "nin", "3")], [("name", "ctn", "PARTY")],
                [("name", "ne", someName)], [("name", "in", "\(someName),nope")], [("_id", "ne", dialogs[0].id)],
                [("created_at", "gt", String(created[created.count / 2]))],
                [("created_at", "lte", ISO8601.format(created[created.count / 2]))],
                [("updated_at", "lt", String(created[created.count / 2]))],
                [("last_message_date_sent", "gt", String(lastDates[lastDates.count / 2]))],
                [("last_message_date_sent", "nin", "\(lastDates[0]), \(lastDates[1])")],
                [("occupants_ids", "all", pair)], [("data[class_name]", "", "GroupInfo")],
            ]
            for filters in cases {
                // Custom data lives under `data`; every other field is a top-level key of the record.
                let expected =
                    filters.first?.0 == "data[class_name]"
                    ? Set(dialogs.filter { $0.data?["class_name"] == "GroupInfo" }.map(\.id))
                    : Set(records.filter { Self.matches($0, filters) }.compactMap { $0["_id"]?.stringValue })
                let page = try await harness.json("/chat/Dialog.json?limit=100&\(Self.query(filters))")
                let got = Set(try Page<Dialog>(json: page).items.map(\.id))
                #expect(got == expected, "\(Self.query(filters))")
                #expect(page["total_entries"]?.lenientInt == expected.count)
            }
        }
    }

    @Test("limit is clamped and echoed; raw and percent-encoded keys and commas mean the same")
    func pagingAndEncoding() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, _) = try await harness.busiestDialog()
            let clamped = try await harness.json(
                "/chat/Message.json?chat_dialog_id=\(dialog.id)&mark_as_read=0&limit=1000")
            #expect(clamped["limit"] == 100)
            #expect(clamped["total_entries"] == nil)
            #expect(clamped["items"]?.arrayValue?.count == 100)
            let five = try await harness.json("/chat/Message?chat_dialog_id=\(dialog.id)&mark_as_read=0&limit=5")
            #expect(five["limit"] == 5)
            let raw = try await harness.json(
                "/chat/Message.json?chat_dialog_id=\(dialog.id)&mark_as_read=0&sender_id[in]=100001,\(dialog.occupantIDs[1])"
            )
            let encoded = try await harness.json(
                "/chat/Message.json?chat_dialog_id=\(dialog.id)&mark_as_read=0&sender_id%5Bin%5D=100001%2C\(dialog.occupantIDs[1])"
            )
            #expect(raw == encoded)
            let bad = try await harness.request(
                .get, "/chat/Message.json?chat_dialog_id=\(dialog.id)&sender_id[gt]=abc",
                headers: EmulatorHarness.asUser(100_001))
            #expect(bad.status == .badRequest)
            #expect(bad.text == #"{"errors":["Invalid value 'abc' for sender_id[gt]"]}"#)
        }
    }

    @Test("mark_as_read defaults to 1: a read adds the reader to read_ids and delivered_ids and moves updated_at")
    func markAsReadSideEffects() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            let reader = try #require(dialog.occupantIDs.first { id in messages.contains { !$0.readIDs.contains(id) } })
            let unread = messages.filter { !$0.readIDs.contains(reader) }
            let before = try await harness.json("/chat/Dialog/\(dialog.id).json", as: reader)["unread_messages_count"]?
                .lenientInt
            let read = try await harness.json(
                "/chat/Message.json?chat_dialog_id=\(dialog.id)&limit=100&date_sent[gte]=\(unread[0].dateSent)",
                as: reader)
            let returned = try Page<Message>(json: read).items
            #expect(returned.allSatisfy { $0.readIDs.contains(reader) && $0.deliveredIDs.contains(reader) })
            let changed = try await harness.truthMessages()
            let newlyRead = returned.filter { message in unread.contains { $0.id == message.id } }
            #expect(!newlyRead.isEmpty)
            let earlier = Dictionary(uniqueKeysWithValues: messages.map { ($0.id, $0.updatedAt ?? 0) })
            for message in newlyRead {
                #expect((changed[message.id]?.updatedAt ?? 0) > (earlier[message.id] ?? 0))
            }
            let after = try await harness.json("/chat/Dialog/\(dialog.id).json", as: reader)["unread_messages_count"]?
                .lenientInt
            #expect((after ?? 0) < (before ?? 0))
            // With mark_as_read=0 the same read changes nothing.
            let truth = try await harness.emulator.truthLines()
            _ = try await harness.messages(dialog.id, "limit=100", as: reader)
            #expect(await harness.emulator.truthLines() == truth)
        }
    }
}
