import Foundation
import Synchronization

/// What one transfer has received so far; written only from libcurl's callbacks on the transfer's thread.
final class Transfer: @unchecked Sendable {
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    var tooLarge = false
    let maxBodyBytes: Int
    let cancelled = Atomic<Bool>(false)
    /// Where a 2xx body goes when streaming.
    let sink: (any DownloadSink)?
    /// The bytes the sink already holds, when this transfer asks for the rest of a file.
    let resume: ResumePoint?
    /// The current response's status, from its status line (the body callback needs it before the end).
    var status = 0
    /// Bytes the sink took in this transfer.
    var streamed = 0
    var sinkFailure: String?
    /// Why an answer to a range request could not continue the sink.
    var rangeMismatch: String?
    /// Whether this response's body continues ``resume``'s bytes (a fitting 206) rather than replacing them.
    var continues = false
    /// Whether the first 2xx body chunk has been seen (and the sink prepared for it).
    private var begun = false

    init(maxBodyBytes: Int, sink: (any DownloadSink)? = nil, resume: ResumePoint? = nil) {
        self.maxBodyBytes = maxBodyBytes
        self.sink = sink
        self.resume = resume
    }

    /// Bytes the sink holds now: a continued prefix and this transfer's body.
    var sinkBytes: Int { (continues ? resume?.offset ?? 0 : 0) + streamed }

    /// What had arrived when the transfer failed, for a streamed download whose status line came.
    var partial: PartialResponse? {
        guard sink != nil, status != 0 else { return nil }
        return PartialResponse(status: status, headers: headers, sinkBytes: sinkBytes, continued: continues)
    }

    /// Readies the sink for a 2xx body: keeps the prefix for a 206 that fits, empties it for a whole file.
    /// Returns `false` to abort the transfer. Runs once, at the first body byte or at the end.
    func begin() -> Bool {
        guard !begun else { return true }
        begun = true
        guard let sink, let resume, (200..<300).contains(status) else { return true }
        if status == 206 {
            rangeMismatch = resume.mismatch(headers: headers)
            continues = rangeMismatch == nil
            return continues
        }
        // The server sent the whole file instead of the rest: it replaces what the sink held.
        do { try sink.restart() } catch {
            sinkFailure = "the file could not be started over: \(error)"
            return false
        }
        return true
    }

    func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let data else { return 0 }
        if let sink {
            guard (200..<300).contains(status) else {
                // An error body: keep its start for the message, drop the rest.
                let room = max(0, 65_536 - body.count)
                data.withMemoryRebound(to: UInt8.self, capacity: count) {
                    body.append(contentsOf: UnsafeBufferPointer(start: $0, count: min(room, count)))
                }
                return count
            }
            guard begin() else { return 0 }
            guard sinkBytes + count <= maxBodyBytes else {
                tooLarge = true
                return 0
            }
            guard sink.write(UnsafeRawBufferPointer(start: data, count: count)) else {
                sinkFailure = "the file could not be written"
                return 0
            }
            streamed += count
            return count
        }
        guard body.count + count <= maxBodyBytes else {
            tooLarge = true
            return 0  // makes libcurl abort with CURLE_WRITE_ERROR
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) {
            body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
        }
        return count
    }

    func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let data else { return 0 }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") {
            headers.removeAll()  // a new response (after 100 Continue or a redirect) starts over
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            headers[name] = value
        }
        return count
    }
}
