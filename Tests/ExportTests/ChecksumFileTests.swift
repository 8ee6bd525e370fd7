import ArchiveTestSupport
import Crypto
import Foundation
import Testing

@testable import Export

@Suite("the checksum file beside a bundle: GNU sha256sum's format, and only this bundle's")
struct ChecksumFileTests {
    /// Names a checksum file must carry through: plain, spaces, a leading `*`, backslashes, line breaks, scripts.
    static let names = [
        "chat.tar.gz", "case 42 (final).tar.zst", "*star.zip", "back\\slash.tar.gz", "two\nlines.tar.gz",
        "cr\rname.zip", "\\n-literal.tar.gz", "δοκιμή-聊天.tar.gz", " leading space.zip",
    ]

    /// What GNU `sha256sum` prints for a file of this name, run for real in a temporary folder.
    static func sha256sumLine(name: String, contents: Data, in folder: String) throws -> String {
        let path = folder + "/" + name
        try contents.write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", "--", name]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: output, as: UTF8.self)
    }

    @Test(arguments: names)
    func writtenAndReadAsSha256sumDoes(name: String) throws {
        let folder = NSTemporaryDirectory() + "checksum-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let contents = Data("bundle bytes for \(name)".utf8)
        let gnu = try Self.sha256sumLine(name: name, contents: contents, in: folder)
        let digest = SHA256.hash(data: contents).map { String(format: "%02x", $0) }.joined()
        let ours = ChecksumFile(sha256: digest, name: name)
        #expect(ours.text == gnu)
        #expect(try ChecksumFile(parsing: gnu) == ours)
        #expect(try ChecksumFile(parsing: ours.text) == ours)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("\n", "is empty"),
        ("abc  x.tar.gz\n", "does not start with a SHA-256 (64 hexadecimal digits)"),
        (String(repeating: "g", count: 64) + "  x.tar.gz\n", "does not start with a SHA-256 (64 hexadecimal digits)"),
        (
            String(repeating: "a", count: 64) + "\n",
            "does not name a file after its SHA-256 (the sha256sum format: DIGEST, two spaces, NAME)"
        ),
        (
            String(repeating: "a", count: 64) + " x.tar.gz\n",
            "does not name a file after its SHA-256 (the sha256sum format: DIGEST, two spaces, NAME)"
        ),
        (
            String(repeating: "a", count: 64) + "  \n",
            "does not name a file after its SHA-256 (the sha256sum format: DIGEST, two spaces, NAME)"
        ),
        (
            String(repeating: "a", count: 64) + "  x.tar.gz\n" + String(repeating: "b", count: 64) + "  y\n",
            "holds more than one line; it must name only the bundle beside it"
        ),
        (
            "\\" + String(repeating: "a", count: 64) + "  x\\t.tar.gz\n",
            "escapes its file name with an unknown sequence"
        ),
        ("\\" + String(repeating: "a", count: 64) + "  x\\\n", "escapes its file name with an unknown sequence"),
    ])
    func malformedFilesAreRefusedWithTheirReason(text: String, reason: String) {
        #expect(throws: ChecksumFile.Malformed(reason)) { try ChecksumFile(parsing: text) }
    }

    @Test func binaryModeAndCapitalDigitsAreRead() throws {
        let digest = String(repeating: "AB", count: 32)
        #expect(
            try ChecksumFile(parsing: digest + " *x.zip\n")
                == ChecksumFile(sha256: digest.lowercased(), name: "x.zip"))
        #expect(
            try ChecksumFile(parsing: digest + "  x.zip") == ChecksumFile(sha256: digest.lowercased(), name: "x.zip"))
    }

    /// A checksum file that names another file, holds a second line, or is not a checksum file at all fails
    /// verification: `sha256sum -c` would check something else than the bundle, or nothing.
    @Test func onlyAChecksumFileNamingThisBundleVerifies() async throws {
        let fixture = try await ExportFixture.make(messages: 40, dialogs: 2, changes: 5)
        defer { fixture.remove() }
        let path = try await VerifyTests.smallBundle(fixture, .tarGz)
        let other = try await VerifyTests.smallBundle(fixture, .zip)
        let digest = try BundleVerifier.fileSHA256(path)
        let sidecar = path + ".sha256"
        #expect(try String(contentsOfFile: sidecar, encoding: .utf8) == "\(digest)  small.tar.gz\n")
        #expect(try BundleVerifier().verify(path: path).sidecarChecked)

        let otherName = URL(fileURLWithPath: other).lastPathComponent
        let cases: [(text: String, problem: BundleProblem)] = [
            (
                "\(digest)  \(otherName)\n",
                BundleProblem(
                    file: "small.tar.gz.sha256",
                    reason: "names another file (\"small.zip\"), not small.tar.gz: sha256sum -c would check that file")
            ),
            (
                "\(digest)  ./small.tar.gz\n",
                BundleProblem(
                    file: "small.tar.gz.sha256",
                    reason:
                        "names another file (\"./small.tar.gz\"), not small.tar.gz: sha256sum -c would check that file"
                )
            ),
            (
                "\(digest)  small.tar.gz\n\(try BundleVerifier.fileSHA256(other))  small.zip\n",
                BundleProblem(
                    file: "small.tar.gz.sha256",
                    reason:
                        "is not a checksum file: it holds more than one line; it must name only the bundle beside it")
            ),
            (
                "",
                BundleProblem(file: "small.tar.gz.sha256", reason: "is not a checksum file: it is empty")
            ),
            (
                "verified\n",
                BundleProblem(
                    file: "small.tar.gz.sha256",
                    reason: "is not a checksum file: it does not start with a SHA-256 (64 hexadecimal digits)")
            ),
            (
                "\(String(repeating: "0", count: 64))  small.tar.gz\n",
                BundleProblem(file: "small.tar.gz", reason: "does not match its checksum file small.tar.gz.sha256")
            ),
        ]
        for (text, problem) in cases {
            try text.write(toFile: sidecar, atomically: false, encoding: .utf8)
            #expect(throws: problem, "checksum file \(text.debugDescription)") {
                try BundleVerifier().verify(path: path)
            }
        }
        // Not UTF-8, or a folder in its place: said, not skipped.
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: sidecar))
        #expect(
            throws: BundleProblem(file: "small.tar.gz.sha256", reason: "cannot be read as a checksum file (UTF-8 text)")
        ) { try BundleVerifier().verify(path: path) }
        try FileManager.default.removeItem(atPath: sidecar)
        try FileManager.default.createDirectory(atPath: sidecar, withIntermediateDirectories: false)
        #expect(
            throws: BundleProblem(file: "small.tar.gz.sha256", reason: "cannot be read as a checksum file (UTF-8 text)")
        ) { try BundleVerifier().verify(path: path) }
        try FileManager.default.removeItem(atPath: sidecar)
        // Binary mode and capital digits, as other tools write them, verify.
        try "\(digest.uppercased()) *small.tar.gz\n".write(toFile: sidecar, atomically: false, encoding: .utf8)
        #expect(try BundleVerifier().verify(path: path).sidecarChecked)
    }
}
