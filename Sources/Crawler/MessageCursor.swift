import QuickBlox

/// Where a dialog's message crawl stands: the newest `date_sent` archived, and the ids archived at
/// exactly that second.
///
/// `date_sent` has whole-second resolution and many messages can share a second, so the cursor is
/// inclusive (`date_sent[gte]`) and the ids at the cursor second say which of those are already
/// archived. A `gt` cursor would lose messages whenever more than a page share one second.
public struct MessageCursor: Sendable, Hashable, Codable {
    /// `nil` before the first message.
    public var dateSent: Int?
    /// Ids archived whose `date_sent` equals ``dateSent``.
    public var idsAtDateSent: Set<String>

    public init(dateSent: Int? = nil, idsAtDateSent: Set<String> = []) {
        self.dateSent = dateSent
        self.idsAtDateSent = idsAtDateSent
    }

    /// The cursor after archiving `messages`, which arrive in ascending `(date_sent, _id)` order.
    public func advanced(over messages: [Message]) -> MessageCursor {
        var next = self
        for message in messages {
            if let current = next.dateSent, message.dateSent < current { continue }
            if message.dateSent != next.dateSent {
                next.dateSent = message.dateSent
                next.idsAtDateSent = []
            }
            next.idsAtDateSent.insert(message.id)
        }
        return next
    }
}
