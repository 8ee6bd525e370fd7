/// Finds where words, prefixes and phrases match inside a text, by the word index's rules: what the search
/// output and the web UI highlight.
///
/// A term matches where its units (``TextSegment/units``) stand consecutively among the text's: each equal to
/// a text unit or to one of that unit's prefix remainders (``AffixVariants``), the last one only starting it
/// for a prefix term, and characters that stand together in a run of the term standing together in one run
/// of the text. The index finds the same messages (a differential test compares the index with this rule);
/// this finds the places in one message.
public struct WordMatcher: Sendable {
    /// A unit of a text, with where it came from.
    struct Unit {
        var text: String
        var range: Range<String.Index>
        var run: Int?
        var remainders: [String]
    }

    private var terms: [(units: [Unit], prefix: Bool)] = []
    private var folder = WordFolder()

    /// A matcher for terms: each a text and whether it is a prefix (its last unit only starts a word).
    public init(terms: [(text: String, prefix: Bool)]) {
        for term in terms {
            let units = units(of: term.text, variants: false)
            if !units.isEmpty { self.terms.append((units, term.prefix)) }
        }
    }

    /// The ranges of `text` where a term matches, in order, without overlaps.
    public mutating func ranges(in text: String) -> [Range<String.Index>] {
        guard !terms.isEmpty else { return [] }
        let haystack = units(of: text, variants: true)
        var found: [Range<String.Index>] = []
        for (needle, prefix) in terms where needle.count <= haystack.count {
            for start in 0...(haystack.count - needle.count)
            where Self.matches(needle, prefix: prefix, haystack, at: start) {
                found.append(haystack[start].range.lowerBound..<haystack[start + needle.count - 1].range.upperBound)
            }
        }
        var merged: [Range<String.Index>] = []
        for range in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound < last.upperBound { continue }
            merged.append(range)
        }
        return merged
    }

    private static func matches(_ needle: [Unit], prefix: Bool, _ haystack: [Unit], at start: Int) -> Bool {
        for index in needle.indices {
            let unit = haystack[start + index]
            let wanted = needle[index].text.unicodeScalars
            let last = prefix && index == needle.count - 1
            let equal = ([unit.text] + unit.remainders).contains { candidate in
                last ? candidate.unicodeScalars.starts(with: wanted) : candidate.unicodeScalars.elementsEqual(wanted)
            }
            guard equal else { return false }
            if index > 0, let run = needle[index].run, run == needle[index - 1].run {
                guard let textRun = unit.run, textRun == haystack[start + index - 1].run else { return false }
            }
        }
        return true
    }

    /// The units of `text` with their ranges: words (with their prefix remainders when `variants`), symbols,
    /// and each character of a run.
    private mutating func units(of text: String, variants: Bool) -> [Unit] {
        var units: [Unit] = []
        var runs = 0
        var groupKind = WordSegmenter.Kind.separator
        var groupStart = text.startIndex
        var position = text.startIndex
        func flush(upTo end: String.Index) {
            switch groupKind {
            case .word:
                let word = folder.fold(text[groupStart..<end])
                if !word.isEmpty {
                    units.append(
                        Unit(
                            text: word, range: groupStart..<end, run: nil,
                            remainders: variants ? AffixVariants.remainders(of: word) : []))
                }
            case .unspaced:
                runs += 1
                var index = groupStart
                while index < end {
                    let next = text.index(after: index)
                    for character in folder.fold(text[index..<next]) {
                        units.append(Unit(text: String(character), range: index..<next, run: runs, remainders: []))
                    }
                    index = next
                }
            case .separator, .symbol, .ignored:
                break
            }
        }
        while position < text.endIndex {
            let next = text.index(after: position)
            let kind = WordSegmenter.kind(of: text[position])
            if kind == .ignored {  // inside the group it stands in, folded away
                position = next
                continue
            }
            if kind != groupKind || kind == .symbol {
                flush(upTo: position)
                groupKind = kind
                groupStart = position
            }
            if kind == .symbol {
                let symbol = WordFolder.foldSymbol(text[position..<next])
                if !symbol.isEmpty {
                    units.append(Unit(text: symbol, range: position..<next, run: nil, remainders: []))
                }
                groupKind = .separator
            }
            position = next
        }
        flush(upTo: text.endIndex)
        return units
    }
}
