/// Where a streamed download's body goes, chunk by chunk, as libcurl receives it.
///
/// Only a 2xx response's body reaches the sink; error bodies are kept (up to 64 KiB) in the
/// response for the message. Called on the transfer's thread, one transfer at a time.
public protocol DownloadSink: AnyObject, Sendable {
    /// Appends a chunk; `false` aborts the transfer (a full disk).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Empties the sink before a retried attempt.
    func restart() throws
}
