import Archive
import ArgumentParser

/// A person as `--user` names them: `id:100042`, `login:447700900123`, or bare — digits are an id, anything else
/// a login.
///
/// QuickBlox logins may be all digits (apps often use a phone number), so bare digits can name two people: the
/// user with that id and another whose login it is. An erasure or a hold cannot be taken back by guessing, so
/// that case is refused, naming both, and the prefix says which was meant. Bare digits that only one reading
/// matches are that one.
struct UserReference: Equatable {
    /// The text after the option.
    var text: String
    /// The option, for errors: `--user`, `--subject`.
    var option = "--user"

    /// The numeric id of the person, or `nil` when the archive knows no one by this text.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) when bare digits are both a known id and another user's login, or
    ///   when `id:` is not followed by digits.
    func resolve(in store: any ArchiveReader) async throws -> Int? {
        if text.hasPrefix("id:") {
            guard let id = Self.digits(text.dropFirst(3)) else {
                throw CommandFailure(
                    "\(option) \(text): `id:` takes a numeric user id (id:100042)", code: .usage)
            }
            return try await store.knowsUser(id: id) ? id : nil
        }
        if text.hasPrefix("login:") { return try await store.userID(login: String(text.dropFirst(6))) }
        guard let id = Self.digits(Substring(text)) else { return try await store.userID(login: text) }
        let known = try await store.knowsUser(id: id)
        let byLogin = try await store.userID(login: text)
        switch (known, byLogin) {
        case (true, let other?) where other != id:
            throw CommandFailure(
                "\(option) \(text) names two people: user \(id) by id, and user \(other) by login; nothing was "
                    + "changed. Say which: \(option) id:\(text) or \(option) login:\(text)",
                code: .usage)
        case (true, _): return id
        case (false, let other): return other
        }
    }

    private static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
