import Archive
import Foundation
import QuickBlox
import Testing

/// A bundle proves itself with coreutils, Python and OpenSSL, following its own README.txt.
@Suite("A bundle checked by hand, as its README says: sha256sum, Python, OpenSSL (the built binary)")
struct BundleByHandCommandTests {
    /// The indented command lines of README.txt's numbered steps, with BUNDLE replaced.
    static func commands(_ readme: String, step: Int, bundle: String) -> [String] {
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("\(step). ") }) else { return [] }
        let end = lines[(start + 1)...].firstIndex(where: {
            $0.hasPrefix("\(step + 1). ") || $0.hasPrefix("manifest.json's")
        })
        return lines[(start + 1)..<(end ?? lines.count)].filter { $0.hasPrefix("     ") && !$0.hasPrefix("      ") }
            .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "BUNDLE", with: bundle) }
    }

    @Test(arguments: ["tar.gz", "tar.zst", "zip"])
    func everyStepOfTheReadmeWorksAndCatchesAChangedByte(container: String) async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let directory = URL(fileURLWithPath: archive).deletingLastPathComponent().appendingPathComponent(
                "hand-\(container)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let key = directory + "/exporter"
            #expect(try await CommandRunner.run(["keygen", key]).status == 0)
            let bundle = "case.\(container)"
            let export = try await CommandRunner.run([
                "export", "--archive", archive, "--bundle", container, "--sign", key, "--out", directory + "/" + bundle,
                "--since", "3650d", "--where", "refund or invoice",
            ])
            #expect(export.status == 0, "\(export.stderr)")

            // Step 1, beside the bundle; step 2's unpack line; then the rest inside the unpacked folder.
            let step1 = try await CommandRunner.shell("sha256sum -c \(bundle).sha256", in: directory)
            #expect(step1.status == 0 && step1.stdout.contains("OK"), "\(step1)")
            let unpack = BundleReadmeText.unpack[container] ?? ""
            #expect(
                try await CommandRunner.shell(unpack.replacingOccurrences(of: "BUNDLE", with: bundle), in: directory)
                    .status == 0
            )
            let unpacked = directory + "/b"
            let readme = try String(contentsOfFile: unpacked + "/README.txt", encoding: .utf8)
            #expect(readme.contains(unpack), "the README says how to unpack a \(container)")
            #expect(Self.commands(readme, step: 1, bundle: bundle) == ["sha256sum -c \(bundle).sha256"])
            var all: [String] = []
            for step in 2...5 {
                let commands = Self.commands(readme, step: step, bundle: bundle)
                #expect(!commands.isEmpty, "step \(step)")
                all += commands
            }
            for command in all {
                let run = try await CommandRunner.shell(command, in: unpacked)
                #expect(run.status == 0, "\(command): \(run)")
                if command.hasPrefix("python3 -c 'import json,hashlib"), command.contains("manifest.json") {
                    #expect(run.stdout.contains("manifest: all files match"))
                }
                if command.contains("audit.jsonl") { #expect(run.stdout.contains("intact"), "\(run)") }
                if command.hasPrefix("openssl") { #expect(run.stdout.contains("Signature Verified Successfully")) }
                if command.hasPrefix("python3 -c 'import json,base64") {
                    let publicKey = try String(contentsOfFile: key + ".pub", encoding: .utf8).split(separator: " ")[1]
                    #expect(
                        run.stdout.contains(
                            "signed by key \(publicKey.trimmingCharacters(in: .whitespacesAndNewlines))"))
                }
            }

            // The manifest records the selection's dates as instants.
            let manifest = try JSONValue(
                parsing: try Data(contentsOf: URL(fileURLWithPath: unpacked + "/manifest.json")))
            let resolved = manifest["selection"]?["resolved"]
            #expect(resolved?["time_zone"] == "UTC")
            let from = try #require(resolved?["sent_from"]?.stringValue.flatMap(ISO8601.parse))
            #expect(abs(from - (ArchiveTime.now() - 3650 * 86_400)) < 600, "\(String(describing: resolved))")
            #expect(resolved?["where_understood_as"] == "word \"refund\" OR word \"invoice\"")

            // Step 5's entry is the archive's: the same number and hash in its audit log, followed by the
            // `export` entry that names it and the bundle's SHA-256.
            let entry = try JSONValue(
                parsing: try String(contentsOfFile: unpacked + "/audit.jsonl", encoding: .utf8))
            let log = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
            let entries = try log.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            let begun = try #require(entries.first { $0["id"] == entry["id"] })
            #expect(begun["action"] == "export_begin" && begun["hash"] == entry["hash"], "\(begun) \(entry)")
            #expect(manifest["audit"]?["hash"] == entry["hash"] && manifest["audit"]?["entry"] == entry["id"])
            let finished = try #require(entries.last { $0["action"] == "export" })
            #expect(finished["detail"]?["begun"]?["hash"] == entry["hash"])
            let bundleSum = try String(contentsOfFile: directory + "/\(bundle).sha256", encoding: .utf8).prefix(64)
            #expect(finished["detail"]?["sha256"]?.stringValue == String(bundleSum))
            let stepFive = Self.commands(readme, step: 5, bundle: bundle)[0]
            let original = try String(contentsOfFile: unpacked + "/audit.jsonl", encoding: .utf8)
            let altered = original.replacingOccurrences(of: "export_begin", with: "export_begun")
            try altered.write(toFile: unpacked + "/audit.jsonl", atomically: false, encoding: .utf8)
            let alteredRun = try await CommandRunner.shell(stepFive, in: unpacked)
            #expect(alteredRun.stdout.contains("ALTERED"), "\(alteredRun)")
            try original.write(toFile: unpacked + "/audit.jsonl", atomically: false, encoding: .utf8)

            // One changed byte in a file: step 2 and step 3 name it; so does a changed manifest for step 4.
            let messages = unpacked + "/messages.csv"
            var bytes = try Data(contentsOf: URL(fileURLWithPath: messages))
            bytes[bytes.count / 2] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: messages))
            let sums = try await CommandRunner.shell("sha256sum -c SHA256SUMS", in: unpacked)
            #expect(sums.status != 0 && sums.stdout.contains("messages.csv: FAILED"), "\(sums)")
            let check = try await CommandRunner.shell(Self.commands(readme, step: 3, bundle: bundle)[0], in: unpacked)
            #expect(check.stdout.contains("MISMATCH messages.csv"), "\(check)")
            var manifestBytes = try Data(contentsOf: URL(fileURLWithPath: unpacked + "/manifest.json"))
            manifestBytes[manifestBytes.count / 2] ^= 0x01
            try manifestBytes.write(to: URL(fileURLWithPath: unpacked + "/manifest.json"))
            let signature = try await CommandRunner.shell(
                Self.commands(readme, step: 4, bundle: bundle)[1], in: unpacked)
            #expect(signature.status != 0, "\(signature)")
        }
    }
}

/// What the README says for each container (kept beside the test so a change in the README is a change here).
enum BundleReadmeText {
    static let unpack = [
        "tar.gz": "mkdir b && tar -xzf BUNDLE -C b && cd b", "tar.zst": "mkdir b && tar --zstd -xf BUNDLE -C b && cd b",
        "zip": "unzip BUNDLE -d b && cd b",
    ]
}
