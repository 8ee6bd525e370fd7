import Archive
import PostgresNIO

extension PostgresArchive {
    /// Messages read per statement by ``integrityProblems()``.
    static let integrityBatch = 1_000

    /// What the archive finds wrong with itself: every message whose words (`message_words`) or `text_folded`
    /// differ from what the writer computes from its `text` (``PostgresWords``, ``PostgresPageWriter/folded(_:)``)
    /// — the stand-ins for SQLite's full-text indexes, which its own check compares with the messages. An empty
    /// list when all is well.
    ///
    /// It reads every message, a batch at a time, in `rowid` order (not one transaction: a crawl may write
    /// meanwhile, and a message it rewrites is written with its words). `NULL`-ness and `text_folded` are compared
    /// here; the vectors by the server, as `tsvector`s, since it normalises their text. Changes nothing.
    public func integrityProblems() async throws -> [String] {
        var problems: [String] = []
        var after = Int64.min
        while true {
            var batch: [(rowID: Int64, id: String, text: String?, folded: String?, words: String?)] = []
            let rows = try await client.query(
                """
                SELECT m.rowid, m.id, m.text, m.text_folded, w.words::text
                FROM messages m LEFT JOIN message_words w ON w.date_key = m.date_key
                WHERE m.rowid > \(after) ORDER BY m.rowid LIMIT \(Self.integrityBatch)
                """, logger: Self.silent)
            for try await row in rows.decode((Int64, String, String?, String?, String?).self) {
                batch.append((row.0, row.1, row.2, row.3, row.4))
            }
            var rowIDs: [Int64] = []
            var expected: [String] = []
            var stored: [String] = []
            for message in batch {
                let vector = PostgresWords.vector(of: message.text)
                if message.folded.map({ Array($0.unicodeScalars) })
                    != PostgresPageWriter.folded(message.text).map({ Array($0.unicodeScalars) })
                {
                    problems.append("message \(message.id): text_folded is not the folded text")
                }
                switch (vector, message.words) {
                case (nil, nil): break
                case (let vector?, let words?):
                    rowIDs.append(message.rowID)
                    expected.append(vector)
                    stored.append(words)
                default:
                    problems.append("message \(message.id): words is \(message.words == nil ? "NULL" : "set")")
                }
            }
            if !rowIDs.isEmpty {
                let differing = try await client.query(
                    """
                    SELECT m.id FROM unnest(\(rowIDs)::bigint[], \(expected)::text[], \(stored)::text[]) AS v (r, e, s)
                    JOIN messages m ON m.rowid = v.r
                    WHERE v.e::tsvector <> v.s::tsvector ORDER BY v.r
                    """, logger: Self.silent)
                for try await id in differing.decode(String.self) {
                    problems.append("message \(id): words are not the tokens of its text")
                }
            }
            guard let last = batch.last, batch.count == Self.integrityBatch else { break }
            after = last.rowID
        }
        return problems
    }
}
