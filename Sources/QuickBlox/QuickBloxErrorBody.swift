/// An error body from the QuickBlox API, in either of its two forms.
///
/// `{"errors":["The resource wasn't found"]}` and `{"errors":{"base":["Required session does not exist"]}}`
/// both occur, sometimes for the same status on different endpoints.
public struct QuickBloxErrorBody: Sendable, Hashable {
    /// Messages in order; for the object form, `base` messages as they are and others as
    /// `"field message"` (QuickBlox's validation style, e.g. `login has already been taken`).
    public var messages: [String]
    /// Whether the body used the object form.
    public var isObjectForm: Bool

    /// `{"errors":[messages...]}`.
    public static func list(_ messages: String...) -> QuickBloxErrorBody {
        QuickBloxErrorBody(messages: messages, isObjectForm: false)
    }

    /// `{"errors":{"base":[messages...]}}`.
    public static func base(_ messages: String...) -> QuickBloxErrorBody {
        QuickBloxErrorBody(messages: messages, isObjectForm: true)
    }

    public init(messages: [String], isObjectForm: Bool) {
        self.messages = messages
        self.isObjectForm = isObjectForm
    }

    /// Reads either form; `nil` when the value has no `errors` member of a known shape.
    public init?(json: JSONValue) {
        switch json["errors"] {
        case .array(let elements)?:
            self.init(messages: elements.compactMap(\.lenientString), isObjectForm: false)
        case .object(let fields)?:
            var messages: [String] = []
            for key in fields.keys.sorted() {
                let texts =
                    fields[key]?.arrayValue?.compactMap(\.lenientString) ?? fields[key]?.lenientString.map { [$0] }
                    ?? []
                messages += texts.map { key == "base" ? $0 : "\(key) \($0)" }
            }
            self.init(messages: messages, isObjectForm: true)
        case .string(let text)?:
            self.init(messages: [text], isObjectForm: false)
        default:
            return nil
        }
    }

    /// The body in the form it was made in.
    public var json: JSONValue {
        let list = JSONValue.array(messages.map(JSONValue.string))
        return isObjectForm ? ["errors": ["base": list]] : ["errors": list]
    }

    /// The messages joined for display.
    public var summary: String { messages.joined(separator: "; ") }
}
