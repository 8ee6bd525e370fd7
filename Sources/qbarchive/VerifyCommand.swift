import ArgumentParser
import Export
import Foundation
import QuickBlox

/// `qbarchive verify`: check a bundle against its manifest, checksums and signature.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check an export bundle: every file's SHA-256, size and record count, the manifest, the signature.",
        discussion: """
            Checks, in order: BUNDLE.sha256 beside the bundle (when present); that the container starts with \
            manifest.json and that the manifest matches its own manifest_sha256; the Ed25519 signature in \
            manifest.sig (required with --key); that every file listed is present, in order, with the size, \
            SHA-256 and record count the manifest gives, and no other file; finally that the container's \
            bytes are exactly the canonical encoding of those contents, so one changed byte anywhere — a tar \
            header, a zip directory, a gzip header — is detected. Given the parts of a split bundle, also \
            checks that they form one complete set; one part given alone is verified alone. Attachment files (attachments/SHA256) are checked like \
            every other file, and must be named after their SHA-256.

            An unsigned bundle proves integrity against accidents (a bad disk, a cut transfer), not against \
            deliberate edits: whoever changes a file can recompute its checksums and manifest. Only a signature \
            checked with --key proves that the bundle is what the key's owner exported.

            Exit codes: 0 verified, 2 usage (unreadable key file), 10 the bundle cannot be opened (missing, a \
            folder, no permission), 20 verification failed — the message names the first bad file; a container \
            that is truncated, empty or not one is a failed verification too.

            Examples:
              qbarchive verify exports/chat.tar.gz
              qbarchive verify case-42.tar.zst --key keys/compliance.pub --json
              qbarchive verify case-42.part*.tar.gz
            """
    )

    @Argument(help: "The bundle file, or every part of a split bundle.") var bundles: [String]
    @Option(help: "Require a signature by this public key (a .pub file from qbarchive keygen).") var key: String?
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let verifier = BundleVerifier(publicKeyPath: key)
        let paths = bundles
        for path in paths {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                throw CommandFailure(
                    "\(path) is a folder, not a bundle: give the bundle file (a .tar.gz, .tar.zst or .zip)",
                    code: ExitCode(10))
            }
        }
        do {
            let reports = try await OwnThread.run { () throws -> [BundleVerifier.Report] in
                let reports = try paths.map { try verifier.verify(path: $0) }
                // One part given alone is verified alone (parts may travel separately); several are a set.
                if paths.count > 1 { try BundleVerifier.checkComplete(reports, paths: paths) }
                return reports
            }
            for (report, path) in zip(reports, paths) {
                print(json ? Self.json(report, problem: nil) : Self.text(report, path: path))
            }
            if let part = reports.first?.manifest.part, !json {
                print(
                    paths.count > 1
                        ? "all \(part.of) parts of the bundle are present and verified"
                        : "part \(part.number) of \(part.of) verified alone; give every part to check that the set is complete"
                )
            }
        } catch let problem as BundleProblem {
            if json { print(Self.json(nil, problem: problem)) }
            throw CommandFailure("verification FAILED: \(problem.localizedDescription)", code: ExitCode(20))
        } catch let error as ExportError {
            if case .badKey = error { throw CommandFailure(error.localizedDescription, code: .usage) }
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
    }

    private static func text(_ report: BundleVerifier.Report, path: String) -> String {
        let part = report.manifest.part.map { ", part \($0.number) of \($0.of)" } ?? ""
        var lines = ["verified \(path) (\(report.format.rawValue)\(part), sha256 \(report.sha256))"]
        for file in report.manifest.files {
            let records = file.records.map { ", \($0) records" } ?? ""
            if !file.path.hasPrefix("transcripts/"), !file.path.hasPrefix("attachments/") {
                lines.append("  ok  \(file.path) (\(file.size) bytes\(records))")
            }
        }
        let transcripts = report.manifest.files.filter { $0.path.hasPrefix("transcripts/") }.count
        lines.append("  ok  transcripts/ (\(transcripts) files)")
        let attachments = report.manifest.files.filter { $0.path.hasPrefix("attachments/") }
        if !attachments.isEmpty {
            let bytes = attachments.map(\.size).reduce(0, +)
            lines.append("  ok  attachments/ (\(attachments.count) files, \(bytes) bytes)")
        } else if report.manifest.body["attachments"]?["included"] == .bool(false) {
            lines.append("  attachments left out (--no-attachments); the messages name them")
        }
        lines.append(
            report.signer.map { "  signed by key \($0)" }
                ?? "  NOT SIGNED: the checksums show the bundle was not damaged by accident, not that nobody edited it "
                + "(anyone can recompute them); sign exports (export --sign) and verify with --key to prove that")
        if !report.canonical {
            lines.append(
                "  note: made with another libarchive version; contents verified, container encoding not compared")
        }
        if report.sidecarChecked {
            lines.append("  checksum file \(URL(fileURLWithPath: path).lastPathComponent).sha256 matches")
        }
        return lines.joined(separator: "\n")
    }

    private static func json(_ report: BundleVerifier.Report?, problem: BundleProblem?) -> String {
        var object: [String: JSONValue] = ["verified": .bool(report != nil)]
        if let report {
            object["sha256"] = .string(report.sha256)
            object["format"] = .string(report.format.rawValue)
            object["signer"] = report.signer.map(JSONValue.string) ?? .null
            object["signed"] = .bool(report.signer != nil)
            // What the check proves: an unsigned bundle's checksums can be recomputed by whoever edits it.
            object["proves"] = .string(
                report.signer == nil ? "integrity against accidents only (unsigned)" : "integrity and origin (signed)")
            object["files"] = .int(report.manifest.files.count)
            object["canonical"] = .bool(report.canonical)
        }
        if let problem {
            object["file"] = .string(problem.file)
            object["problem"] = .string(problem.reason)
        }
        return JSONValue.object(object).jsonString
    }
}
