import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// ``HotStatement`` stores and reads every value exactly as GRDB does, the reference: the crawl's and the import's
/// writes go through it, and everything else in the archive reads them through GRDB.
@Suite("Statements of the hot loops")
struct HotStatementTests {
    /// One row's values, of the kinds the hot loops bind.
    struct Values: Equatable {
        var text: String?
        var number: Int?
        var big: Int64
        var blob: Data
    }

    static let texts: [String?] = [
        nil, "", "plain", "Grüße aus München", "会议 明天", "ελληνικά Σίσυφος", "👩🏽‍💻 ok", "a\u{0}b", "\u{0}",
        "tab\tand\nline", String(repeating: "x", count: 10_000), "'); DROP TABLE t; --",
    ]

    /// Values from a seeded generator: texts above, integers at the edges and between, blobs of any length.
    static func values(seed: UInt64, count: Int) -> [Values] {
        var generator = SeededRandom(seed: seed)
        let numbers: [Int?] = [nil, 0, -1, 1, Int.max, Int.min, 1_709_294_400]
        return (0..<count).map { _ in
            Values(
                text: texts.randomElement(using: &generator)!,
                number: Bool.random(using: &generator)
                    ? numbers.randomElement(using: &generator)!
                    : Int.random(in: -1_000_000...1_000_000, using: &generator),
                big: Int64.random(in: Int64.min...Int64.max, using: &generator),
                blob: Data(
                    (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }))
        }
    }

    static func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT, number INTEGER, big INTEGER NOT NULL, blob BLOB)"
            )
        }
        return queue
    }

    static let insert = "INSERT INTO t (id, text, number, big, blob) VALUES (?, ?, ?, ?, ?)"

    /// Each row as SQLite holds it: each value's type and bytes (`quote()` would stop at a U+0000).
    static func stored(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT typeof(text) || ':' || hex(text) || ' ' || quote(number) || ' ' || quote(big) || ' '
                        || typeof(blob) || ':' || hex(blob) FROM t ORDER BY id
                    """)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func valuesAreStoredAndReadAsGRDBStoresAndReadsThem(seed: UInt64) throws {
        let values = Self.values(seed: seed, count: 200)
        let reference = try Self.database()
        try reference.write { db in
            let statement = try db.cachedStatement(sql: Self.insert)
            for (id, value) in values.enumerated() {
                try statement.execute(arguments: [id, value.text, value.number, value.big, value.blob])
            }
        }
        let hot = try Self.database()
        try hot.write { db in
            let statement = try HotStatement(db: db, sql: Self.insert)
            for (id, value) in values.enumerated() {
                try statement.execute { row in
                    row.bind(1, Int64(id))
                    row.bind(2, value.text)
                    row.bind(3, value.number)
                    row.bind(4, value.big)
                    row.bind(5, value.blob)
                }
            }
        }
        #expect(try Self.stored(hot) == Self.stored(reference))

        // Read back: what GRDB's rows give, column by column.
        let read = try hot.read { db in
            let statement = try HotStatement(db: db, sql: "SELECT text, number, big, blob FROM t WHERE id = ?")
            return try values.indices.map { id in
                try statement.fetchFirst({ $0.bind(1, Int64(id)) }) { row in
                    Values(
                        text: row.string(0), number: row.int(1), big: row.int64(2), blob: row.data(3) ?? Data([0xFF]))
                }
            }
        }
        let expected = try hot.read { db in
            try Row.fetchAll(db, sql: "SELECT text, number, big, blob FROM t ORDER BY id").map { row in
                Values(text: row["text"], number: row["number"], big: row["big"], blob: row["blob"] ?? Data([0xFF]))
            }
        }
        #expect(read == expected)
        #expect(
            try hot.read { db in
                try HotStatement(db: db, sql: "SELECT text FROM t WHERE id = ?")
                    .fetchFirst({ $0.bind(1, Int64(-5)) }) { $0.string(0) }
            } == nil)
    }

    @Test func aFailedStepThrowsSQLitesErrorAndTheStatementRunsAgain() throws {
        let queue = try Self.database()
        try queue.write { db in
            let statement = try HotStatement(db: db, sql: Self.insert)
            func insert(_ id: Int64, big: Int64?) throws {
                try statement.execute { row in
                    row.bind(1, id)
                    row.bind(2, "row \(id)")
                    row.bind(3, nil as Int?)
                    if let big { row.bind(4, big) }
                    row.bind(5, Data())
                }
            }
            try insert(1, big: 10)
            let duplicate = #expect(throws: DatabaseError.self) { try insert(1, big: 11) }
            #expect(duplicate?.resultCode == .SQLITE_CONSTRAINT)
            #expect(duplicate?.message?.contains("UNIQUE") == true)
            // Bindings of an execution never leak into the next: `big` unbound is NULL, refused.
            let unbound = #expect(throws: DatabaseError.self) { try insert(2, big: nil) }
            #expect(unbound?.message?.contains("NOT NULL") == true)
            try insert(2, big: 12)
        }
        #expect(try Self.stored(queue) == ["text:726F772031 NULL 10 blob:", "text:726F772032 NULL 12 blob:"])
    }
}
