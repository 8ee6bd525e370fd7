import GRDB
internal import GRDBSQLite

/// FTS5's side of one tokenizer call, shared by the archive's tokenizers: the text it hands over as UTF-8, and its
/// callback, which each token goes to until FTS5 refuses one (its status is then the call's result).
struct FTS5TokenSink {
    private let context: UnsafeMutableRawPointer?
    private let callback: FTS5TokenCallback
    /// `SQLITE_OK`, or the first refusal.
    private(set) var status = SQLITE_OK

    init(context: UnsafeMutableRawPointer?, callback: @escaping FTS5TokenCallback) {
        self.context = context
        self.callback = callback
    }

    /// The text of a call, or `nil` when there is none.
    static func text(_ pText: UnsafePointer<CChar>?, _ nText: CInt) -> UnsafeBufferPointer<UInt8>? {
        guard let pText, nText > 0 else { return nil }
        return UnsafeBufferPointer(
            start: UnsafeRawPointer(pText).assumingMemoryBound(to: UInt8.self), count: Int(nText))
    }

    /// Hands one token (UTF-8) to FTS5, with the byte range of the text it came from; nothing after a refusal.
    mutating func send(_ token: UnsafeBufferPointer<UInt8>, colocated: Bool, range: Range<Int>) {
        guard status == SQLITE_OK else { return }
        status = token.withMemoryRebound(to: CChar.self) { bytes in
            callback(
                context, colocated ? FTS5_TOKEN_COLOCATED : 0, bytes.baseAddress, CInt(bytes.count),
                CInt(range.lowerBound), CInt(range.upperBound))
        }
    }

    /// Refuses a tokenizer whose arguments name another version of the rules than this build's: an index built
    /// by rules this build does not know would be searched wrongly.
    static func checkVersion(_ arguments: [String], is version: String, of index: String) throws {
        guard arguments == [version] else {
            throw DatabaseError(
                resultCode: .SQLITE_ERROR,
                message: "the \(index) was built by a newer qbarchive (tokenizer \(arguments.joined(separator: " ")))")
        }
    }
}
