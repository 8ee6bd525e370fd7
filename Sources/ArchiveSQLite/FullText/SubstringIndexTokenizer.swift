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
        guard arguments == [Self.version] else {
            throw DatabaseError(
                resultCode: .SQLITE_ERROR,
                message:
                    "the substring index was built by a newer qbarchive (tokenizer \(arguments.joined(separator: " ")))"
            )
        }
    }

    func tokenize(
        context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
        nText: CInt, tokenCallback: @escaping FTS5TokenCallback
    ) -> CInt {
        guard let pText, nText > 0 else { return SQLITE_OK }
        let text = UnsafeBufferPointer(
            start: UnsafeRawPointer(pText).assumingMemoryBound(to: UInt8.self), count: Int(nText))
        var status = SQLITE_OK
        ContainsFolding.forEachTrigram(text, scratch: &scratch) { token, range in
            guard status == SQLITE_OK else { return }
            status = token.withMemoryRebound(to: CChar.self) { bytes in
                tokenCallback(
                    context, 0, bytes.baseAddress, CInt(bytes.count), CInt(range.lowerBound), CInt(range.upperBound))
            }
        }
        return status
    }
}
