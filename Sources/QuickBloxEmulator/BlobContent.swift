import Crypto
import QuickBlox

/// The bytes of one emulated file: a pure function of `(seed, uid)`, its size and content type.
///
/// Byte `p` comes from word `p / 8` of a counter-mode SplitMix64 stream keyed by the seed and a
/// hash of the uid, so any range is computed directly (no state to replay), a download streams
/// in chunks without the file ever existing in memory, and a `Range` request costs nothing
/// extra. The first bytes are the signature of the content type (JPEG, PNG, PDF, MP4, MP3, ...)
/// so content sniffing sees a plausible file.
struct BlobContent: Sendable {
    /// SplitMix64's increment, as in ``SeededRandom``.
    static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// How much a download writes at once.
    static let chunkSize = 64 * 1024

    let key: UInt64
    let size: Int
    let header: [UInt8]

    init(seed: UInt64, uid: String, size: Int, contentType: String?) {
        key = Self.key(seed: seed, uid: uid, salt: 0)
        self.size = max(0, size)
        header = Self.signature(for: contentType)
    }

    /// A 64-bit key for `(seed, uid)`; `salt` separates independent uses (bytes, size, visibility).
    static func key(seed: UInt64, uid: String, salt: UInt64) -> UInt64 {
        // FNV-1a over the uid, then mixed with the seed.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in uid.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return mix((seed &+ gamma &* (salt &+ 1)) ^ mix(hash))
    }

    /// SplitMix64's finaliser.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<1` drawn from `(seed, uid, salt)`: decides visibility and large files
    /// without consuming the data generator's stream.
    static func unit(seed: UInt64, uid: String, salt: UInt64) -> Double {
        Double(key(seed: seed, uid: uid, salt: salt) >> 11) / Double(UInt64(1) << 53)
    }

    /// Whether the attachment `uid` is one of the rare large files (`--large-file-rate`).
    static func isLarge(seed: UInt64, uid: String, rate: Double) -> Bool {
        rate > 0 && unit(seed: seed, uid: uid, salt: 1) < rate
    }

    /// The size of a large file: 20 to 50 MB.
    static func largeSize(seed: UInt64, uid: String) -> Int {
        20_000_000 + Int(key(seed: seed, uid: uid, salt: 2) % 30_000_001)
    }

    /// Whether a seeded or live blob is public (a `publicBlobRate` fraction of them).
    static func isPublic(seed: UInt64, uid: String, rate: Double) -> Bool {
        rate > 0 && unit(seed: seed, uid: uid, salt: 3) < rate
    }

    /// A size for a blob whose attachment gave none: 1 to 256 KiB.
    static func defaultSize(seed: UInt64, uid: String) -> Int {
        1024 + Int(key(seed: seed, uid: uid, salt: 4) % 261_121)
    }

    /// The leading bytes a file of this type starts with.
    static func signature(for contentType: String?) -> [UInt8] {
        switch contentType?.lowercased() ?? "" {
        case "image/jpeg", "image/jpg": [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00]
        case "image/png": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        case "image/gif": Array("GIF89a".utf8)
        case "application/pdf": Array("%PDF-1.7\n".utf8)
        case "video/mp4": [0x00, 0x00, 0x00, 0x18] + Array("ftypmp42".utf8)
        case "audio/mp4", "audio/x-m4a", "audio/m4a": [0x00, 0x00, 0x00, 0x18] + Array("ftypM4A ".utf8)
        case "audio/mpeg", "audio/mp3": Array("ID3".utf8) + [0x04, 0x00, 0x00]
        default: []
        }
    }

    /// Writes bytes `offset ..< offset + buffer.count` of the file into `buffer`.
    func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var position = offset
        var index = 0
        let end = offset + buffer.count
        // Leading bytes up to a word boundary.
        while position < end, position % 8 != 0 {
            base.storeBytes(of: byte(at: position), toByteOffset: index, as: UInt8.self)
            position += 1
            index += 1
        }
        // Whole words.
        var counter = key &+ Self.gamma &* UInt64(position / 8 + 1)
        while end - position >= 8 {
            base.storeBytes(of: Self.mix(counter).littleEndian, toByteOffset: index, as: UInt64.self)
            counter &+= Self.gamma
            position += 8
            index += 8
        }
        while position < end {
            base.storeBytes(of: byte(at: position), toByteOffset: index, as: UInt8.self)
            position += 1
            index += 1
        }
        // The type's signature over the first bytes.
        if offset < header.count {
            for position in offset..<min(header.count, end) {
                base.storeBytes(of: header[position], toByteOffset: position - offset, as: UInt8.self)
            }
        }
    }

    /// Byte `position` of the random stream (before the signature is laid over it).
    private func byte(at position: Int) -> UInt8 {
        let word = Self.mix(key &+ Self.gamma &* UInt64(position / 8 + 1))
        return UInt8(truncatingIfNeeded: word >> (8 * UInt64(position % 8)))
    }

    /// Bytes `range`, for tests and small files (a download never calls this).
    func bytes(_ range: Range<Int>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: range.count) { buffer, count in
            fill(UnsafeMutableRawBufferPointer(buffer), at: range.lowerBound)
            count = range.count
        }
    }

    /// SHA-256 of the whole file, lower-case hex, computed chunk by chunk (about a second per
    /// gigabyte: generating the bytes and hashing them cost about the same).
    var sha256: String {
        var hasher = SHA256()
        var scratch = [UInt8](repeating: 0, count: Self.chunkSize)
        var offset = 0
        while offset < size {
            let count = min(Self.chunkSize, size - offset)
            scratch.withUnsafeMutableBytes { buffer in
                let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
                fill(slice, at: offset)
                hasher.update(bufferPointer: UnsafeRawBufferPointer(slice))
            }
            offset += count
        }
        return hasher.finalize().map { byte in
            let hex = Array("0123456789abcdef".utf8)
            return String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
    }
}
