import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Testing

/// One filter parameter of a list request: `field[op]=value`, with an empty `op` for plain equality.
struct Clause: Sendable, CustomStringConvertible {
    var field: String
    var op: String
    var value: String

    init(_ field: String, _ op: String = "", _ value: String) {
        self.field = field
        self.op = op
        self.value = value
    }

    /// The parameter name: `field` or `field[op]`.
    var key: String { op.isEmpty ? field : "\(field)[\(op)]" }

    /// `key=value` with the key raw, as the docs write it, and the value percent-encoded except for
    /// commas, which separate list values (`sender_id[in]=100001,%20100002`).
    var query: String { key + "=" + ReferenceFilter.encode(value) }

    var description: String { "\(key)=\(value)" }
}

/// An evaluator of QuickBlox filters over truth-dump records, written from the REST reference (§4,
/// filters and operators) and MongoDB's semantics, independently of the emulator's `FilterSet`:
/// every clause must hold, except that all `[or]` clauses together form one
/// alternative; on an array field `=` means "contains", `all` "contains every", `in` "shares one";
/// `ne` and `nin` match a record without the field; `ctn` is a case-insensitive substring test.
enum ReferenceFilter {
    /// A field's value in a record: numbers (one for a scalar), texts, or nothing.
    enum Values {
        case numbers([Int])
        case texts([String])
        case absent
    }

    /// Operators whose value is a comma-separated list.
    static let listOperators: Set<String> = ["in", "nin", "all", "or"]

    /// Whether `record` satisfies every clause (the `[or]` clauses as one disjunction).
    static func matches(_ record: JSONValue, _ clauses: [Clause]) -> Bool {
        let alternatives = clauses.filter { $0.op == "or" }
        let required = clauses.filter { $0.op != "or" }
        guard required.allSatisfy({ holds($0, record) }) else { return false }
        return alternatives.isEmpty || alternatives.contains { holds($0, record) }
    }

    /// The `_id`s of the records that match, in the records' order.
    static func ids(_ records: [JSONValue], _ clauses: [Clause]) -> [String] {
        records.filter { matches($0, clauses) }.compactMap { $0["_id"]?.stringValue }
    }

    static func holds(_ clause: Clause, _ record: JSONValue) -> Bool {
        let wanted =
            listOperators.contains(clause.op)
            ? clause.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : [clause.value]
        switch values(of: clause.field, in: record) {
        case .absent:
            return clause.op == "ne" || clause.op == "nin"
        case .numbers(let have):
            let numbers = wanted.map { Int($0) ?? seconds($0) }
            guard numbers.allSatisfy({ $0 != nil }) else { return false }
            return compare(clause.op, have: have, wanted: numbers.map { $0! }, contains: { _, _ in false })
        case .texts(let have):
            return compare(clause.op, have: have, wanted: wanted) { text, part in
                text.lowercased().contains(part.lowercased())
            }
        }
    }

    private static func compare<T: Comparable>(
        _ op: String, have: [T], wanted: [T], contains: (T, T) -> Bool
    ) -> Bool {
        guard let first = wanted.first else { return false }
        switch op {
        case "": return have.contains(first)
        case "ne": return !have.contains(first)
        case "lt": return have.contains { $0 < first }
        case "lte": return have.contains { $0 <= first }
        case "gt": return have.contains { $0 > first }
        case "gte": return have.contains { $0 >= first }
        case "in", "or": return have.contains { wanted.contains($0) }
        case "nin": return !have.contains { wanted.contains($0) }
        case "all": return wanted.allSatisfy { have.contains($0) }
        case "ctn": return have.contains { contains($0, first) }
        default: return false
        }
    }

    /// Reads `field` of a message or dialog record as the API exposes it.
    static func values(of field: String, in record: JSONValue) -> Values {
        if field == "attachments.type" {
            return .texts(record["attachments"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? [])
        }
        if field.hasPrefix("data["), field.hasSuffix("]") {
            return values(record["data"]?[String(field.dropFirst(5).dropLast())])
        }
        if field == "created_at" || field == "updated_at" {
            // Output is ISO-8601 text; filters compare it as unix seconds.
            guard let text = record[field]?.stringValue, let value = seconds(text) else { return .absent }
            return .numbers([value])
        }
        return values(record[field])
    }

    private static func values(_ json: JSONValue?) -> Values {
        switch json {
        case .int(let number)?: return .numbers([number])
        case .double(let number)?: return .numbers([Int(number.rounded(.down))])
        case .string(let text)?: return .texts([text])
        case .bool(let flag)?: return .texts([flag ? "true" : "false"])
        case .array(let elements)?:
            let numbers = elements.compactMap { element -> Int? in
                if case .int(let number) = element { return number }
                return nil
            }
            if numbers.count == elements.count { return .numbers(numbers) }
            return .texts(elements.compactMap(\.stringValue))
        default: return .absent
        }
    }

    /// Unix seconds of an ISO-8601 timestamp, parsed by Foundation (not by the code under test).
    static func seconds(_ text: String) -> Int? {
        guard let date = try? Date.ISO8601FormatStyle().parse(text) else { return nil }
        return Int(date.timeIntervalSince1970)
    }

    /// The ISO-8601 text of unix seconds, formatted by Foundation.
    static func iso(_ seconds: Int) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }

    /// Percent-encodes all but RFC 3986 unreserved characters and commas.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The clauses as a query string.
    static func query(_ clauses: [Clause]) -> String {
        clauses.map(\.query).joined(separator: "&")
    }
}

/// The truth dump, split by kind, each record as the API would show it.
struct TruthRecords: Sendable {
    var dialogs: [JSONValue] = []
    /// Each dialog's messages in dump order: by `date_sent`, then `_id`.
    var messages: [String: [JSONValue]] = [:]

    init(_ lines: [JSONValue]) {
        for line in lines {
            guard let record = line["record"] else { continue }
            switch line["kind"]?.stringValue {
            case "dialog": dialogs.append(record)
            case "message": messages[record["chat_dialog_id"]?.stringValue ?? "", default: []].append(record)
            default: break
            }
        }
    }

    /// Dialogs `user` may list: those it occupies, and every public (type 1) dialog.
    func visibleDialogs(for user: Int) -> [JSONValue] {
        dialogs.filter { $0["type"] == 1 || Self.occupants($0).contains(user) }
    }

    func messages(of dialog: String) -> [JSONValue] { messages[dialog] ?? [] }

    /// The `user`'s occupied dialog of `type` (any when `nil`) with the most messages: without `type`,
    /// the dialog `EmulatorHarness.busiestDialog()` picks, found without decoding the dump again.
    func busiestDialog(of user: Int, type: Int? = nil) -> JSONValue? {
        dialogs.filter { Self.occupants($0).contains(user) && (type == nil || $0["type"] == .int(type!)) }
            .max { messages(of: Self.id($0)).count < messages(of: Self.id($1)).count }
    }

    static func id(_ record: JSONValue) -> String { record["_id"]?.stringValue ?? "" }
    static func occupants(_ record: JSONValue) -> [Int] {
        record["occupants_ids"]?.arrayValue?.compactMap(\.lenientInt) ?? []
    }
}

/// Parsed truth dumps, by their text. Parsing a dump takes most of a test's time, and most tests
/// start from the same seeded data; a dump changed by a write has other text and is parsed afresh.
actor TruthCache {
    static let shared = TruthCache()
    private var parsed: [[String]: TruthRecords] = [:]

    func records(_ lines: [String]) throws -> TruthRecords {
        if let records = parsed[lines] { return records }
        let records = TruthRecords(try lines.map { try JSONValue(parsing: $0) })
        parsed[lines] = records
        return records
    }
}

extension EmulatorHarness {
    /// The truth dump as it is now, split by kind.
    func truthRecords() async throws -> TruthRecords {
        try await TruthCache.shared.records(await emulator.truthLines())
    }

    /// Every message of a filtered list, read page by page with `skip` (`limit=100`, `mark_as_read=0`),
    /// as the raw items the API sent.
    func allMessages(
        _ dialog: String, _ query: String, as user: Int = 100_001, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [JSONValue] {
        var items: [JSONValue] = []
        while true {
            let page = try await json(
                "/chat/Message.json?chat_dialog_id=\(dialog)&mark_as_read=0&limit=100&skip=\(items.count)&\(query)",
                as: user, sourceLocation: sourceLocation)
            let batch = try #require(page["items"]?.arrayValue, sourceLocation: sourceLocation)
            items += batch
            if batch.count < 100 { return items }
        }
    }

    /// The raw body of a GET as `user`, with its status.
    func body(_ uri: String, as user: Int = 100_001) async throws -> (HTTPResponse.Status, String) {
        let response = try await request(.get, uri, headers: Self.asUser(user))
        return (response.status, response.text)
    }
}

extension [JSONValue] {
    /// The `_id` of each record.
    var ids: [String] { compactMap { $0["_id"]?.stringValue } }
}
