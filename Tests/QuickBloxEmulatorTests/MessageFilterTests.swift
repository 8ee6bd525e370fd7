import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Testing

/// Every operator the reference lists for `GET /chat/Message.json`, on every field it lists it for,
/// over real HTTP. Each filtered list is read in full (`limit=100`, paging with `skip`) and compared,
/// in order, with ``ReferenceFilter``'s evaluation of the truth dump; `count=1` must agree too.
@Suite("Message filters against the truth")
struct MessageFilterTests {
    /// A dialog, the user who reads it, and its messages in the truth in default order.
    struct Sample {
        var dialog: String
        var user: Int
        var records: [JSONValue]

        /// The distinct values of a numeric field, ascending.
        func distinct(_ field: String) -> [Int] {
            var seen: Set<Int> = []
            for record in records {
                if case .numbers(let numbers) = ReferenceFilter.values(of: field, in: record) {
                    seen.formUnion(numbers)
                }
            }
            return seen.sorted()
        }

        /// The most frequent value of a scalar field as text (ties broken by the value), among `records`
        /// that satisfy `where`.
        func mostCommon(_ field: String, where include: (JSONValue) -> Bool = { _ in true }) -> String? {
            var counts: [String: Int] = [:]
            for record in records where include(record) {
                if let value = record[field]?.lenientString { counts[value, default: 0] += 1 }
            }
            return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        }
    }

    /// The busiest dialog of user 100001 (as `harness.busiestDialog()` picks it), or its busiest private
    /// dialog, where `recipient_id` takes more than one value.
    static func sample(_ harness: EmulatorHarness, privateOnly: Bool = false) async throws -> Sample {
        let truth = try await harness.truthRecords()
        let id = TruthRecords.id(try #require(truth.busiestDialog(of: 100_001, type: privateOnly ? 3 : nil)))
        let records = truth.messages(of: id)
        try #require(records.count > 100, "the sample dialog should need more than one page")
        return Sample(dialog: id, user: 100_001, records: records)
    }

    /// Reads the whole filtered list and its `count=1`; both must match the reference's answer.
    /// Unless told otherwise, the truth must hold messages the filter selects and (`proper`) messages
    /// it rejects, so that a wrong filter cannot pass by accident.
    static func check(
        _ clauses: [Clause], _ sample: Sample, _ harness: EmulatorHarness, proper: Bool = true,
        nonEmpty: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let query = ReferenceFilter.query(clauses)
        let expected = ReferenceFilter.ids(sample.records, clauses)
        if nonEmpty {
            try #require(!expected.isEmpty, "\(query) selects nothing in the truth", sourceLocation: sourceLocation)
        }
        if proper {
            try #require(
                expected.count < sample.records.count, "\(query) selects everything", sourceLocation: sourceLocation)
        }
        let got = try await harness.allMessages(sample.dialog, query, as: sample.user, sourceLocation: sourceLocation)
        #expect(
            got.ids == expected, "\(query): \(got.count) messages, the truth has \(expected.count)",
            sourceLocation: sourceLocation)
        let (status, body) = try await harness.body(
            "/chat/Message.json?chat_dialog_id=\(sample.dialog)&mark_as_read=0&count=1&\(query)", as: sample.user)
        #expect(status == .ok, sourceLocation: sourceLocation)
        #expect(body == #"{"items":{"count":\#(expected.count)}}"#, "count=1&\(query)", sourceLocation: sourceLocation)
    }

    @Test(
        "lt, lte, gt and gte on date_sent, sender_id, recipient_id and updated_at (unix seconds)",
        arguments: ["lt", "lte", "gt", "gte"], ["date_sent", "sender_id", "recipient_id", "updated_at"])
    func comparison(op: String, field: String) async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness, privateOnly: field == "recipient_id")
            let values = sample.distinct(field)
            try #require(values.count >= 2, "\(field) takes one value only")
            // A value that occurs, with values on the strict side of it, so lt differs from lte.
            let value = op.hasPrefix("lt") ? values[values.count / 2] : values[(values.count - 1) / 2]
            try await Self.check([Clause(field, op, String(value))], sample, harness, proper: op.count == 2)
        }
    }

    @Test(
        "updated_at also compares with ISO-8601 text, in UTC or with an offset",
        arguments: ["lt", "lte", "gt", "gte"], [false, true])
    func updatedAtAsText(op: String, offset: Bool) async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness)
            let values = sample.distinct("updated_at")
            let seconds = values[values.count / 3]
            // `2025-06-01T10:00:00Z`, or the same instant as `2025-06-01T12:00:00+02:00` (its `+` encoded).
            let utc = ReferenceFilter.iso(seconds)
            let value = offset ? String(ReferenceFilter.iso(seconds + 7200).dropLast()) + "+02:00" : utc
            #expect(utc.hasSuffix("Z") && ReferenceFilter.seconds(value) == seconds)
            try await Self.check([Clause("updated_at", op, value)], sample, harness, proper: op.count == 2)
        }
    }

    @Test(
        "ne on _id, message, date_sent, sender_id and recipient_id",
        arguments: ["_id", "message", "date_sent", "sender_id", "recipient_id"])
    func notEqual(field: String) async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness, privateOnly: field == "recipient_id")
            let middle = sample.records[sample.records.count / 2]["_id"]?.stringValue
            let value = try #require(field == "_id" ? middle : sample.mostCommon(field))
            try await Self.check([Clause(field, "ne", value)], sample, harness)
        }
    }

    @Test(
        "in and nin on date_sent, sender_id and recipient_id, with a space after the comma",
        arguments: ["in", "nin"], ["date_sent", "sender_id", "recipient_id"])
    func inAndNotIn(op: String, field: String) async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness, privateOnly: field == "recipient_id")
            let values = sample.distinct(field)
            // Two values that occur when there are enough, else one that occurs and one that does not.
            let list = values.count >= 3 ? [values[0], values[values.count / 2]] : [values[0], values.last! + 1000]
            let clause = Clause(field, op, list.map(String.init).joined(separator: ", "))
            #expect(clause.query.contains(",%20"))
            try await Self.check([clause], sample, harness)
        }
    }

    @Test(
        "ctn on message is a case-insensitive substring, in any script, with reserved characters encoded",
        arguments: ["REFUND", "STRAßENFEST", "ПРИВЕТ", "c++ VS. c#", "?id=42&LANG=en", "50% OFF", "SURE, I CAN", "😂"])
    func contains(text: String) async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness)
            try await Self.check([Clause("message", "ctn", text)], sample, harness)
        }
    }

    @Test("or: any of one field's values; [or] on two fields OR-ed together and AND-ed with the rest")
    func or() async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness)
            let senders = sample.distinct("sender_id")
            let first = try #require(senders.first)
            let list = senders.count >= 3 ? [first, senders[2]] : [first, senders.last! + 1000]
            try await Self.check(
                [Clause("sender_id", "or", list.map(String.init).joined(separator: ","))], sample, harness)

            // The commonest text another sender wrote (without commas: `or` splits on them).
            let text = try #require(
                sample.mostCommon("message") {
                    $0["sender_id"]?.lenientInt != first && !($0["message"]?.stringValue ?? ",").contains(",")
                })
            let either = [Clause("sender_id", "or", String(first)), Clause("message", "or", text)]
            let bySender = ReferenceFilter.ids(sample.records, [Clause("sender_id", "", String(first))])
            let byText = ReferenceFilter.ids(sample.records, [Clause("message", "", text)])
            #expect(ReferenceFilter.ids(sample.records, either).count > max(bySender.count, byText.count))
            try await Self.check(either, sample, harness)

            let median = sample.distinct("date_sent")[sample.distinct("date_sent").count / 2]
            try await Self.check([Clause("date_sent", "gte", String(median))] + either, sample, harness)
        }
    }

    @Test("Equality on a custom parameter", arguments: ["age", "priority"])
    func customParameter(name: String) async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness)
            let value = try #require(sample.mostCommon(name), "no message of the sample carries `\(name)`")
            try await Self.check([Clause(name, "", value)], sample, harness)
        }
    }

    @Test("attachments.type=image matches messages with an image among their attachments")
    func attachmentType() async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness)
            try await Self.check([Clause("attachments.type", "", "image")], sample, harness)
        }
    }

    @Test("all on read_ids and delivered_ids: every listed user is present", arguments: ["read_ids", "delivered_ids"])
    func all(field: String) async throws {
        try await EmulatorHarness.run { harness in
            let sample = try await Self.sample(harness)
            let pair = try #require(
                sample.records.lazy.compactMap { $0[field]?.arrayValue?.compactMap(\.lenientInt) }
                    .first { $0.count >= 2 }?.prefix(2))
            try await Self.check(
                [Clause(field, "all", pair.map(String.init).joined(separator: ","))], sample, harness)
        }
    }

    @Test("A null recipient_id (group messages from some servers) satisfies ne and nin, not lt or equality")
    func nullRecipient() async throws {
        try await EmulatorHarness.run { harness in
            let truth = try await harness.truthRecords()
            // The group dialog with the most `"recipient_id":null` messages, read by one of its occupants.
            func nulls(_ dialog: JSONValue) -> Int {
                truth.messages(of: TruthRecords.id(dialog)).count { $0["recipient_id"] == .null }
            }
            let dialog = try #require(truth.dialogs.filter { $0["type"] == 2 }.max { nulls($0) < nulls($1) })
            try #require(nulls(dialog) > 0, "no group message has a null recipient_id")
            let records = truth.messages(of: TruthRecords.id(dialog))
            let reader = try #require(TruthRecords.occupants(dialog).first)
            let sample = Sample(dialog: TruthRecords.id(dialog), user: reader, records: records)
            let nullIDs = records.filter { $0["recipient_id"] == .null }.ids
            #expect(Set(ReferenceFilter.ids(records, [Clause("recipient_id", "ne", "0")])).isSuperset(of: nullIDs))
            #expect(Set(ReferenceFilter.ids(records, [Clause("recipient_id", "lt", "1")])).isDisjoint(with: nullIDs))
            for clause in [
                Clause("recipient_id", "ne", "0"), Clause("recipient_id", "nin", "0, 1"),
                Clause("recipient_id", "lt", "1"), Clause("recipient_id", "", "0"),
            ] {
                try await Self.check([clause], sample, harness, proper: false, nonEmpty: false)
            }
        }
    }
}
