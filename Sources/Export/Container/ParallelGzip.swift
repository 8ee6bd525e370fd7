import CZlib
import Dispatch
import Foundation

/// gzip compressed on every core, in bytes that do not depend on how many cores there are (the layout of `pigz`).
///
/// Written by hand: zlib deflates one stream on one thread (libarchive's gzip filter is zlib's), and `pigz`, which
/// does this, is a program rather than a library. The uncompressed stream is cut every ``blockSize`` bytes; each
/// block is deflated on its own — raw deflate, the given level — with the ``dictionarySize`` bytes before it as its
/// preset dictionary, and ended with a sync flush (an empty stored block: the next block starts on a byte
/// boundary) or, for the last, with the end of the stream. The blocks' output, concatenated, is one valid deflate
/// stream, framed by a gzip header without time stamp and a trailer of the CRC-32 and length; any gzip reader
/// reads it as an ordinary gzip file. The cuts fall at fixed offsets of the input, so the bytes are the same
/// whatever the sizes of the writes and however many threads compress.
///
/// Blocks are compressed on Dispatch's global concurrent queue (as many at a time as there are cores), at most
/// ``maxInFlight`` waiting, and delivered to `output` in order, on the caller's thread. Memory is a few blocks.
/// Not thread-safe: one caller at a time, as ``ContainerWriter``.
final class ParallelGzip {
    /// Bytes of the uncompressed stream per block (pigz's default).
    static let blockSize = 128 << 10
    /// Bytes before a block given to it as its dictionary: deflate's whole window.
    static let dictionarySize = 32 << 10

    private let level: Int32
    private let output: ([UInt8]) throws -> Void
    private let maxInFlight: Int
    private var pending: [UInt8] = []
    private var dictionary: [UInt8] = []
    private var inFlight: [DeflateBlock] = []
    private var crc = crc32(0, nil, 0)
    private var length: UInt64 = 0
    private var hasHeader = false

    /// A compressor that delivers gzip bytes to `output`, whose errors it passes on; `maxInFlight` blocks at most
    /// wait or compress at a time (twice the cores unless a test says otherwise).
    init(level: Int32, maxInFlight: Int? = nil, output: @escaping ([UInt8]) throws -> Void) {
        self.level = level
        self.output = output
        self.maxInFlight = max(1, maxInFlight ?? 2 * ProcessInfo.processInfo.activeProcessorCount)
        pending.reserveCapacity(Self.blockSize)
    }

    /// Adds uncompressed bytes; delivers the blocks that are done when too many wait.
    func write(_ bytes: [UInt8]) throws {
        var start = 0
        while start < bytes.count {
            let take = min(Self.blockSize - pending.count, bytes.count - start)
            pending.append(contentsOf: bytes[start..<start + take])
            start += take
            if pending.count == Self.blockSize { try submit(isLast: false) }
        }
    }

    /// Compresses what is left, delivers every block and the trailer; call once, after the last write.
    func finish() throws {
        try submit(isLast: true)
        while !inFlight.isEmpty { try deliverOldest() }
        // CRC-32 and the length modulo 2^32, as gzip's trailer holds them.
        try output(
            littleEndianBytes(UInt32(truncatingIfNeeded: crc)) + littleEndianBytes(UInt32(truncatingIfNeeded: length)))
    }

    private func submit(isLast: Bool) throws {
        if inFlight.count >= maxInFlight { try deliverOldest() }
        let block = DeflateBlock(input: pending, dictionary: dictionary, level: level, isLast: isLast)
        dictionary = Array(pending.suffix(Self.dictionarySize))
        pending.removeAll(keepingCapacity: true)
        block.start()
        inFlight.append(block)
    }

    private func deliverOldest() throws {
        let block = inFlight.removeFirst()
        let compressed = try block.wait()
        crc = crc32_combine(crc, compressed.crc, off_t(block.input.count))
        length += UInt64(block.input.count)
        if !hasHeader {
            // ID1 ID2, deflate, no flags, MTIME 0 (no time stamp), no extra flags, OS 3 (Unix): as libarchive's.
            try output([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
            hasHeader = true
        }
        try output(compressed.bytes)
    }
}

/// One block of a ``ParallelGzip``: compressed on Dispatch's queue, its result read once `done` is signalled.
///
/// `@unchecked Sendable`: the inputs are constants, and `result` is written once by the compressing thread before
/// the semaphore is signalled and read only after waiting on it.
private final class DeflateBlock: @unchecked Sendable {
    let input: [UInt8]
    let dictionary: [UInt8]
    let level: Int32
    let isLast: Bool
    private var result: Result<(bytes: [UInt8], crc: uLong), ContainerError>?
    private let done = DispatchSemaphore(value: 0)

    init(input: [UInt8], dictionary: [UInt8], level: Int32, isLast: Bool) {
        self.input = input
        self.dictionary = dictionary
        self.level = level
        self.isLast = isLast
    }

    func start() {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            result = compress()
            done.signal()
        }
    }

    /// Waits for the block: its deflate bytes and the CRC-32 of its input.
    func wait() throws(ContainerError) -> (bytes: [UInt8], crc: uLong) {
        done.wait()
        guard let result else { throw ContainerError(message: "a gzip block ended without a result") }
        return try result.get()
    }

    private func compress() -> Result<(bytes: [UInt8], crc: uLong), ContainerError> {
        var stream = z_stream()
        let opened = deflateInit2_(
            &stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard opened == Z_OK else { return .failure(Self.error("cannot start a deflate stream", opened)) }
        defer { deflateEnd(&stream) }
        if !dictionary.isEmpty {
            let status = dictionary.withUnsafeBufferPointer {
                deflateSetDictionary(&stream, $0.baseAddress, uInt($0.count))
            }
            guard status == Z_OK else { return .failure(Self.error("cannot set a block's dictionary", status)) }
        }
        // deflateBound covers Z_FINISH; a sync flush adds a few bytes, and the loop grows the buffer if ever short.
        var bytes = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        var produced = 0
        let flush = isLast ? Z_FINISH : Z_SYNC_FLUSH
        let status = input.withUnsafeBufferPointer { source -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let status = bytes.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.next_out = target.baseAddress.map { $0 + produced }
                    stream.avail_out = uInt(target.count - produced)
                    let status = deflate(&stream, flush)
                    produced = target.count - Int(stream.avail_out)
                    return status
                }
                let complete = isLast ? status == Z_STREAM_END : stream.avail_in == 0 && produced < bytes.count
                if complete || (status != Z_OK && status != Z_BUF_ERROR) { return status }
                bytes += [UInt8](repeating: 0, count: 4096)
            }
        }
        guard status == (isLast ? Z_STREAM_END : Z_OK) else { return .failure(Self.error("cannot deflate", status)) }
        bytes.removeLast(bytes.count - produced)
        let crc = input.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        return .success((bytes, crc))
    }

    private static func error(_ what: String, _ status: Int32) -> ContainerError {
        ContainerError(message: "zlib \(what) (status \(status))")
    }
}
