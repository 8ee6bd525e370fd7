import Foundation
import QueryLanguage
import Search

/// What the search page shows: the form, help, saved queries, and either an error or the results.
struct SearchPageView {
    struct Option {
        var value: String
        var label: String
        var selected: Bool
    }

    struct Example {
        var query: String
        var meaning: String
        var href: String
    }

    struct Saved {
        var name: String
        var title: String
        var purpose: String?
        var href: String
    }

    /// A query error: the query with the bad part marked, the message and the hint.
    struct Failure {
        var message: String
        var hint: String?
        var before: String
        var bad: String
        var after: String
        var rendered: String
    }

    struct Results {
        var count: Int
        /// How the query was understood (``QueryLanguage/QuerySummary``).
        var understoodAs: String
        /// "showing 1–50 of 1,234 matching messages".
        var shown: String
        var from: Int
        var to: Int
        var hits: [MessageView]
        var empty: Bool
        var previous: String?
        var next: String?
    }

    var q: String
    var sorts: [Option]
    var examples: [Example]
    var saved: [Saved]
    /// Why the saved queries cannot be listed, when one cannot be read.
    var savedProblem: String?
    /// No saved queries, and none that failed to be read.
    var savedNone = false
    var failure: Failure?
    var results: Results?
    /// The syntax help starts open on an empty search page.
    var helpOpen = false

    static let exampleQueries: [(String, String)] = [
        ("refund", "the word refund (also Refund, refunds is refund*)"),
        ("\"gift card\"", "a phrase"),
        ("北京 ελλαδα كتاب 🎉", "words in any script, case and accents ignored"),
        ("message ctn \"bit.ly\"", "a substring anywhere, like QuickBlox's ctn"),
        ("from:alice during:2024-03", "what alice sent in March 2024 (UTC)"),
        ("in:\"Book club\" before:2024-01-01 has:link", "links in a dialog, before 2024"),
        ("has:attachment is:public", "attachments in public rooms"),
        ("(password or pin) -test", "either word, without test"),
        ("sender_id[in]=34,45&message[ctn]=refund", "a filter copied from a QuickBlox request"),
        ("edited or deleted", "messages changed or removed on the server"),
    ]

    static func href(query: String, offset: Int = 0, sort: String? = nil) -> String {
        var href = "/search?q=" + URLText.encode(query)
        if offset > 0 { href += "&offset=\(offset)" }
        if let sort, sort != "-date" { href += "&sort=" + URLText.encode(sort) }
        return href
    }

    static func failure(_ error: QueryError, query: String) -> Failure {
        let characters = Array(query)
        let start = min(max(error.position, 0), characters.count)
        let end = min(start + max(error.length, 0), characters.count)
        return Failure(
            message: error.message, hint: error.hint, before: String(characters[..<start]),
            bad: start == end ? " " : String(characters[start..<end]), after: String(characters[end...]),
            rendered: error.rendered(query: query))
    }
}
