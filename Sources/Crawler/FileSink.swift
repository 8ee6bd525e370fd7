import Archive
import QuickBloxClient

/// A file-store writer as the download's sink: bytes go to the temporary file and through SHA-256.
final class FileSink: DownloadSink {
    let writer: FileStore.Writer

    init(_ writer: FileStore.Writer) { self.writer = writer }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool { writer.write(bytes) }

    func restart() throws { try writer.reset() }
}
