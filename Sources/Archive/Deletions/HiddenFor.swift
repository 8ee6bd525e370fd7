import QuickBlox

/// One user for whom a message or dialog disappeared while others still see it: QuickBlox's "delete for
/// me" (`DELETE` without `force`, reference §8), as a crawl observed it.
///
/// The archive keeps the message: hidden for one user is not deleted. `since` is when a crawl first saw it
/// missing from that user's view — not when the user removed it, which the server does not say.
public struct HiddenFor: Sendable, Hashable, Codable {
    /// The user whose view no longer lists it.
    public var user: Int
    /// Unix seconds: the crawl that first observed it.
    public var since: Int

    public init(user: Int, since: Int) {
        self.user = user
        self.since = since
    }

    /// The `hidden_for` column: `{"USER":SINCE,...}`, keys in ascending user order; `nil` for none.
    public static func encode(_ hidden: [HiddenFor]) -> String? {
        guard !hidden.isEmpty else { return nil }
        let fields = hidden.sorted { $0.user < $1.user }.map { "\"\($0.user)\":\($0.since)" }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Reads the `hidden_for` column back (`[]` for `NULL` or anything unreadable).
    public static func decode(_ text: String?) -> [HiddenFor] {
        guard let text, let object = try? JSONValue(parsing: text).objectValue else { return [] }
        return object.compactMap { key, value in
            guard let user = Int(key), let since = value.lenientInt else { return nil }
            return HiddenFor(user: user, since: since)
        }.sorted { $0.user < $1.user }
    }
}
