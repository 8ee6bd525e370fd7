/// One searchable piece of a text, folded, as ``WordSegmenter`` cuts it.
public enum TextSegment: Sendable, Hashable {
    /// A word of a script written with spaces: letters and digits, folded by ``WordFolder``.
    case word(String)
    /// A run of a script written without spaces (Chinese, Japanese, Korean, Thai, …), folded, as its
    /// characters (extended grapheme clusters): each one is a searchable unit.
    case run([String])
    /// An emoji or another non-ASCII symbol (`🎉`, `€`, `™`), without variation selectors or skin tones.
    case symbol(String)

    /// The units a match is counted in: a word or a symbol is one, a run is one per character.
    public var units: [String] {
        switch self {
        case .word(let text), .symbol(let text): [text]
        case .run(let characters): characters
        }
    }
}
