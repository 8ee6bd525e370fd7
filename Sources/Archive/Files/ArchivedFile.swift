/// An attachment's file as the archive records it: where it came from and what was fetched.
public struct ArchivedFile: Sendable, Hashable, Codable {
    /// ``AttachmentKey`` of the attachment(s) naming this file.
    public var key: String
    public var uid: String?
    /// The Content-module blob id, as the message gave it.
    public var blobID: String?
    public var url: String?
    /// The name, type, size and content type the message's attachment declared.
    public var name: String?
    public var type: String?
    public var declaredSize: Int?
    public var declaredContentType: String?
    public var status: FileStatus
    /// SHA-256 (lower-case hex) of the stored bytes; set when ``status`` is ``FileStatus/ok``.
    public var sha256: String?
    /// Bytes stored.
    public var size: Int?
    /// The content type the server sent with the bytes.
    public var contentType: String?
    /// The request that fetched it (`GET /blobs/{uid}/download`, or the URL), never a signed storage URL.
    public var source: String?
    /// Unix seconds of the successful download.
    public var fetchedAt: Int?
    /// Download attempts over all runs.
    public var attempts: Int
    public var lastError: String?
    public var firstSeenAt: Int

    public init(
        key: String, uid: String? = nil, blobID: String? = nil, url: String? = nil, name: String? = nil,
        type: String? = nil, declaredSize: Int? = nil, declaredContentType: String? = nil,
        status: FileStatus = .listed, sha256: String? = nil, size: Int? = nil, contentType: String? = nil,
        source: String? = nil, fetchedAt: Int? = nil, attempts: Int = 0, lastError: String? = nil, firstSeenAt: Int
    ) {
        self.key = key
        self.uid = uid
        self.blobID = blobID
        self.url = url
        self.name = name
        self.type = type
        self.declaredSize = declaredSize
        self.declaredContentType = declaredContentType
        self.status = status
        self.sha256 = sha256
        self.size = size
        self.contentType = contentType
        self.source = source
        self.fetchedAt = fetchedAt
        self.attempts = attempts
        self.lastError = lastError
        self.firstSeenAt = firstSeenAt
    }
}

/// What one attempt to fetch a file came to, as ``SQLiteArchive/recordFetch(key:outcome:at:)`` stores it.
public enum FetchOutcome: Sendable, Hashable {
    case stored(sha256: String, size: Int, contentType: String?, source: String)
    case tooLarge(size: Int?, limit: Int)
    case gone(reason: String)
    case external
    /// Every attempt of this run failed (`attempts` of them).
    case failed(reason: String, attempts: Int)
}

/// Files by status and the bytes stored, for `qbarchive status`.
public struct FileCounts: Sendable, Hashable, Codable {
    public var byStatus: [FileStatus: Int] = [:]
    /// Distinct stored files (several keys may share one).
    public var storedFiles = 0
    /// Their total size.
    public var storedBytes = 0

    public init() {}

    public var total: Int { byStatus.values.reduce(0, +) }
}

/// A file recorded as stored: its SHA-256 and size.
public struct StoredFile: Sendable, Hashable {
    public var sha256: String
    public var size: Int

    public init(sha256: String, size: Int) {
        self.sha256 = sha256
        self.size = size
    }
}

/// A listed file still to fetch, with its row id (the position to continue after).
public struct FileToFetch: Sendable, Hashable {
    public var id: Int64
    public var file: ArchivedFile

    public init(id: Int64, file: ArchivedFile) {
        self.id = id
        self.file = file
    }
}
