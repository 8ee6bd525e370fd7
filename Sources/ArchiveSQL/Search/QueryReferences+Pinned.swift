import QueryLanguage
import QuickBlox

extension QueryReferences {
    /// `query`'s text with every name it gives for a person or a dialog replaced by the ids they stand for now:
    /// `from:alice` becomes `(sender_id in (100003))`, `-in:"Payments"` becomes `-(dialog in ("65f1…"))`.
    ///
    /// What a legal hold stores: a name can move — a dialog renamed on the server, another given its old name, a
    /// login erased — and a hold that followed the name would stop keeping what it kept when placed, or stop
    /// resolving at all. Ids do not move. Every other part of the text (words, dates, relative dates) is kept as
    /// typed; a predicate that gives only ids is left as it is.
    func pinned(_ query: Query) -> String {
        var characters = Array(query.source)
        var rewrites: [(range: Range<Int>, text: String)] = []
        collect(query.root, into: &rewrites)
        for rewrite in rewrites.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            characters.replaceSubrange(rewrite.range, with: Array(rewrite.text))
        }
        return String(characters)
    }

    private func collect(_ expression: QueryExpression, into rewrites: inout [(range: Range<Int>, text: String)]) {
        switch expression {
        case .and(let children), .or(let children): for child in children { collect(child, into: &rewrites) }
        case .not(let child): collect(child, into: &rewrites)
        case .text: return
        case .predicate(let predicate):
            if let text = pinned(predicate) { rewrites.append((predicate.range, text)) }
        }
    }

    /// The predicate with ids for names, or `nil` when it names nothing by name.
    private func pinned(_ predicate: QueryPredicate) -> String? {
        guard [.equal, .notEqual, .in, .notIn].contains(predicate.op) else { return nil }
        var values: [String] = []
        var named = false
        for value in predicate.values {
            switch (predicate.field, value) {
            case (.dialog, .string(let text)):
                guard let found = dialogs[text] else { return nil }
                if found.map(\.id) != [text] { named = true }
                values += found.map { "\"\($0.id)\"" }
            case (.senderID, .login(let text)), (.recipientID, .login(let text)), (.hiddenFor, .login(let text)):
                guard let found = users[text] else { return nil }
                named = true
                values += found.map { String($0.id) }
            case (_, .int(let typed)):
                let id = userID(typed, predicate.field)
                if id != typed { named = true }  // digits that were a login
                values.append(String(id))
            default:
                return nil
            }
        }
        guard named else { return nil }
        let op = [.notEqual, .notIn].contains(predicate.op) ? "nin" : "in"
        return "(\(predicate.field.name) \(op) (\(values.joined(separator: ", "))))"
    }
}
