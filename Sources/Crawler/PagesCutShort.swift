import Foundation

/// A dialog's walk stopped on short pages while the server's `count=1` still counts messages past them.
///
/// Thrown by ``MessagePager`` after asking the page again ``MessagePager/maxConfirms`` times: the pages of
/// that dialog are being cut short (a proxy, a cache, the server). What the walk received is stored; the
/// dialog is reported failed, the run is partial (exit 3) and the next run walks it again from its cursor.
public struct PagesCutShort: Error, LocalizedError, Sendable, Equatable {
    public var dialogID: String
    /// The second the walk had reached (`nil`: before its first message).
    public var from: Int?
    /// Messages the server counts from that second on.
    public var counted: Int
    /// Messages at that second the walk had received.
    public var received: Int
    /// Times the short page was asked.
    public var attempts: Int

    public var errorDescription: String? {
        let position = from.map { "from date_sent \($0) on" } ?? "in all"
        return "dialog \(dialogID): the server counts \(counted) messages \(position) but its pages stopped after "
            + "\(received) (the same short page \(attempts) times) — pages are being cut short by the server or "
            + "a proxy; what was received is stored, and the next run walks the dialog again (if this persists, "
            + "look at the proxies or caches between qbarchive and the API)"
    }
}
