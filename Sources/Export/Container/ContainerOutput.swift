import QuickBlox

/// Where libarchive's write callback delivers the container's bytes, with the zip time fix applied.
///
/// libarchive passes every block through one C callback; this object is its context. It counts the
/// bytes, keeps the first error thrown by the caller's output (a C callback cannot throw), and makes
/// zip output independent of the host's time zone: libarchive 3.6.2 writes the MS-DOS date and time of
/// each zip entry in *local* time (`localtime_r`), so the same entries would give different bytes on
/// hosts in different zones. The writer registers, for each local file header, where its date and time
/// fields will pass and what UTC values they must hold; the central directory is written during
/// `archive_write_close`, so that tail is held back, fixed from the end-of-central-directory record, and
/// only then delivered.
final class ContainerOutput {
    private let output: ([UInt8]) throws -> Void
    /// Bytes delivered or held so far: the offset, in the finished container, of the next byte.
    private(set) var offset = 0
    /// The first failure of the caller's output or of the zip fix; libarchive only sees -1.
    private(set) var failure: ContainerError?
    /// When true the bytes are dropped: an abandoned writer must not deliver a valid-looking end.
    var isDiscarding = false
    private var patches: [Patch] = []
    private var held: [UInt8]?
    private var heldStart = 0

    init(output: @escaping ([UInt8]) throws -> Void) {
        self.output = output
    }

    /// Accepts one block from libarchive; returns the count written, or -1 after a failure.
    func accept(_ buffer: UnsafeRawBufferPointer) -> Int {
        if failure != nil { return -1 }
        if isDiscarding { return buffer.count }
        var bytes = [UInt8](buffer)
        applyPatches(to: &bytes, at: offset)
        if failure != nil { return -1 }
        offset += bytes.count
        if held != nil {
            held?.append(contentsOf: bytes)
            return buffer.count
        }
        do {
            try output(bytes)
        } catch {
            fail(ContainerError(message: "cannot write the container: \(describe(error))"))
            return -1
        }
        return buffer.count
    }

    func fail(_ error: ContainerError) {
        if failure == nil { failure = error }
    }

    /// Ends a compressor that sits between libarchive and the output (``ParallelGzip``): its last bytes go to the
    /// output, and its failure becomes the output's.
    func finishCompressor(_ finish: () throws -> Void) {
        guard failure == nil, !isDiscarding else { return }
        do {
            try finish()
        } catch {
            fail(ContainerError(message: "cannot write the container: \(describe(error))"))
        }
    }

    // MARK: Zip date and time

    /// Makes the local file header starting at `headerOffset` carry `modificationTime` as a UTC MS-DOS time.
    func fixZipLocalHeader(at headerOffset: Int, modificationTime: Int) {
        patches.append(Patch(offset: headerOffset, bytes: zipLocalHeaderSignature, isCheck: true))
        patches.append(Patch(offset: headerOffset + 10, bytes: dosDateTimeBytes(modificationTime), isCheck: false))
    }

    /// Holds every following byte back until `releaseZipTail`.
    func holdZipTail() {
        held = []
        heldStart = offset
    }

    /// Fixes the held central directory's entries to `modificationTimes` (in entry order), then delivers it.
    func releaseZipTail(modificationTimes: [Int]) {
        guard var tail = held else { return }
        held = nil
        if failure == nil {
            do {
                try fixCentralDirectory(&tail, modificationTimes: modificationTimes)
            } catch {
                fail(error)
            }
        }
        guard failure == nil, !isDiscarding, !tail.isEmpty else { return }
        do {
            try output(tail)
        } catch {
            fail(ContainerError(message: "cannot write the container: \(describe(error))"))
        }
    }

    private func applyPatches(to bytes: inout [UInt8], at start: Int) {
        let end = start + bytes.count
        var index = 0
        while index < patches.count {
            let patch = patches[index]
            let patchEnd = patch.offset + patch.bytes.count
            if patch.offset >= end { break }  // patches are registered in increasing offsets
            for position in max(start, patch.offset)..<min(end, patchEnd) {
                if patch.isCheck {
                    if bytes[position - start] != patch.bytes[position - patch.offset] {
                        fail(ContainerError(message: "zip local file header not found at offset \(patch.offset)"))
                        return
                    }
                } else {
                    bytes[position - start] = patch.bytes[position - patch.offset]
                }
            }
            if patchEnd <= end {
                patches.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    /// Rewrites the date and time of every central directory header in `tail`, located from the end record.
    private func fixCentralDirectory(_ tail: inout [UInt8], modificationTimes: [Int]) throws(ContainerError) {
        let bad = ContainerError(message: "unexpected zip central directory layout from libarchive")
        let end = tail.count - 22  // end of central directory record, without comment
        guard end >= 0, tail.readUInt32(at: end) == 0x0605_4B50 else { throw bad }
        var count = Int(tail.readUInt16(at: end + 10))
        var directoryOffset = Int(tail.readUInt32(at: end + 16))
        if count == 0xFFFF || directoryOffset == 0xFFFF_FFFF {
            let locator = end - 20
            guard locator >= 0, tail.readUInt32(at: locator) == 0x0706_4B50 else { throw bad }
            let record = Int(tail.readUInt64(at: locator + 8)) - heldStart
            guard record >= 0, record + 56 <= tail.count, tail.readUInt32(at: record) == 0x0606_4B50 else {
                throw bad
            }
            count = Int(tail.readUInt64(at: record + 32))
            directoryOffset = Int(tail.readUInt64(at: record + 48))
        }
        guard count == modificationTimes.count else { throw bad }
        var position = directoryOffset - heldStart
        for modificationTime in modificationTimes {
            guard position >= 0, position + 46 <= tail.count, tail.readUInt32(at: position) == 0x0201_4B50 else {
                throw bad
            }
            tail.replaceSubrange(position + 12..<position + 16, with: dosDateTimeBytes(modificationTime))
            let nameLength = Int(tail.readUInt16(at: position + 28))
            let extraLength = Int(tail.readUInt16(at: position + 30))
            let commentLength = Int(tail.readUInt16(at: position + 32))
            position += 46 + nameLength + extraLength + commentLength
        }
    }
}

/// A few bytes at an offset of the output to verify (`isCheck`) or to overwrite.
private struct Patch {
    var offset: Int
    var bytes: [UInt8]
    var isCheck: Bool
}

private let zipLocalHeaderSignature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

/// The MS-DOS time (2 bytes) then date (2 bytes), little-endian, of `time` in UTC.
///
/// Same encoding and clamping as libarchive's `dos_time`, but from UTC rather than local time.
func dosDateTimeBytes(_ time: Int) -> [UInt8] {
    let (year, month, day, hour, minute, second) = ISO8601.components(time)
    let value: UInt32
    if year < 1980 {
        value = 0x0021_0000  // 1980-01-01 00:00:00
    } else if year > 2107 {
        value = 0xFF9F_BF7D  // 2107-12-31 23:59:58
    } else {
        let date = UInt32(year - 1980) << 9 | UInt32(month) << 5 | UInt32(day)
        let clock = UInt32(hour) << 11 | UInt32(minute) << 5 | UInt32(second / 2)
        value = date << 16 | clock
    }
    return littleEndianBytes(value)
}

/// The four bytes of `value`, least significant first (zip's and gzip's byte order).
func littleEndianBytes(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
}

/// Text for an error thrown by the caller's output.
private func describe(_ error: any Error) -> String {
    if let error = error as? ContainerError { return error.errorDescription ?? error.message }
    return String(describing: error)
}

extension [UInt8] {
    fileprivate func readUInt16(at index: Int) -> UInt16 {
        UInt16(self[index]) | UInt16(self[index + 1]) << 8
    }

    fileprivate func readUInt32(at index: Int) -> UInt32 {
        UInt32(readUInt16(at: index)) | UInt32(readUInt16(at: index + 2)) << 16
    }

    fileprivate func readUInt64(at index: Int) -> UInt64 {
        UInt64(readUInt32(at: index)) | UInt64(readUInt32(at: index + 4)) << 32
    }
}
