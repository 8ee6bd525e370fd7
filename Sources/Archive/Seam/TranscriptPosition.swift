/// Where a message stands in its dialog's transcript: the dialog and the message's index in
/// `(date_sent, id)` order (0 for the first), for paging to it.
public struct TranscriptPosition: Sendable, Hashable {
    public var dialogID: String
    public var index: Int

    public init(dialogID: String, index: Int) {
        self.dialogID = dialogID
        self.index = index
    }
}
