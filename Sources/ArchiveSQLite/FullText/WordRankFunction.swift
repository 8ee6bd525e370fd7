import Foundation
import GRDB
internal import GRDBSQLite

/// `qbarchive_word_rank(message_words)`: FTS5's `bm25()` of the word index — the same score, bit for bit — with
/// each hit's length read through one blob handle kept open for the whole query.
///
/// bm25 weighs a hit by its length in tokens, which FTS5 keeps in the index's `docsize` table; its own `bm25()`
/// runs a statement for each hit to read it (bind, step, reset: a transaction check, a cursor opened and closed).
/// A ranked search reads every hit's length (25,000 of them for a frequent word at a million messages), and those
/// statements were most of its time. A blob handle moved from row to row (`sqlite3_blob_reopen`) seeks the same
/// B-tree without the rest. SQLite offers no ranking function that does this, hence this one; the arithmetic is
/// `fts5Bm25Function`'s (SQLite's `ext/fts5/fts5_aux.c`, k1 = 1.2, b = 0.75, every column weighing 1), and a test
/// compares the two scores of every hit of many queries. Where the blob cannot be read, the length comes from
/// FTS5 as `bm25()` reads it.
enum WordRankFunction {
    static let name = "qbarchive_word_rank"
    /// The index whose hits it ranks, and the table of their lengths.
    static let docsizeTable = "message_words_docsize"

    /// Registers the function on a connection (``SQLiteArchive/makeConfiguration(readOnly:)``).
    static func register(on db: Database) throws {
        let api = FTS5.api(db)
        let code = api.pointee.xCreateFunction(
            UnsafeMutablePointer(mutating: api), name, nil, rank, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register \(name)")
        }
    }

    /// The per-row callback: `-score`, lower is better, as `bm25()`.
    private static let rank: fts5_extension_function = { api, fts, context, _, _ in
        guard let api, let fts else { return }
        var code = SQLITE_OK
        if let query = Query.of(api, fts, context, &code) {
            var score = 0.0
            code = query.score(api, fts, &score)
            if code == SQLITE_OK {
                sqlite3_result_double(context, -1.0 * score)
                return
            }
        }
        sqlite3_result_error_code(context, code)
    }

    /// What a query computes once: the average length and each phrase's inverse document frequency, as
    /// `fts5Bm25GetData` does; and the blob handle on `docsize`.
    final class Query {
        private let idf: [Double]
        private let averageLength: Double
        /// Each phrase's frequency in the current row (a buffer: no exclusivity check per row).
        private let frequencies: UnsafeMutableBufferPointer<Double>
        private let database: OpaquePointer?
        private var blob: OpaquePointer?
        /// Set once the blob could not be read: the rest of the query asks FTS5.
        private var blobFailed = false

        private init(idf: [Double], averageLength: Double, database: OpaquePointer?) {
            self.idf = idf
            self.averageLength = averageLength
            self.frequencies = .allocate(capacity: idf.count)
            self.database = database
        }

        deinit {
            if let blob { sqlite3_blob_close(blob) }
            frequencies.deallocate()
        }

        /// The query's state, made at its first row and kept by FTS5 until the query ends; `nil` with FTS5's
        /// error in `code` when it cannot be made.
        static func of(
            _ api: UnsafePointer<Fts5ExtensionApi>, _ fts: OpaquePointer, _ context: OpaquePointer?,
            _ code: inout CInt
        ) -> Query? {
            if let kept = api.pointee.xGetAuxdata(fts, 0) {
                return Unmanaged<Query>.fromOpaque(kept).takeUnretainedValue()
            }
            let phrases = Int(api.pointee.xPhraseCount(fts))
            var rows: Int64 = 0
            var tokens: Int64 = 0
            code = api.pointee.xRowCount(fts, &rows)
            if code == SQLITE_OK { code = api.pointee.xColumnTotalSize(fts, -1, &tokens) }
            guard code == SQLITE_OK else { return nil }
            var idf: [Double] = []
            for phrase in 0..<phrases {
                var hits: Int64 = 0
                code = api.pointee.xQueryPhrase(fts, CInt(phrase), &hits, WordRankFunction.countHit)
                guard code == SQLITE_OK else { return nil }
                // `fts5Bm25GetData`'s: at least 1e-6 when the phrase is in more than half of the rows.
                let value = log((Double(rows - hits) + 0.5) / (Double(hits) + 0.5))
                idf.append(value <= 0.0 ? 1e-6 : value)
            }
            let query = Query(
                idf: idf, averageLength: Double(tokens) / Double(rows),
                database: context.flatMap { sqlite3_context_db_handle($0) })
            let kept = Unmanaged.passRetained(query).toOpaque()
            code = api.pointee.xSetAuxdata(fts, kept, WordRankFunction.releaseQuery)
            // On failure FTS5 has already called the destructor.
            guard code == SQLITE_OK else { return nil }
            return query
        }

        /// The row's bm25 score (positive: higher is better), as `fts5Bm25Function` computes it.
        func score(_ api: UnsafePointer<Fts5ExtensionApi>, _ fts: OpaquePointer, _ score: inout Double) -> CInt {
            let k1 = 1.2
            let b = 0.75
            frequencies.update(repeating: 0)
            var instances: CInt = 0
            var code = api.pointee.xInstCount(fts, &instances)
            var instance: CInt = 0
            while code == SQLITE_OK, instance < instances {
                var phrase: CInt = 0
                var column: CInt = 0
                var offset: CInt = 0
                code = api.pointee.xInst(fts, instance, &phrase, &column, &offset)
                if code == SQLITE_OK { frequencies[Int(phrase)] += 1.0 }
                instance += 1
            }
            guard code == SQLITE_OK else { return code }
            var tokens: CInt = 0
            code = length(api, fts, &tokens)
            guard code == SQLITE_OK else { return code }
            let length = Double(tokens)
            var sum = 0.0
            for (phrase, frequency) in frequencies.enumerated() {
                sum +=
                    idf[phrase] * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / averageLength)))
            }
            score = sum
            return SQLITE_OK
        }

        /// The row's length in tokens, summed over its columns: from `docsize` through the blob handle, or from
        /// FTS5 (`xColumnSize`) when the blob cannot be read.
        private func length(_ api: UnsafePointer<Fts5ExtensionApi>, _ fts: OpaquePointer, _ tokens: inout CInt)
            -> CInt
        {
            if !blobFailed, let sum = lengthFromBlob(rowid: api.pointee.xRowid(fts)) {
                tokens = sum
                return SQLITE_OK
            }
            return api.pointee.xColumnSize(fts, -1, &tokens)
        }

        private func lengthFromBlob(rowid: Int64) -> CInt? {
            let code =
                if let blob {
                    sqlite3_blob_reopen(blob, rowid)
                } else {
                    sqlite3_blob_open(database, "main", WordRankFunction.docsizeTable, "sz", rowid, 0, &blob)
                }
            guard code == SQLITE_OK, let blob else { return fail() }
            let size = Int(sqlite3_blob_bytes(blob))
            // One varint per column, at most nine bytes each; the word index has one column.
            var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            return withUnsafeMutableBytes(of: &bytes) { buffer -> CInt? in
                guard size > 0, size <= buffer.count,
                    sqlite3_blob_read(blob, buffer.baseAddress, CInt(size), 0) == SQLITE_OK
                else { return fail() }
                var sum: UInt32 = 0
                var at = 0
                while at < size {
                    guard let (value, next) = Self.varint32(buffer, at: at, end: size) else { return fail() }
                    sum &+= value
                    at = next
                }
                return CInt(truncatingIfNeeded: sum)
            }
        }

        private func fail() -> CInt? {
            if let blob { sqlite3_blob_close(blob) }
            blob = nil
            blobFailed = true
            return nil
        }

        /// An SQLite varint (big-endian groups of seven bits, the ninth byte whole), as FTS5's `fts5GetVarint32`
        /// reads a column's size: its low 32 bits.
        static func varint32(_ buffer: UnsafeMutableRawBufferPointer, at start: Int, end: Int) -> (UInt32, Int)? {
            var value: UInt64 = 0
            var at = start
            while at < end {
                let byte = buffer[at]
                at += 1
                if at - start == 9 { return (UInt32(truncatingIfNeeded: value << 8 | UInt64(byte)), at) }
                value = value << 7 | UInt64(byte & 0x7f)
                if byte & 0x80 == 0 { return (UInt32(truncatingIfNeeded: value), at) }
            }
            return nil
        }
    }

    private static let countHit:
        @convention(c) (UnsafePointer<Fts5ExtensionApi>?, OpaquePointer?, UnsafeMutableRawPointer?) -> CInt = {
            _, _, hits in
            hits?.assumingMemoryBound(to: Int64.self).pointee += 1
            return SQLITE_OK
        }

    private static let releaseQuery: @convention(c) (UnsafeMutableRawPointer?) -> Void = { kept in
        if let kept { Unmanaged<Query>.fromOpaque(kept).release() }
    }
}
