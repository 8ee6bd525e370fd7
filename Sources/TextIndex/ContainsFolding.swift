import Foundation

/// The rule of `ctn` (QuickBlox's "contains"): a case-insensitive substring, accents kept, shared by every
/// backend's substring index, the scan for patterns too short for it, and the reference evaluator.
///
/// A text and a pattern are compared as sequences of Unicode scalars after:
/// 1. canonical composition (NFC), so that text and patterns in NFC and NFD compare alike;
/// 2. case folding as upper-then-lower case, scalar by scalar (`Σ`, `σ` and final `ς` are one letter;
///    `ß` is `ss`; `İ` is `i` followed by its dot, which `ctn` keeps as an accent).
///
/// Nothing else is folded: `ctn "cafe"` does not find "café" (word search does).
public enum ContainsFolding {
    /// The case folding of every non-ASCII scalar whose case changes (planes 0 and 1 hold every cased
    /// letter): about 3,000 entries, computed once on first use.
    static let caseFolds: [UInt32: [Unicode.Scalar]] = {
        var table: [UInt32: [Unicode.Scalar]] = [:]
        for value in UInt32(0x80)..<0x2_0000 {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenCaseMapped else { continue }
            let folded = WordFolder.caseFolded(scalar)
            if folded != [scalar] { table[value] = folded }
        }
        return table
    }()

    /// Every non-ASCII scalar whose folding changes it, with its folding, in scalar order (ASCII folds by
    /// lower-casing `A`–`Z`): what a backend that cannot call this code (PostgreSQL's `qbarchive_fold`)
    /// compiles into its own function, so that both backends fold alike.
    public static var nonASCIIFolds: [(scalar: Unicode.Scalar, folded: [Unicode.Scalar])] {
        caseFolds.sorted { $0.key < $1.key }.compactMap { entry in Unicode.Scalar(entry.key).map { ($0, entry.value) } }
    }

    /// The scalars whose presence makes the folding compose the whole text canonically first (combining
    /// marks, conjoining jamo), as ranges: a backend that folds in its own code composes under the same
    /// condition, so that both fold a text with, say, a singleton like U+1FBB alike.
    public static var composingScalarRanges: [ClosedRange<UInt32>] {
        var ranges: [ClosedRange<UInt32>] = []
        var start: UInt32?
        for value in UInt32(0x80)...0x10FFFF {
            let composes = Unicode.Scalar(value).map(WordFolder.mayCompose) ?? false
            if composes, start == nil { start = value }
            if !composes, let first = start {
                ranges.append(first...(value - 1))
                start = nil
            }
        }
        if let first = start { ranges.append(first...0x10FFFF) }
        return ranges
    }

    /// `text` folded, as a string (see ``fold(_:)``).
    public static func folded(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: fold(text))
        return String(scalars)
    }

    /// `text` folded, as scalars.
    public static func fold(_ text: String) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(text.utf8.count)
        appendFolded(text, to: &result)
        return result
    }

    static func appendFolded(_ text: String, to result: inout [Unicode.Scalar]) {
        var composed = text
        if text.unicodeScalars.contains(where: { !$0.isASCII && WordFolder.mayCompose($0) }) {
            composed = text.precomposedStringWithCanonicalMapping
        }
        for scalar in composed.unicodeScalars {
            if scalar.isASCII {
                result.append(WordFolder.lowercased(scalar))
            } else if let folded = caseFolds[scalar.value] {
                result.append(contentsOf: folded)
            } else {
                result.append(scalar)
            }
        }
    }

    /// Whether `text` contains `pattern` under this rule (an empty pattern is in every text).
    public static func contains(_ text: String, _ pattern: String) -> Bool {
        contains(fold(text), folded: fold(pattern))
    }

    /// Whether the folded `haystack` contains the folded `needle`.
    public static func contains(_ haystack: [Unicode.Scalar], folded needle: [Unicode.Scalar]) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count else { return false }
        var start = 0
        let last = haystack.count - needle.count
        while start <= last {
            if haystack[start] == first, haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }

    /// How many scalars the folded `pattern` has: the substring index answers patterns of three or more.
    public static func foldedLength(_ pattern: String) -> Int {
        fold(pattern).count
    }

    /// Whether the word index holds every occurrence of `pattern` as a token: a pattern of one or two
    /// characters, each a Han ideograph, kana or Hangul syllable (caseless, without accents to fold, the same
    /// under both foldings), is a character or a pair of a run, which the word index stores at every
    /// position. Shorter patterns of other scripts need a scan.
    public static func isWordIndexed(_ pattern: String) -> Bool {
        guard (1...2).contains(pattern.count) else { return false }
        return pattern.allSatisfy { character in
            guard character.unicodeScalars.count == 1, let value = character.unicodeScalars.first?.value else {
                return false
            }
            switch value {
            case 0x3041...0x3096, 0x30A1...0x30FA, 0x30FC, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3,
                0x20000...0x2FA1F:
                return true
            default:
                return false
            }
        }
    }

    /// Calls `emit` with each run of three consecutive folded scalars of the UTF-8 `bytes` (the tokens of
    /// the substring index), as UTF-8, with the byte range of the text. `scratch` is reused between calls.
    public static func forEachTrigram(
        _ bytes: UnsafeBufferPointer<UInt8>, scratch: inout [UInt8],
        _ emit: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Void
    ) {
        let range = 0..<bytes.count
        if !bytes.contains(where: { $0 >= 0x80 }) {
            guard bytes.count >= 3 else { return }
            scratch.removeAll(keepingCapacity: true)
            for byte in bytes { scratch.append((0x41...0x5A).contains(byte) ? byte + 32 : byte) }
            scratch.withUnsafeBufferPointer { lower in
                for start in 0...(lower.count - 3) {
                    emit(UnsafeBufferPointer(rebasing: lower[start..<(start + 3)]), range)
                }
            }
            return
        }
        let scalars = fold(String(decoding: bytes, as: UTF8.self))
        guard scalars.count >= 3 else { return }
        scratch.removeAll(keepingCapacity: true)
        var offsets: [Int] = []
        offsets.reserveCapacity(scalars.count + 1)
        for scalar in scalars {
            offsets.append(scratch.count)
            scratch.append(contentsOf: UTF8.encode(scalar)!)
        }
        offsets.append(scratch.count)
        scratch.withUnsafeBufferPointer { encoded in
            for start in 0...(scalars.count - 3) {
                emit(UnsafeBufferPointer(rebasing: encoded[offsets[start]..<offsets[start + 3]]), range)
            }
        }
    }
}
