/// What a bundle says of one attachment's file, to restore into `attachment_files` with the records that
/// reference it (see ``SQLiteArchive/importRecords(_:)``).
public struct ImportedFile: Sendable, Hashable {
    /// ``AttachmentKey`` of the attachment.
    public var key: String
    /// ``FileStatus/ok`` only for a file the import has just put in the file store.
    public var status: FileStatus
    public var sha256: String?
    public var size: Int?
    public var contentType: String?
    /// For a stored file: where it came from (`import of case-42.tar.gz`).
    public var source: String?

    public init(
        key: String, status: FileStatus, sha256: String? = nil, size: Int? = nil, contentType: String? = nil,
        source: String? = nil
    ) {
        self.key = key
        self.status = status
        self.sha256 = sha256
        self.size = size
        self.contentType = contentType
        self.source = source
    }
}
