import Foundation
import QuickBlox
import Testing

/// `qbarchive export --out NAME` writes what NAME says (.jsonl, .csv, .tar.gz/.tgz, .tar.zst/.tzst, .zip, any
/// case), and a --format or --bundle that contradicts the name is a usage error that writes nothing.
@Suite("qbarchive export: the output is what its name says (the built binary)")
struct ExportNamingCommandTests {
    /// A file name, the flags beside it, and what the file must then hold.
    struct Named: Sendable, CustomStringConvertible {
        var name: String
        var flags: [String] = []
        var holds: String  // "jsonl", "csv", or the container `verify` reports
        var description: String { "\(flags.joined(separator: " ")) --out \(name) → \(holds)" }
    }

    static let written: [Named] = [
        Named(name: "scams.jsonl", holds: "jsonl"),
        Named(name: "Q2.CSV", holds: "csv"),
        Named(name: "case.tar.zst", holds: "tar.zst"),
        Named(name: "case.TZST", holds: "tar.zst"),
        Named(name: "case.tgz", holds: "tar.gz"),
        Named(name: "desk.zip", holds: "zip"),
        Named(name: "case-42", holds: "tar.gz"),
        Named(name: "case-42", flags: ["--bundle", "zip"], holds: "zip"),
        Named(name: "odd-name", flags: ["--format", "csv"], holds: "csv"),
        Named(name: "case.tar.zst", flags: ["--format", "bundle", "--bundle", "tar.zst"], holds: "tar.zst"),
        Named(name: "m.jsonl", flags: ["--format", "jsonl", "--raw"], holds: "jsonl"),
    ]

    /// Refused: the flags contradict the name, or --bundle goes with no bundle; the words the error must say.
    static let refused: [(name: String, flags: [String], says: String)] = [
        ("scams.jsonl", ["--format", "csv"], "is named as JSON Lines, but --format is csv: end the name in .csv"),
        ("q.csv", ["--format", "bundle"], "is named as CSV, but --format is bundle"),
        ("case.tar.gz", ["--bundle", "zip"], "is named as a tar.gz bundle, but --bundle is zip: end the name in .zip"),
        ("case.zip", ["--format", "jsonl"], "is named as a zip bundle, but --format is jsonl"),
        ("case.tar.zst", ["--bundle", "tar.gz"], "but --bundle is tar.gz"),
        ("m.jsonl", ["--bundle", "tar.zst"], "--bundle tar.zst goes with --format bundle (this export writes jsonl)"),
    ]

    @Test func eachNameGetsWhatItSaysAndContradictionsWriteNothing() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let directory = URL(fileURLWithPath: archive).deletingLastPathComponent().appendingPathComponent("named")
            for (index, named) in Self.written.enumerated() {
                let folder = directory.appendingPathComponent("\(index)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let path = folder.appendingPathComponent(named.name).path
                let run = try await CommandRunner.run(["export", "--archive", archive, "--out", path] + named.flags)
                #expect(run.status == 0, "\(named): \(run.stderr)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                switch named.holds {
                case "jsonl":
                    let first = try #require(bytes.split(separator: UInt8(ascii: "\n")).first, "\(named)")
                    #expect(try JSONValue(parsing: Array(first))["id"]?.stringValue != nil, "\(named)")
                case "csv":
                    #expect(String(decoding: bytes.prefix(3), as: UTF8.self) == "id,", "\(named)")
                default:
                    let verify = try await CommandRunner.run(["verify", path])
                    #expect(verify.status == 0, "\(named): \(verify.stderr)")
                    #expect(verify.stdout.hasPrefix("verified \(path) (\(named.holds), sha256 "), "\(named)")
                }
            }
            for (index, refused) in Self.refused.enumerated() {
                let path = directory.appendingPathComponent("refused-\(index)-" + refused.name).path
                let run = try await CommandRunner.run(["export", "--archive", archive, "--out", path] + refused.flags)
                #expect(run.status == 2, "\(refused.flags) --out \(refused.name): \(run.stderr)")
                #expect(run.stderr.contains(refused.says), "\(run.stderr)")
                #expect(!FileManager.default.fileExists(atPath: path), "nothing written for \(refused.name)")
            }
        }
    }
}
