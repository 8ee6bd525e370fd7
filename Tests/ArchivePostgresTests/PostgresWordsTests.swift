import Testing

@testable import ArchivePostgres

/// The quoting of a lexeme for `tsvector` and `tsquery` input, written by hand (byte by byte).
struct PostgresWordsTests {
    @Test(arguments: [
        ("word", "'word'"), ("it's", "'it''s'"), ("a\\b", "'a\\\\b'"), ("''", "''''''"), ("\\'", "'\\\\'''"),
        ("grüße", "'grüße'"), ("会议", "'会议'"), ("", "''"),
    ])
    func quotesAndBackslashesAreDoubled(token: String, quoted: String) {
        #expect(PostgresWords.lexeme(token) == quoted)
    }
}
