import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Testing

/// `GET /chat/Dialog.json` as a user: who sees what, every operator the reference lists for dialogs,
/// `total_entries` and `count=1`, each compared with ``ReferenceFilter``'s evaluation of the truth.
@Suite("Dialog filters against the truth")
struct DialogFilterTests {
    /// 60 dialogs, so that every type and some group dialogs with custom data occur.
    static func configure(_ configuration: inout EmulatorConfiguration) {
        configuration.dialogs = 60
    }

    /// The dialogs `user` sees, as records of the truth.
    struct Sample {
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
    }

    /// Lists every dialog matching `clauses` as `sample.user` (paging with `skip`), and checks the ids,
    /// `total_entries` on every page, and `count=1` against the reference's answer.
    static func check(
        _ clauses: [Clause], _ sample: Sample, _ harness: EmulatorHarness, proper: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let query = ReferenceFilter.query(clauses)
        let expected = ReferenceFilter.ids(sample.records, clauses)
        try #require(!expected.isEmpty, "\(query) selects nothing in the truth", sourceLocation: sourceLocation)
        if proper {
            try #require(
                expected.count < sample.records.count, "\(query) selects everything", sourceLocation: sourceLocation)
        }
        let got = try await allDialogs(query, as: sample.user, harness, sourceLocation: sourceLocation)
        #expect(got.count == Set(got).count, "\(query): a dialog listed twice", sourceLocation: sourceLocation)
        #expect(Set(got) == Set(expected), "\(query)", sourceLocation: sourceLocation)
        let (status, body) = try await harness.body("/chat/Dialog.json?count=1&\(query)", as: sample.user)
        #expect(status == .ok, sourceLocation: sourceLocation)
        #expect(body == #"{"items":{"count":\#(expected.count)}}"#, "count=1&\(query)", sourceLocation: sourceLocation)
    }

    /// Every dialog id a query lists, page by page; each page's `total_entries` is the full count.
    static func allDialogs(
        _ query: String, as user: Int, _ harness: EmulatorHarness, limit: Int = 100,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        var ids: [String] = []
        var total: Int?
        while true {
            let page = try await harness.json(
                "/chat/Dialog.json?limit=\(limit)&skip=\(ids.count)&\(query)", as: user, sourceLocation: sourceLocation)
            let items = try #require(page["items"]?.arrayValue, sourceLocation: sourceLocation)
            let pageTotal = try #require(page["total_entries"]?.lenientInt, sourceLocation: sourceLocation)
            #expect(total == nil || total == pageTotal, sourceLocation: sourceLocation)
            total = pageTotal
            ids += items.ids
            if items.count < limit || ids.count >= pageTotal { break }
        }
        #expect(ids.count == total, "\(query): total_entries", sourceLocation: sourceLocation)
        return ids
    }

    static func sample(_ harness: EmulatorHarness, user: Int = 100_001) async throws -> Sample {
        Sample(user: user, records: try await harness.truthRecords().visibleDialogs(for: user))
    }

    @Test(
        "A user sees the dialogs it occupies and every public dialog, nothing else",
        arguments: [100_001, 100_006])
    func visibility(user: Int) async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let truth = try await harness.truthRecords()
            let expected = Set(truth.visibleDialogs(for: user).ids)
            #expect(truth.dialogs.contains { $0["type"] == 1 })
            #expect(expected.count < truth.dialogs.count, "some dialogs are hidden from user \(user)")
            let listed = try await Self.allDialogs("", as: user, harness)
            #expect(Set(listed) == expected)
            #expect(listed.count == expected.count)
            let page = try await harness.json("/chat/Dialog.json?limit=100", as: user)
            let dialogs = try Page<Dialog>(json: page).items
            #expect(dialogs.allSatisfy { $0.type == .publicGroup || $0.occupantIDs.contains(user) })
        }
    }

    @Test("type: in and equality")
    func type() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            try await Self.check([Clause("type", "in", "1,2")], sample, harness)
            try await Self.check([Clause("type", "", "3")], sample, harness)
            try await Self.check([Clause("type", "in", "1, 3")], sample, harness)
        }
    }

    @Test("name: ctn (case-insensitive), ne and in; _id: ne")
    func nameAndID() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            let names = sample.records.compactMap { $0["name"]?.stringValue }.sorted()
            let groupName = try #require(
                sample.records.first { $0["type"] == 2 }?["name"]?.stringValue, "user sees no group dialog")
            // The first word of a group's name, upper-cased: `New Year party #3` → `NEW`.
            let word = String(groupName.split(separator: " ")[0]).uppercased()
            try await Self.check([Clause("name", "ctn", word)], sample, harness)
            try await Self.check([Clause("name", "ne", groupName)], sample, harness)
            let two = [names[0], names[names.count / 2]]
            #expect(two.allSatisfy { !$0.contains(",") })
            try await Self.check([Clause("name", "in", two.joined(separator: ","))], sample, harness)
            try await Self.check([Clause("_id", "ne", TruthRecords.id(sample.records[0]))], sample, harness)
        }
    }

    @Test(
        "lt, lte, gt and gte on created_at and updated_at in unix seconds",
        arguments: ["lt", "lte", "gt", "gte"], ["created_at", "updated_at"])
    func dates(op: String, field: String) async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            let values = sample.distinct(field)
            try #require(values.count >= 2)
            let value = op.hasPrefix("lt") ? values[values.count / 2] : values[(values.count - 1) / 2]
            try await Self.check([Clause(field, op, String(value))], sample, harness, proper: op.count == 2)
        }
    }

    @Test("last_message_date_sent: gt, lt and nin (empty dialogs have none)")
    func lastMessageDateSent() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            let values = sample.distinct("last_message_date_sent")
            try #require(values.count >= 3)
            let middle = String(values[values.count / 2])
            try await Self.check([Clause("last_message_date_sent", "gt", middle)], sample, harness)
            try await Self.check([Clause("last_message_date_sent", "lt", middle)], sample, harness)
            try await Self.check(
                [Clause("last_message_date_sent", "nin", "\(values[0]), \(values[1])")], sample, harness)
        }
    }

    @Test("occupants_ids[all]: dialogs holding every listed user")
    func occupantsAll() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            let group = try #require(
                sample.records.first { $0["type"] == 2 && TruthRecords.occupants($0).count >= 3 })
            let occupants = TruthRecords.occupants(group).filter { $0 != sample.user }
            try await Self.check(
                [Clause("occupants_ids", "all", "\(sample.user),\(occupants[0])")], sample, harness)
            try await Self.check(
                [Clause("occupants_ids", "all", "\(occupants[0]),\(occupants[1])")], sample, harness)
        }
    }

    @Test("Custom data: data[class_name] and data[category] select exactly the truth's dialogs")
    func customData() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let truth = try await harness.truthRecords()
            let withData = truth.dialogs.filter { $0["data"]?["class_name"] == "GroupInfo" }
            try #require(!withData.isEmpty, "the seeded data holds no dialog with custom data")
            // Read as an occupant of one of them, so that the filter has something to find.
            let user = try #require(TruthRecords.occupants(withData[0]).first)
            let sample = Sample(user: user, records: truth.visibleDialogs(for: user))
            try await Self.check([Clause("data[class_name]", "", "GroupInfo")], sample, harness)
            let category = try #require(withData[0]["data"]?["category"]?.stringValue)
            try await Self.check([Clause("data[category]", "", category)], sample, harness)
            try await Self.check(
                [Clause("data[class_name]", "", "GroupInfo"), Clause("data[category]", "", category)], sample, harness)
            // An operator after the custom field: `data[category][in]=work,school`.
            try await Self.check([Clause("data[category]", "in", "\(category),nothing")], sample, harness)
            try await Self.check([Clause("data[category]", "ne", category)], sample, harness)
            // Percent-encoded brackets name the same field.
            let raw = try await harness.body("/chat/Dialog.json?data[category]=\(category)", as: user)
            let encoded = try await harness.body("/chat/Dialog.json?data%5Bcategory%5D=\(category)", as: user)
            #expect(raw == encoded)
        }
    }

    @Test("total_entries is the full match count whatever the limit; skip pages through without overlap")
    func totalEntries() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            let expected = Set(sample.records.ids)
            try #require(expected.count > 7)
            let page = try await harness.json("/chat/Dialog.json?limit=3")
            #expect(page["limit"] == 3)
            #expect(page["skip"] == 0)
            #expect(page["items"]?.arrayValue?.count == 3)
            #expect(page["total_entries"]?.lenientInt == expected.count)
            let paged = try await Self.allDialogs("", as: sample.user, harness, limit: 3)
            #expect(paged.count == expected.count)
            #expect(Set(paged) == expected)
            let groups = ReferenceFilter.ids(sample.records, [Clause("type", "", "2")])
            let filtered = try await harness.json("/chat/Dialog.json?type=2&limit=1&skip=1")
            #expect(filtered["total_entries"]?.lenientInt == groups.count)
            #expect(filtered["skip"] == 1)
        }
    }

    @Test("count=1 answers exactly {\"items\":{\"count\":N}}")
    func count() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            let (status, body) = try await harness.body("/chat/Dialog.json?count=1")
            #expect(status == .ok)
            #expect(body == #"{"items":{"count":\#(sample.records.count)}}"#)
            let privates = ReferenceFilter.ids(sample.records, [Clause("type", "", "3")]).count
            let filtered = try await harness.body("/chat/Dialog.json?count=1&type=3&limit=1")
            #expect(filtered.1 == #"{"items":{"count":\#(privates)}}"#)
        }
    }

    @Test("sort_asc=created_at and sort_desc=created_at order the whole list")
    func sortByCreation() async throws {
        try await EmulatorHarness.run(Self.configure) { harness in
            let sample = try await Self.sample(harness)
            let ordered = sample.records.sorted {
                let a = ReferenceFilter.seconds($0["created_at"]?.stringValue ?? "") ?? 0
                let b = ReferenceFilter.seconds($1["created_at"]?.stringValue ?? "") ?? 0
                return (a, TruthRecords.id($0)) < (b, TruthRecords.id($1))
            }.ids
            #expect(try await Self.allDialogs("sort_asc=created_at", as: sample.user, harness, limit: 7) == ordered)
            let descending = try await Self.allDialogs("sort_desc=created_at", as: sample.user, harness, limit: 7)
            #expect(descending.map { ordered.firstIndex(of: $0) ?? -1 } == Array(ordered.indices.reversed()))
        }
    }
}
