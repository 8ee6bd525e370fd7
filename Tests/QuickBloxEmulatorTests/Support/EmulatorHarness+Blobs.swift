import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Testing

/// A blob as the truth dump lists it, with the SHA-256 of its bytes.
struct TruthBlob: Sendable {
    var blob: Blob
    var sha256: String
}

extension EmulatorHarness {
    static let tokenHeader = HTTPField.Name("QB-Token")!

    /// The truth dump's `blob` lines, in order (by id).
    func truthBlobs() async throws -> [TruthBlob] {
        try await truth().filter { $0["kind"] == "blob" }.map {
            TruthBlob(blob: try Blob(json: try #require($0["record"])), sha256: try #require($0["sha256"]?.stringValue))
        }
    }

    /// The first blob the truth lists that satisfies `predicate`.
    func truthBlob(where predicate: (TruthBlob) -> Bool = { _ in true }) async throws -> TruthBlob {
        try #require(try await truthBlobs().first(where: predicate))
    }

    /// The storage path (with its query) a download redirect points to.
    static func storagePath(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        #expect(response.status == .found, "\(response.text)", sourceLocation: sourceLocation)
        let location = try #require(response.headers[.location], sourceLocation: sourceLocation)
        let start = try #require(location.range(of: "/_storage/"), sourceLocation: sourceLocation)
        return String(location[start.lowerBound...])
    }

    /// Downloads blob `uid` as `user`: the redirect, then the storage URL.
    func download(_ uid: String, as user: Int = 100_001) async throws -> TestResponse {
        let redirect = try await request(.get, "/blobs/\(uid)/download", headers: Self.asUser(user))
        return try await request(.get, try Self.storagePath(redirect))
    }

    /// Lower-case hex SHA-256.
    static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    /// Runs a command (curl, sh) and returns its exit status and standard output, waiting
    /// without blocking a thread: the in-process server needs the cooperative pool to answer.
    static func run(_ arguments: [String]) async throws -> (exit: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// curl following the download redirect of `uid` as user1, printing
    /// `STATUS BYTES_RECEIVED CONTENT_LENGTH`; the body goes to `/dev/null`.
    func curlDownload(_ uid: String) async throws -> (exit: Int32, status: Int, received: Int, declared: Int) {
        let result = try await Self.run([
            "curl", "-s", "-L", "--max-time", "120", "-o", "/dev/null",
            "-w", "%{http_code} %{size_download} %header{content-length}",
            "-H", "Authorization: ApiKey \(Self.apiKey)", "-H", "On-Behalf-Of: 100001",
            "http://127.0.0.1:\(port)/blobs/\(uid)/download",
        ])
        let parts = result.output.split(separator: " ").map { Int($0) ?? -1 }
        return (result.exit, parts.first ?? -1, parts.count > 1 ? parts[1] : -1, parts.count > 2 ? parts[2] : -1)
    }
}
