import Archive
import QueryLanguage
import QuickBlox
import TextIndex

/// The users and dialogs a query names, as the archive resolved them: what the compiler binds and what a
/// summary shows. A name that resolves to nothing is an error before anything runs (``resolve(_:on:)``).
struct QueryReferences {
    /// A user of the archive.
    struct User: Hashable {
        var id: Int
        var login: String?
        var fullName: String?

        /// `alice (Alice Martin, user 7)`, `user 7`.
        var label: String {
            let names = [login, fullName].compactMap { $0 }.filter { !$0.isEmpty }
            guard let first = names.first else { return "user \(id)" }
            let rest = names.dropFirst().map { $0 + ", " }.joined()
            return "\(first) (\(rest)user \(id))"
        }
    }

    /// A dialog of the archive.
    struct Dialog: Hashable {
        var id: String
        var name: String?

        var label: String { name.map { "\"\($0)\" (dialog \(id))" } ?? "dialog \(id)" }
    }

    /// Users by the text a query gave (a login or a full name).
    var users: [String: [User]] = [:]
    /// Users by id, for the ids a query gave.
    var usersByID: [Int: User] = [:]
    /// Dialogs by the text a query gave (an id or a name).
    var dialogs: [String: [Dialog]] = [:]

    /// The references of `query` resolved on `connection`.
    ///
    /// - Throws: a ``QueryLanguage/QueryError`` at the predicate for a login, name, user id or dialog the archive
    ///   does not have (naming the nearest it has), and for a filter word without its colon whose value the
    ///   archive knows (`from user42`).
    static func resolve(_ query: Query, on connection: any SQLConnection) throws -> QueryReferences {
        var references = QueryReferences()
        var directory = Directory(connection: connection)
        for (predicate, value) in query.root.references {
            switch (predicate.field, value) {
            case (.dialog, .string(let text)):
                guard references.dialogs[text] == nil else { continue }
                let found = try directory.dialogs(named: text)
                guard !found.isEmpty else {
                    throw try directory.unknownDialog(text, at: predicate.range)
                }
                references.dialogs[text] = found
            case (_, .login(let text)):
                guard references.users[text] == nil else { continue }
                let found = try directory.users(named: text)
                guard !found.isEmpty else { throw try directory.unknownUser(text, at: predicate.range) }
                references.users[text] = found
            case (let field, .int(let id)):
                guard references.usersByID[id] == nil else { continue }
                // An id the archive does not know may be a login made of digits (a phone number): that user.
                guard
                    let user = try directory.user(id: id, field: field)
                        ?? directory.users(login: String(id)).first
                else {
                    throw QueryError(
                        position: predicate.range.lowerBound, length: predicate.range.count,
                        message: "no archived user has the id or login \(id), and no archived message names it",
                        hint: "check the number; a login or a full name works too (from:alice)")
                }
                references.usersByID[id] = user
            default:
                continue
            }
        }
        // Two senders, recipients or dialogs named apart that stand for no one in common: refused, as ids are.
        let resolved = references
        try QueryConsistency.checkResolved(query.root, source: Array(query.source)) { field, value in
            switch (field, value) {
            case (.dialog, .string(let text)): resolved.dialogs[text]?.map(\.id)
            case (_, .login(let text)): resolved.users[text]?.map { String($0.id) }
            case (_, .int(let id)): [String(resolved.userID(id, field))]
            default: nil
            }
        }
        for ambiguity in query.ambiguities {
            if ambiguity.field == .dialog {
                if let dialog = try directory.dialogs(named: ambiguity.value).first {
                    throw ambiguity.error(naming: dialog.label)
                }
            } else if let user = try directory.users(named: ambiguity.value).first {
                throw ambiguity.error(naming: user.label)
            }
        }
        return references
    }

    /// How a summary shows a resolved value.
    func name(_ field: QueryField, _ value: QueryValue) -> String? {
        switch (field, value) {
        case (.dialog, .string(let text)):
            return dialogs[text].map { $0.map(\.label).joined(separator: " or ") }
        case (_, .login(let text)):
            return users[text].map { $0.map(\.label).joined(separator: " or ") }
        case (.senderID, .int(let id)), (.recipientID, .int(let id)), (.hiddenFor, .int(let id)):
            return usersByID[id]?.label
        default:
            return nil
        }
    }

    /// The id a user id of a query stands for: itself, or — when the archive has no user with that id — the
    /// user whose login is those digits.
    func userID(_ typed: Int, _ field: QueryField) -> Int {
        switch field {
        case .senderID, .recipientID, .hiddenFor: return usersByID[typed]?.id ?? typed
        default: return typed
        }
    }
}

/// Look-ups of users and dialogs by what a person typed, with the nearest names when nothing matches.
private struct Directory {
    let connection: any SQLConnection
    private var allUsers: [QueryReferences.User]?
    private var allDialogs: [QueryReferences.Dialog]?

    init(connection: any SQLConnection) {
        self.connection = connection
    }

    /// The users whose login is `text`; else those whose login folds to the same words (`from:Bob` is login
    /// `bob`, as `from:bob` is, not also someone whose full name is Bob); else those whose full name does.
    /// A `*` is no wildcard: a name holding one that no login spells finds no one (`from:user1*` is not user1).
    mutating func users(named text: String) throws -> [QueryReferences.User] {
        let exact = try users(login: text)
        if !exact.isEmpty { return exact }
        guard !text.contains("*") else { return [] }
        let wanted = Self.folded(text)
        let users = try everyUser()
        let byLogin = users.filter { $0.login.map(Self.folded) == wanted }
        if !byLogin.isEmpty { return byLogin }
        return users.filter { $0.fullName.map(Self.folded) == wanted }
    }

    /// The user `id`, when the archive has it as a user or names it in a message (`field`'s column).
    mutating func user(id: Int, field: QueryField) throws -> QueryReferences.User? {
        if let user = try connection.fetchOne("SELECT id, login, full_name FROM users WHERE id = \(id)", Self.user) {
            return user
        }
        let seen: SQLFragment
        switch field {
        case .senderID: seen = "SELECT 1 FROM messages WHERE sender_id = \(id) LIMIT 1"
        case .recipientID: seen = "SELECT 1 FROM messages WHERE recipient_id = \(id) LIMIT 1"
        case .hiddenFor: seen = "SELECT 1 FROM message_hides WHERE user_id = \(id) LIMIT 1"
        default: return QueryReferences.User(id: id)
        }
        return try connection.fetchInt(seen) == nil ? nil : QueryReferences.User(id: id)
    }

    /// The users whose login is exactly `login`.
    func users(login: String) throws -> [QueryReferences.User] {
        try connection.fetchAll("SELECT id, login, full_name FROM users WHERE login = \(login) ORDER BY id", Self.user)
    }

    /// The dialogs whose id is `text`, else those whose name folds to the same words (a `*` is no wildcard).
    mutating func dialogs(named text: String) throws -> [QueryReferences.Dialog] {
        let exact = try connection.fetchAll("SELECT id, name FROM dialogs WHERE id = \(text)", Self.dialog)
        if !exact.isEmpty { return exact }
        if text.contains("*") { return try everyDialog().filter { $0.name == text } }
        let wanted = Self.folded(text)
        return try everyDialog().filter { $0.name.map(Self.folded) == wanted }
    }

    func unknownUser(_ text: String, at range: Range<Int>) throws -> QueryError {
        let wanted = Self.folded(text)
        let ranked = try Self.nearest(
            allUsers ?? connection.fetchAll("SELECT id, login, full_name FROM users ORDER BY id", Self.user)
        ) { user in
            [user.login, user.fullName].compactMap { $0 }.map { Self.distance(wanted, Self.folded($0)) }.min()
        }
        return QueryError(
            position: range.lowerBound, length: range.count,
            message: "no archived user has the login or name `\(QueryError.excerpt(text))`",
            hint: (text.contains("*") ? "`*` is no wildcard for a person; " : "")
                + (ranked.isEmpty
                    ? "the archive has no users yet; give a numeric user id"
                    : "the nearest are " + ranked.map(\.label).joined(separator: "; ")
                        + " — or give the numeric user id"))
    }

    func unknownDialog(_ text: String, at range: Range<Int>) throws -> QueryError {
        let wanted = Self.folded(text)
        let ranked = try Self.nearest(
            allDialogs ?? connection.fetchAll("SELECT id, name FROM dialogs ORDER BY id", Self.dialog)
        ) { dialog in
            min(
                dialog.name.map { Self.distance(wanted, Self.folded($0)) } ?? .max,
                EditDistance.between(text, dialog.id))
        }
        return QueryError(
            position: range.lowerBound, length: range.count,
            message: "no archived dialog has the id or name `\(QueryError.excerpt(text))`",
            hint: (text.contains("*") ? "`*` is no wildcard for a dialog; " : "")
                + (ranked.isEmpty
                    ? "the archive has no dialogs yet"
                    : "the nearest are " + ranked.map(\.label).joined(separator: "; ")
                        + " — a name with spaces goes in quotes: in:\"Book club\""))
    }

    /// How far a typed name is from a folded name: its edit distance to the whole name, or — one more — to the
    /// nearest of the name's words, or to a start of the name it begins (`alice` and `ali` are near "alice
    /// martin", nearer than `alex` is). Without the words, a first name typed alone was further from its full
    /// name than from any short login.
    static func distance(_ wanted: String, _ name: String) -> Int {
        var best = EditDistance.between(wanted, name)
        guard best > 0, wanted.count >= 3 else { return best }
        let words = name.split(separator: " ")
        if name.hasPrefix(wanted) || words.contains(where: { $0.hasPrefix(wanted) }) { best = min(best, 1) }
        if words.count > 1 {
            for word in words { best = min(best, EditDistance.between(wanted, String(word)) + 1) }
        }
        return best
    }

    /// The three items nearest by `distance` (ties by order).
    private static func nearest<T>(_ items: [T], by distance: (T) -> Int?) -> [T] {
        items.enumerated().compactMap { index, item in distance(item).map { ($0, index, item) } }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(3).map(\.2)
    }

    private mutating func everyUser() throws -> [QueryReferences.User] {
        if let allUsers { return allUsers }
        let users = try connection.fetchAll("SELECT id, login, full_name FROM users ORDER BY id", Self.user)
        allUsers = users
        return users
    }

    private mutating func everyDialog() throws -> [QueryReferences.Dialog] {
        if let allDialogs { return allDialogs }
        let dialogs = try connection.fetchAll("SELECT id, name FROM dialogs ORDER BY id", Self.dialog)
        allDialogs = dialogs
        return dialogs
    }

    /// A name as a search compares it: the word index's folding of each word, single-spaced.
    private static func folded(_ text: String) -> String {
        var segmenter = WordSegmenter()
        return segmenter.segments(of: text).flatMap(\.units).joined(separator: " ")
    }

    private static func user(_ row: any SQLRow) -> QueryReferences.User {
        QueryReferences.User(id: row[0], login: row[1], fullName: row[2])
    }

    private static func dialog(_ row: any SQLRow) -> QueryReferences.Dialog {
        QueryReferences.Dialog(id: row[0], name: row[1])
    }
}

extension QueryExpression {
    /// The values the archive must resolve, with their predicates: logins and names (sender, recipient,
    /// hidden for), user ids compared for equality, dialog ids and names.
    var references: [(QueryPredicate, QueryValue)] {
        switch self {
        case .and(let children), .or(let children): return children.flatMap(\.references)
        case .not(let child): return child.references
        case .text: return []
        case .predicate(let predicate):
            switch predicate.field {
            case .dialog:
                return predicate.values.map { (predicate, $0) }
            case .senderID, .recipientID, .hiddenFor:
                let equality = [.equal, .notEqual, .in, .notIn].contains(predicate.op)
                return predicate.values.compactMap { value in
                    switch value {
                    case .login: (predicate, value)
                    case .int where equality: (predicate, value)
                    default: nil
                    }
                }
            default:
                return []
            }
        }
    }
}
