import QuickBlox
import Testing

@testable import QueryLanguage

/// 2024-03-10T15:30:00Z, a Sunday: relative dates in these tests are measured from it.
let testNow = 1_710_084_600
/// 2024-03-01T00:00:00Z.
let march2024 = 1_709_251_200
let day = 86_400
let parser = QueryParser(now: testNow)

func predicate(_ field: QueryField, _ op: FilterOperator, _ values: [QueryValue]) -> QueryExpression {
    .predicate(QueryPredicate(field: field, op: op, values: values, range: 0..<0))
}

func word(_ text: String) -> QueryExpression { .text(TextTerm(kind: .word, text: text, range: 0..<0)) }
func prefix(_ text: String) -> QueryExpression { .text(TextTerm(kind: .prefix, text: text, range: 0..<0)) }
func phrase(_ text: String) -> QueryExpression { .text(TextTerm(kind: .phrase, text: text, range: 0..<0)) }

/// The expression with every range zeroed, to compare structure and values only.
func shape(_ expression: QueryExpression) -> QueryExpression {
    switch expression {
    case .and(let children): return .and(children.map(shape))
    case .or(let children): return .or(children.map(shape))
    case .not(let child): return .not(shape(child))
    case .text(var term):
        term.range = 0..<0
        return .text(term)
    case .predicate(var predicate):
        predicate.range = 0..<0
        return .predicate(predicate)
    }
}

func parsed(_ source: String) throws -> QueryExpression {
    shape(try parser.parse(source).root)
}

/// The error parsing `source` throws, or `nil` (recorded as an issue) when it parses.
func failure(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) -> QueryError? {
    do {
        let query = try parser.parse(source)
        Issue.record("`\(source)` parsed as \(query.root)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
