import QuickBlox

extension ArchiveWriter {
    /// Stores users from their raw JSON as received (decoded here).
    ///
    /// - Throws: ``ArchiveError/undecodableItem(kind:index:reason:)`` before anything is written.
    @discardableResult
    public func storeUsers(rawItems: [JSONValue], at time: Int = ArchiveTime.now()) async throws -> UpsertCounts {
        // `{"user": {...}}` wrappers (as some user lists send them) are unwrapped before decoding.
        let bare = rawItems.map { raw in raw["user"].flatMap { $0.objectValue == nil ? nil : $0 } ?? raw }
        return try await storeUsers(try Self.decode(bare, kind: "user", as: User.init(json:)), observedAt: time)
    }

    /// Stores dialogs from their raw JSON as received (decoded here).
    ///
    /// - Throws: ``ArchiveError/undecodableItem(kind:index:reason:)`` before anything is written.
    @discardableResult
    public func storeDialogs(rawItems: [JSONValue], at time: Int = ArchiveTime.now()) async throws -> UpsertCounts {
        try await storeDialogs(try Self.decode(rawItems, kind: "dialog", as: Dialog.init(json:)), observedAt: time)
    }

    /// Stores a page of messages from their raw JSON as received (decoded here), with the cursor that follows.
    ///
    /// - Throws: ``ArchiveError/undecodableItem(kind:index:reason:)`` or
    ///   ``ArchiveError/messageOutsideDialog(messageID:messageDialogID:pageDialogID:)`` before anything is written.
    @discardableResult
    public func storeMessages(
        dialogID: String, rawItems: [JSONValue], cursor: CrawlCursor?, at time: Int = ArchiveTime.now(),
        indexFiles: Bool = true
    ) async throws -> PageCounts {
        try await storeMessages(
            try Self.decode(rawItems, kind: "message", as: Message.init(json:)), dialogID: dialogID, cursor: cursor,
            observedAt: time, indexFiles: indexFiles)
    }

    static func decode<T>(
        _ items: [JSONValue], kind: String, as decode: (JSONValue) throws(QuickBloxDecodingError) -> T
    )
        throws -> [(T, JSONValue)]
    {
        var decoded: [(T, JSONValue)] = []
        decoded.reserveCapacity(items.count)
        for (index, raw) in items.enumerated() {
            do {
                decoded.append((try decode(raw), raw))
            } catch {
                throw ArchiveError.undecodableItem(
                    kind: kind, index: index, reason: error.errorDescription ?? "\(error)")
            }
        }
        return decoded
    }
}
