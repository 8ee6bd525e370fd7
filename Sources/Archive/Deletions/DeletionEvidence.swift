import QuickBlox

/// Why the archive holds a message or dialog as deleted for everyone: which views saw it gone.
///
/// QuickBlox removes a message for one user unless the owner forces it (reference §8), so one view that no
/// longer lists it proves nothing. A tombstone is written only when every view that could still show it was
/// asked — the reading view and the re-checked occupants — and none did. Stored as JSON in
/// `deleted_evidence` (docs/archive-schema.md):
/// `{"absent_from":[3,7,9],"readers":3,"scope":"app"}`.
public struct DeletionEvidence: Sendable, Hashable {
    /// Users whose views were read and did not list it.
    public var absentFrom: [Int]
    /// How many users could read the dialog when it was checked (all of them are in ``absentFrom``).
    public var readers: Int
    /// The crawl scope that observed it (`app`).
    public var scope: String

    public init(absentFrom: [Int], readers: Int, scope: String = "app") {
        self.absentFrom = absentFrom.sorted()
        self.readers = readers
        self.scope = scope
    }

    /// The `deleted_evidence` column.
    public var json: String {
        let value = JSONValue.object([
            "absent_from": .array(absentFrom.map(JSONValue.int)), "readers": .int(readers), "scope": .string(scope),
        ])
        return String(decoding: value.serialized(), as: UTF8.self)
    }
}
