import Foundation
import QuickBlox

/// What an export replaces in every text it writes (`export --redact emails,phones,urls`, `--redact-pattern`):
/// message texts, custom fields, attachments and the server's raw records, revisions, transcripts, dialog
/// and user records — every string, wherever it is. Matches become `[email]`, `[phone]`, `[url]` or
/// `[redacted]`.
///
/// The kinds apply in a fixed order — URLs, then e-mail addresses, then phone numbers, then each pattern
/// in the order given — so that an address inside a URL goes with the URL. Documented with its limits in
/// docs/compliance.md ("Redaction").
public struct Redaction: Sendable, Hashable {
    /// A built-in kind of personal data.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case urls, emails, phones

        /// What a match becomes.
        public var replacement: String {
            switch self {
            case .urls: "[url]"
            case .emails: "[email]"
            case .phones: "[phone]"
            }
        }

        /// The ICU pattern (NSRegularExpression's syntax). Written by hand: no maintained Swift library
        /// finds these on Linux (Foundation's NSDataDetector is Apple-only, libphonenumber has no Swift port
        /// here), and the rules are short enough to state and test.
        var pattern: String {
            switch self {
            case .urls:
                // A scheme and everything up to white space or a quote/bracket; or a bare www. host. A
                // sentence's final punctuation is left out by the lookbehind; a closing parenthesis that
                // balances one inside the URL is taken back in by ``Redactor`` (`…/Fish_(food)`).
                return #"(?i)\b(?:(?:https?|ftp)://|www\.)[^\s<>"'`]+(?<![.,;:!?)\]}'"])"#
            case .emails:
                // Letters (with their combining marks: a decomposed `é`) and digits of any script in the local
                // part (an apostrophe inside it too: O'Neil) and the domain; a dotted domain whose last label is
                // letters (`a@b.example`, `мария@почта.рф`). The at sign and dots also full-width, as CJK input
                // methods type them (`ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ`): a reader still sees the address. Not the
                // ideographic full stop `。`: it ends sentences after @mentions (`谢谢@小明。好的`).
                let local = #"[\p{L}\p{M}\p{N}._%+\-＿％＋－．]"#
                let label = #"[\p{L}\p{M}\p{N}\-－]"#
                let dot = #"[.．]"#
                return local + "+(?:['’]" + local + "+)*[@＠﹫]" + label + "+(?:" + dot + label + "+)*" + dot
                    + #"(?:\p{L}\p{M}*){2,}"#
            case .phones:
                // An optional +country code (with a one-digit group after it: +33 6 12 …), an optional (area
                // code), then groups of two to four digits separated by at most one space (any: the no-break
                // and narrow no-break spaces French typography puts in numbers, thin spaces), dot or dash (any:
                // en dash too) — so a lone digit beside a number ("room 2 0171 …") is not taken in; not inside
                // a word or a longer number. `+` may be full-width (＋). The digit count (7–15, E.164's most)
                // and the date rule are checked on each match (``Redactor``).
                let separator = #"[\p{Zs}.\-\x{2010}-\x{2015}]"#
                return #"(?<![\p{L}\p{N}_+＋.\-\x{2010}-\x{2015}])(?:[+＋]\d{1,3}\#(separator)?(?:\d\#(separator))?)?"#
                    + #"(?:\(\d{1,4}\)\#(separator)?)?\d{2,4}(?:\#(separator)?\d{2,4}){1,6}"#
                    + #"(?![\p{L}\p{N}_]|[.\-\x{2010}-\x{2015}]\d)"#
            }
        }
    }

    /// The built-in kinds asked for.
    public var kinds: [Kind]
    /// Further patterns (ICU syntax); their matches become `[redacted]`.
    public var patterns: [String]

    /// Reads `--redact` (a comma-separated list of kinds; `all` for every kind) and `--redact-pattern`s.
    ///
    /// - Throws: ``ExportError/badOption(_:)`` naming an unknown kind or a pattern that does not compile,
    ///   and where in it.
    public init(list: String?, patterns: [String] = []) throws(ExportError) {
        var kinds: [Kind] = []
        for word in (list ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() })
        where !word.isEmpty {
            let singular = ["email": "emails", "phone": "phones", "url": "urls", "links": "urls", "link": "urls"]
            if word == "all" {
                kinds = Kind.allCases
                continue
            }
            guard let kind = Kind(rawValue: singular[word] ?? word) else {
                throw ExportError.badOption(
                    "--redact \(list ?? ""): \"\(word)\" is not something qbarchive finds; "
                        + "use emails, phones, urls (or all), and --redact-pattern REGEX for anything else")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        self.kinds = Kind.allCases.filter(kinds.contains)
        for pattern in patterns {
            do {
                let compiled = try NSRegularExpression(pattern: pattern)
                if compiled.firstMatch(in: "", range: NSRange(location: 0, length: 0)) != nil {
                    throw ExportError.badOption(
                        "--redact-pattern \(pattern) matches the empty text, so it would redact between every "
                            + "character; make it match at least one character")
                }
            } catch let error as ExportError {
                throw error
            } catch {
                throw ExportError.badOption(
                    "--redact-pattern \(pattern) is not a regular expression (ICU syntax, as in "
                        + "NSRegularExpression): \(error.localizedDescription)")
            }
        }
        self.patterns = patterns
    }

    /// Nothing redacted.
    public static let none = Redaction(kinds: [], patterns: [])

    private init(kinds: [Kind], patterns: [String]) {
        self.kinds = kinds
        self.patterns = patterns
    }

    /// No kind and no pattern: the export writes what the archive holds.
    public var isEmpty: Bool { kinds.isEmpty && patterns.isEmpty }

    /// What the manifest and the audit log record: the kinds, the patterns and what each match became.
    public var manifestEntry: JSONValue {
        .object([
            "kinds": .array(kinds.map { .string($0.rawValue) }),
            "patterns": .array(patterns.map(JSONValue.string)),
            "replacements": .object(
                Dictionary(uniqueKeysWithValues: kinds.map { ($0.rawValue, JSONValue.string($0.replacement)) })
                    .merging(patterns.isEmpty ? [:] : ["patterns": .string("[redacted]")]) { first, _ in first }),
        ])
    }
}
