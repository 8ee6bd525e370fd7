import GRDB
internal import GRDBSQLite
import TextIndex

/// The word index's FTS5 tokenizer (`tokenize='qbarchive_words 2'`): the shared ``TextIndex/WordTokenizer``
/// behind SQLite's interface, so that the index holds exactly the tokens every backend indexes.
///
/// Registered on every connection of an archive (``SQLiteArchive/makeConfiguration(readOnly:)``): FTS5 calls
/// it for each message written and for each query. The argument is the version of the segmentation rules;
/// a later version is a new migration that rebuilds the index, and an archive whose index was built by rules
/// this build does not know is refused rather than searched wrongly.
final class WordIndexTokenizer: FTS5CustomTokenizer {
    static let name = "qbarchive_words"
    /// The version of ``TextIndex/WordTokenizer``'s rules this build indexes with: 2 since digits of scripts
    /// written without spaces are numbers and format characters inside words are ignored (migration
    /// `v11-word-rules-2` rebuilds an index of version 1).
    static let version = "2"

    private var tokenizer = WordTokenizer()

    init(db: Database, arguments: [String]) throws {
        // An index of version 1 is opened only by the migration that drops it: searches and writes wait for
        // every migration (``SQLiteArchive/openReadOnly(at:statementTimeout:progress:)``).
        if arguments == ["1"] { return }
        try FTS5TokenSink.checkVersion(arguments, is: Self.version, of: "word index")
    }

    func tokenize(
        context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
        nText: CInt, tokenCallback: @escaping FTS5TokenCallback
    ) -> CInt {
        guard let text = FTS5TokenSink.text(pText, nText) else { return SQLITE_OK }
        var sink = FTS5TokenSink(context: context, callback: tokenCallback)
        tokenizer.tokenize(text, mode: tokenization.contains(.query) ? .query : .document) { token, colocated, range in
            sink.send(token, colocated: colocated, range: range)
        }
        return sink.status
    }
}
