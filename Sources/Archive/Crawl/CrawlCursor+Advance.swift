import QuickBlox

extension CrawlCursor {
    /// The cursor after archiving `messages`, which arrive in ascending `(date_sent, _id)` order.
    public func advanced(over messages: [Message]) -> CrawlCursor {
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
