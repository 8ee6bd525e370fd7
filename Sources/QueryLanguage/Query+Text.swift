extension Query {
    /// The source text of a sub-expression (its terms' span), for explanations and error messages.
    public func text(of expression: QueryExpression) -> String {
        guard let range = expression.sourceRange else { return "\(expression)" }
        let characters = Array(source)
        guard range.lowerBound >= 0, range.upperBound <= characters.count else { return "\(expression)" }
        return String(characters[range])
    }
}

extension QueryExpression {
    /// The Character span of the expression in its source, from its first to its last term.
    public var sourceRange: Range<Int>? {
        switch self {
        case .text(let term): return term.range
        case .predicate(let predicate): return predicate.range
        case .not(let child): return child.sourceRange
        case .and(let children), .or(let children):
            let ranges = children.compactMap(\.sourceRange)
            guard let low = ranges.map(\.lowerBound).min(), let high = ranges.map(\.upperBound).max() else {
                return nil
            }
            return low..<high
        }
    }
}
