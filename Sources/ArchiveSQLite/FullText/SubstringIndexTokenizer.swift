import GRDB
internal import GRDBSQLite
import TextIndex

/// The substring index's FTS5 tokenizer (`tokenize='qbarchive_trigrams 1'`): every three consecutive scalars of
/// the text folded by ``TextIndex/ContainsFolding``, so that a phrase of a pattern's trigrams matches exactly
/// where `ctn` does — including NFD text, Greek final sigma and other foldings SQLite's built-in trigram
/// tokenizer does not make.
final class SubstringIndexTokenizer: FTS5CustomTokenizer {
    static let name = "qbarchive_trigrams"
    static let version = "1"

    private var scratch: [UInt8] = []

    init(db: Database, arguments: [String]) throws {
        try FTS5TokenSink.checkVersion(arguments, is: Self.version, of: "substring index")
    }

    func tokenize(
        context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
        nText: CInt, tokenCallback: @escaping FTS5TokenCallback
    ) -> CInt {
        guard let text = FTS5TokenSink.text(pText, nText) else { return SQLITE_OK }
        var sink = FTS5TokenSink(context: context, callback: tokenCallback)
        ContainsFolding.forEachTrigram(text, scratch: &scratch) { token, range in
            sink.send(token, colocated: false, range: range)
        }
        return sink.status
    }
}
