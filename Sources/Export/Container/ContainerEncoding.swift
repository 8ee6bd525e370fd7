/// How a container's compressed bytes are laid out: the part of a bundle's canonical encoding that is not in its
/// contents.
///
/// `qbarchive verify` encodes a bundle's verified contents again and compares the bytes, so the encoding a bundle
/// was written in must be known when it is verified: the manifest names it (`container.encoding`), and a manifest
/// that does not — every bundle written before the parallel encoding — was written serially.
public enum ContainerEncoding: String, Sendable, Hashable, CaseIterable {
    /// libarchive's compressors on one thread: gzip level 6 as one deflate stream, zstd level 3 single-threaded.
    case serial
    /// Compressed on every core, in an encoding that does not depend on how many there are.
    ///
    /// - tar.gz: one gzip member whose deflate stream is made of 128 KiB blocks of the tar stream, each compressed
    ///   on its own with the 32 KiB before it as its dictionary and ended on a byte boundary (the layout of
    ///   `pigz`); level 6. Any gzip reader reads it as one stream.
    /// - tar.zst: zstd's multi-threaded mode, level 3 (one frame; the same bytes for any number of threads ≥ 1).
    /// - zip: as ``serial`` (libarchive deflates each entry on its own).
    case parallel

    /// The encoding bundles are written in now.
    public static let current = ContainerEncoding.parallel

    /// The encoding a manifest's `container` object names, ``serial`` when it names none.
    ///
    /// Returns `nil` for a name this version does not know (a bundle from a later qbarchive).
    public init?(manifestName name: String?) {
        guard let name else {
            self = .serial
            return
        }
        self.init(rawValue: name)
    }
}
