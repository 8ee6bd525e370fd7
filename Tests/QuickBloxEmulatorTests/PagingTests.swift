import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Testing

/// Message order, sorting, paging and clamping, the recommended crawl, URL forms, errors, and the
/// side effects of reading, over real HTTP and against the truth dump.
@Suite("Message paging, sorting and reading")
struct PagingTests {
    /// The busiest dialog of user 100001 (as `harness.busiestDialog()` picks it) and its messages in
    /// the truth, in default order.
    static func busiest(_ harness: EmulatorHarness) async throws -> (id: String, records: [JSONValue]) {
        let truth = try await harness.truthRecords()
        let id = TruthRecords.id(try #require(truth.busiestDialog(of: 100_001)))
        let records = truth.messages(of: id)
        try #require(records.count > 100, "the busiest dialog should need more than one page")
        return (id, records)
    }

    /// The occupants of a dialog, from the truth.
    static func occupants(_ harness: EmulatorHarness, _ dialog: String) async throws -> [Int] {
        let record = try #require(try await harness.truthRecords().dialogs.first { TruthRecords.id($0) == dialog })
        return TruthRecords.occupants(record)
    }

    /// One page of messages as `user`, never marking them read.
    static func page(
        _ harness: EmulatorHarness, _ dialog: String, _ query: String, as user: Int = 100_001,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        try await harness.json(
            "/chat/Message.json?chat_dialog_id=\(dialog)&mark_as_read=0&\(query)", as: user,
            sourceLocation: sourceLocation)
    }

    static func items(_ page: JSONValue) throws -> [JSONValue] { try #require(page["items"]?.arrayValue) }

    static func dateSent(_ record: JSONValue) -> Int { record["date_sent"]?.lenientInt ?? -1 }

    // MARK: Order and sorting

    @Test("Default order is ascending by (date_sent, _id); skip pages through every message exactly as stored")
    func defaultOrder() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let keys = records.map { (Self.dateSent($0), $0["_id"]?.stringValue ?? "") }
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
            let listed = try await harness.allMessages(dialog, "")
            #expect(listed == records)
        }
    }

    @Test("sort_desc=date_sent reverses the default order")
    func sortDescending() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let listed = try await harness.allMessages(dialog, "sort_desc=date_sent")
            #expect(listed.ids == Array(records.ids.reversed()))
            // With a date window, as a client paging back from a point in time does.
            let middle = Self.dateSent(records[records.count / 2])
            let window = try await harness.allMessages(dialog, "sort_desc=date_sent&date_sent[lte]=\(middle)")
            let expected = ReferenceFilter.ids(records, [Clause("date_sent", "lte", String(middle))])
            #expect(window.ids == Array(expected.reversed()))
        }
    }

    @Test("sort_asc and sort_desc on updated_at order by it and page through every message once")
    func sortByUpdatedAt() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, original) = try await Self.busiest(harness)
            // Editing three early messages moves their updated_at to now: last by updated_at, not by date_sent.
            let edited = [2, 10, 20].map { original[$0] }
            for message in edited {
                var headers = EmulatorHarness.asUser(message["sender_id"]?.lenientInt ?? 0)
                headers[.contentType] = "application/x-www-form-urlencoded"
                let id = message["_id"]?.stringValue ?? ""
                let response = try await harness.request(
                    .put, "/chat/Message/\(id).json", headers: headers, body: "message=edited%20later")
                #expect(response.status == .ok)
            }
            let records = try await harness.truthRecords().messages(of: dialog)
            func updated(_ record: JSONValue) -> Int {
                ReferenceFilter.seconds(record["updated_at"]?.stringValue ?? "") ?? -1
            }
            for (query, ascending) in [("sort_asc=updated_at", true), ("sort_desc=updated_at", false)] {
                let listed = try await harness.allMessages(dialog, query)
                #expect(listed.count == records.count, "\(query)")
                #expect(Set(listed.ids) == Set(records.ids), "\(query)")
                let times = listed.map(updated)
                let ordered = zip(times, times.dropFirst()).allSatisfy { ascending ? $0 <= $1 : $0 >= $1 }
                #expect(ordered, "\(query)")
                let latest = ascending ? Array(listed.suffix(3)) : Array(listed.prefix(3))
                #expect(Set(latest.ids) == Set(edited.ids), "\(query)")
            }
        }
    }

    // MARK: limit, skip and count

    @Test("limit=1000 is clamped to 100 and echoed; limit=5 and skip are honoured; no total_entries")
    func clamping() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let clamped = try await Self.page(harness, dialog, "limit=1000")
            #expect(clamped.objectValue.map { Set($0.keys) } == ["items", "limit", "skip"])
            #expect(clamped["limit"] == 100)
            #expect(clamped["skip"] == 0)
            #expect(try Self.items(clamped) == Array(records.prefix(100)))
            let five = try await Self.page(harness, dialog, "limit=5")
            #expect(five["limit"] == 5)
            #expect(try Self.items(five) == Array(records.prefix(5)))
            let skipped = try await Self.page(harness, dialog, "limit=5&skip=7")
            #expect(skipped["skip"] == 7)
            #expect(skipped["limit"] == 5)
            #expect(try Self.items(skipped) == Array(records[7..<12]))
            let defaults = try await Self.page(harness, dialog, "")
            #expect(defaults["limit"] == 100)
            #expect(defaults["total_entries"] == nil)
            let past = try await Self.page(harness, dialog, "skip=\(records.count)")
            #expect(try Self.items(past).isEmpty)
        }
    }

    @Test("With maxLimit 1000, limit=1000 is not clamped; limit=5000 is clamped to 1000")
    func largerMaximum() async throws {
        try await EmulatorHarness.run({ $0.maxLimit = 1000 }) { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let page = try await Self.page(harness, dialog, "limit=1000")
            #expect(page["limit"] == 1000)
            #expect(try Self.items(page) == Array(records.prefix(1000)))
            let clamped = try await Self.page(harness, dialog, "limit=5000")
            #expect(clamped["limit"] == 1000)
        }
    }

    @Test("count=1 answers exactly {\"items\":{\"count\":N}}, with and without a filter")
    func count() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let base = "/chat/Message.json?chat_dialog_id=\(dialog)&mark_as_read=0&count=1"
            let all = try await harness.body(base)
            #expect(all.0 == .ok)
            #expect(all.1 == #"{"items":{"count":\#(records.count)}}"#)
            let sender = try #require(records.first?["sender_id"]?.lenientInt)
            let clauses = [Clause("sender_id", "", String(sender)), Clause("message", "ctn", "e")]
            let expected = ReferenceFilter.ids(records, clauses).count
            #expect(expected > 0 && expected < records.count)
            let filtered = try await harness.body(base + "&" + ReferenceFilter.query(clauses) + "&limit=1")
            #expect(filtered.1 == #"{"items":{"count":\#(expected)}}"#)
        }
    }

    // MARK: Crawling

    /// The crawl the reference recommends (§4.2): `sort_asc=date_sent`, `date_sent[gte]=cursor`,
    /// `limit=100`, dedupe by `_id`; when a full page shares one second, page inside that second with
    /// `skip` and move the cursor past it. Returns the messages in first-seen order and whether it
    /// had to page inside a second.
    static func crawl(
        _ harness: EmulatorHarness, _ dialog: String, as user: Int
    ) async throws -> (messages: [JSONValue], pagedInsideASecond: Bool) {
        var seen: Set<String> = []
        var messages: [JSONValue] = []
        var insideASecond = false
        func take(_ items: [JSONValue]) {
            for item in items where seen.insert(item["_id"]?.stringValue ?? "").inserted { messages.append(item) }
        }
        var cursor = 0
        for _ in 0..<10_000 {
            let items = try Self.items(
                try await page(harness, dialog, "sort_asc=date_sent&date_sent[gte]=\(cursor)&limit=100", as: user))
            take(items)
            guard items.count == 100, let first = items.first, let last = items.last else { break }
            if dateSent(first) == dateSent(last) {
                insideASecond = true
                var skip = items.count
                while true {
                    let more = try Self.items(
                        try await page(
                            harness, dialog, "date_sent=\(dateSent(last))&limit=100&skip=\(skip)", as: user))
                    take(more)
                    skip += more.count
                    if more.count < 100 { break }
                }
                cursor = dateSent(last) + 1
            } else {
                cursor = dateSent(last)
            }
        }
        return (messages, insideASecond)
    }

    @Test("The recommended crawl returns every message of the busiest dialog exactly once, as stored")
    func recommendedCrawl() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let crawled = try await Self.crawl(harness, dialog, as: 100_001)
            #expect(crawled.messages == records)
        }
    }

    @Test("The largest dialog holds a burst of more than max-limit messages in one second; skip reaches the rest")
    func burst() async throws {
        try await EmulatorHarness.run({
            $0.messages = 5000
            $0.dialogs = 10
        }) { harness in
            let truth = try await harness.truthRecords()
            let largest = try #require(
                truth.dialogs.max {
                    truth.messages(of: TruthRecords.id($0)).count < truth.messages(of: TruthRecords.id($1)).count
                })
            let dialog = TruthRecords.id(largest)
            let records = truth.messages(of: dialog)
            try #require(records.count >= 300)
            let reader = TruthRecords.occupants(largest).first ?? 100_001
            let seconds = Dictionary(grouping: records, by: Self.dateSent)
            let (second, inSecond) = try #require(seconds.max { $0.value.count < $1.value.count })
            try #require(inSecond.count > 100, "no second holds more than 100 messages")

            let firstPage = try Self.items(
                try await Self.page(harness, dialog, "date_sent=\(second)&limit=100", as: reader))
            #expect(firstPage == Array(inSecond.prefix(100)))
            #expect(firstPage.ids == firstPage.ids.sorted(), "ties in one second are ordered by _id")
            let rest = try Self.items(
                try await Self.page(harness, dialog, "date_sent=\(second)&limit=100&skip=100", as: reader))
            try #require(inSecond.count <= 200)
            #expect(rest == Array(inSecond.dropFirst(100)))

            // A `gt` cursor would lose the burst; the recommended crawl does not.
            let crawled = try await Self.crawl(harness, dialog, as: reader)
            #expect(crawled.pagedInsideASecond)
            #expect(crawled.messages == records)
        }
    }

    // MARK: URL forms

    @Test("The .json suffix is optional")
    func jsonSuffix() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, _) = try await Self.busiest(harness)
            let query = "chat_dialog_id=\(dialog)&mark_as_read=0&limit=7&skip=3&sender_id[gte]=100001"
            let with = try await harness.body("/chat/Message.json?\(query)")
            let without = try await harness.body("/chat/Message?\(query)")
            #expect(with.0 == .ok)
            #expect(with == without)
            let dialogs = try await harness.body("/chat/Dialog.json?limit=5&type[in]=2,3")
            #expect(dialogs.0 == .ok)
            #expect(try await harness.body("/chat/Dialog?limit=5&type[in]=2,3") == dialogs)
        }
    }

    @Test("Percent-encoded brackets and commas mean the same as raw ones, with or without a space")
    func encodedKeys() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let senders = Set(records.compactMap { $0["sender_id"]?.lenientInt }).sorted()
            try #require(senders.count >= 2)
            let (a, b) = (senders[0], senders[1])
            let expected = ReferenceFilter.ids(records, [Clause("sender_id", "in", "\(a),\(b)")])
            #expect(expected.count > 0)
            let base = "/chat/Message.json?chat_dialog_id=\(dialog)&mark_as_read=0&limit=100"
            let forms = [
                "sender_id[in]=\(a),\(b)", "sender_id[in]=\(a),%20\(b)", "sender_id[in]=\(a),+\(b)",
                "sender_id%5Bin%5D=\(a)%2C\(b)", "sender_id%5bin%5d=\(a)%2c%20\(b)", "sender_id%5Bin]=\(a),\(b)",
            ]
            let raw = try await harness.body("\(base)&\(forms[0])")
            #expect(raw.0 == .ok)
            #expect(try Self.items(JSONValue(parsing: raw.1)).ids == Array(expected.prefix(100)))
            for form in forms.dropFirst() {
                #expect(try await harness.body("\(base)&\(form)") == raw, "\(form)")
            }
            let dialogs = try await harness.body("/chat/Dialog.json?type[in]=1,2")
            #expect(try await harness.body("/chat/Dialog.json?type%5Bin%5D=1%2C2") == dialogs)
        }
    }

    // MARK: Errors

    @Test(
        "A value that does not fit its field is 400 with a JSON body naming the parameter",
        arguments: [
            ("/chat/Message.json", "sender_id[gt]=abc", "sender_id[gt]"),
            ("/chat/Message.json", "date_sent[lt]=soon", "date_sent[lt]"),
            ("/chat/Message.json", "recipient_id[in]=1,%20x", "recipient_id[in]"),
            ("/chat/Message.json", "updated_at[gte]=yesterday", "updated_at[gte]"),
            ("/chat/Dialog.json", "created_at[gt]=abc", "created_at[gt]"),
            ("/chat/Dialog.json", "type[in]=1,group", "type[in]"),
        ])
    func invalidNumber(path: String, filter: String, key: String) async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, _) = try await Self.busiest(harness)
            let response = try await harness.request(
                .get, "\(path)?chat_dialog_id=\(dialog)&mark_as_read=0&\(filter)",
                headers: EmulatorHarness.asUser(100_001))
            #expect(response.status == .badRequest)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let errors = try #require(try response.json["errors"]?.arrayValue)
            #expect(errors.count == 1)
            #expect(errors.first?.stringValue?.contains(key) == true, "\(response.text)")
        }
    }

    @Test("No chat_dialog_id, or an unknown dialog, is 404; a dialog the user does not occupy is 403")
    func notFoundAndForbidden() async throws {
        try await EmulatorHarness.run { harness in
            let user = 100_001
            let notFound = #"{"errors":["The resource wasn't found"]}"#
            let forbidden = #"{"errors":["You don't have appropriate permissions to perform this operation"]}"#
            let missing = try await harness.body("/chat/Message.json?mark_as_read=0&limit=10", as: user)
            #expect(missing.0 == .notFound)
            #expect(missing.1 == notFound)
            let empty = try await harness.body("/chat/Message.json?chat_dialog_id=&mark_as_read=0", as: user)
            #expect(empty.0 == .notFound)
            let unknown = try await harness.body(
                "/chat/Message.json?chat_dialog_id=0123456789abcdef01234567&mark_as_read=0", as: user)
            #expect(unknown.0 == .notFound)
            #expect(unknown.1 == notFound)

            let truth = try await harness.truthRecords()
            for type in [3, 2] {
                let foreign = try #require(
                    truth.dialogs.first { $0["type"] == .int(type) && !TruthRecords.occupants($0).contains(user) },
                    "every type-\(type) dialog includes user \(user)")
                let refused = try await harness.body(
                    "/chat/Message.json?chat_dialog_id=\(TruthRecords.id(foreign))&mark_as_read=0", as: user)
                #expect(refused.0 == .forbidden, "type \(type)")
                #expect(refused.1 == forbidden, "type \(type)")
            }
            // Public dialogs are open to everyone.
            if let open = truth.dialogs.first(where: { $0["type"] == 1 }) {
                let id = TruthRecords.id(open)
                let listed = try await harness.body("/chat/Message.json?chat_dialog_id=\(id)&mark_as_read=0", as: user)
                #expect(listed.0 == .ok)
            }
        }
    }

    // MARK: mark_as_read

    /// Unread messages for `user` in a dialog, derived from the truth: not in `read_ids`, sent by someone else.
    static func unread(_ records: [JSONValue], for user: Int) -> Int {
        records.count { record in
            !(record["read_ids"]?.arrayValue?.contains(.int(user)) ?? false)
                && record["sender_id"]?.lenientInt != user
        }
    }

    static func unreadCount(_ harness: EmulatorHarness, _ dialog: String, for user: Int) async throws -> Int {
        try #require(
            try await harness.json("/chat/Dialog/\(dialog).json", as: user)["unread_messages_count"]?.lenientInt)
    }

    @Test("Reading without mark_as_read marks the page read and delivered, moves updated_at, lowers unread")
    func markAsReadByDefault() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let occupants = try await Self.occupants(harness, dialog)
            let reader = try #require(occupants.max { Self.unread(records, for: $0) < Self.unread(records, for: $1) })
            let firstUnread = try #require(
                records.firstIndex { !($0["read_ids"]?.arrayValue?.contains(.int(reader)) ?? false) })
            let unreadBefore = try await Self.unreadCount(harness, dialog, for: reader)
            #expect(unreadBefore == Self.unread(records, for: reader))

            let cursor = Self.dateSent(records[firstUnread])
            let start = Int(Date().timeIntervalSince1970)
            let page = try await harness.json(
                "/chat/Message.json?chat_dialog_id=\(dialog)&limit=100&date_sent[gte]=\(cursor)", as: reader)
            let end = Int(Date().timeIntervalSince1970)
            let returned = Set(try Self.items(page).ids)
            #expect(!returned.isEmpty)

            let after = try await harness.truthRecords().messages(of: dialog)
            #expect(after.ids == records.ids)
            var newlyRead = 0
            for (old, new) in zip(records, after) {
                let id = old["_id"]?.stringValue ?? ""
                let wasRead = old["read_ids"]?.arrayValue?.contains(.int(reader)) ?? false
                guard returned.contains(id), !wasRead else {
                    #expect(new == old, "message \(id) should not change")
                    continue
                }
                if old["sender_id"]?.lenientInt != reader { newlyRead += 1 }
                #expect(new["read_ids"]?.arrayValue?.contains(.int(reader)) == true)
                #expect(new["delivered_ids"]?.arrayValue?.contains(.int(reader)) == true)
                let updated = ReferenceFilter.seconds(new["updated_at"]?.stringValue ?? "") ?? 0
                #expect((start...end).contains(updated), "updated_at of \(id) moves to the time of reading")
                #expect(new["message"] == old["message"])
                #expect(new["date_sent"] == old["date_sent"])
            }
            #expect(newlyRead > 0)
            let unreadAfter = try await Self.unreadCount(harness, dialog, for: reader)
            #expect(unreadAfter == unreadBefore - newlyRead)
            #expect(unreadAfter == Self.unread(after, for: reader))
        }
    }

    @Test("With mark_as_read=0 the truth dump is byte-identical and unread counts are unchanged")
    func markAsReadZero() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, records) = try await Self.busiest(harness)
            let occupants = try await Self.occupants(harness, dialog)
            var unread: [Int: Int] = [:]
            for user in occupants { unread[user] = try await Self.unreadCount(harness, dialog, for: user) }
            let before = await harness.emulator.truthLines()
            for user in occupants {
                _ = try await harness.allMessages(dialog, "", as: user)
                _ = try await harness.allMessages(dialog, "sort_desc=date_sent&sender_id[ne]=\(user)", as: user)
                _ = try await harness.body(
                    "/chat/Message.json?chat_dialog_id=\(dialog)&mark_as_read=0&count=1", as: user)
            }
            #expect(await harness.emulator.truthLines() == before)
            for user in occupants {
                #expect(try await Self.unreadCount(harness, dialog, for: user) == unread[user])
            }
            #expect(unread.values.contains { $0 > 0 }, "someone had unread messages")
            #expect(records.count > 0)
        }
    }
}
