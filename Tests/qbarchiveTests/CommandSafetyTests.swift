import ArchiveSQLite
import Foundation
import QuickBlox
import Testing

/// The built binary as a user runs it: saved-query names never read files, control characters in queries
/// are refused, archived text cannot drive the terminal, and unsigned bundles are imported only on request.
@Suite("qbarchive: saved-query names, control characters, terminal output, unsigned bundles")
struct CommandSafetyTests {
    static let secret = "SIGNING-KEY-CLI-DO-NOT-LEAK"
    static let outside = "OUTSIDEQUERYWORD"

    /// A folder with an archive holding hostile text, a queries folder with one query, and secrets beside it.
    struct Setup {
        let directory: URL
        var archive: String { directory.appendingPathComponent("archive.sqlite").path }
        var queries: String { directory.appendingPathComponent("queries").path }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    }

    static func withSetup(_ body: (Setup) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = Setup(directory: directory)
        try FileManager.default.createDirectory(atPath: setup.queries, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: setup.path("keys"), withIntermediateDirectories: true)
        try "refund\n".write(toFile: setup.queries + "/ok.qbq", atomically: true, encoding: .utf8)
        try (secret + "\n").write(toFile: setup.path("keys/signer"), atomically: true, encoding: .utf8)
        try (secret + "\n").write(toFile: setup.path("keys/signer.qbq"), atomically: true, encoding: .utf8)
        try (outside + "\n").write(toFile: setup.path("outside.qbq"), atomically: true, encoding: .utf8)
        let archive = try SQLiteArchive.create(at: setup.archive)
        let now = ArchiveTime.now()
        try await archive.storeUsers(
            rawItems: [User(id: 7, login: "esc", fullName: "Eve\u{1B}]0;pwned\u{07}", createdAt: 0, updatedAt: 0).json])
        try await archive.storeDialogs(rawItems: [
            Dialog(
                id: "0000000000000000000e5c01", type: .group, name: "Room\u{1B}[2J\u{202E}", userID: 7,
                occupantIDs: [7],
                createdAt: now - 10, updatedAt: now
            ).json
        ])
        let message = Message(
            id: "0000000000000000000e5c02", chatDialogID: "0000000000000000000e5c01",
            text: "refund \u{1B}[31mred\u{1B}[0m\u{9B}6n\rover\u{07}", dateSent: now - 5, senderID: 7, recipientID: nil,
            attachments: [], readIDs: [], createdAt: now - 5, updatedAt: now - 5, extra: [:])
        _ = try await archive.storeMessages(dialogID: "0000000000000000000e5c01", rawItems: [message.json], cursor: nil)
        try await body(setup)
    }

    static let hostileNames = [
        "@../keys/signer", "@../outside", "@/etc/passwd", "@..%2Foutside", "@%2e%2e/outside", "@keys/signer",
        "@ok/../../outside", "@../keys/signer.qbq", "@.", "@..", "@ok/", "@ok\\..\\outside",
        "@" + String(repeating: "x", count: 65),
    ]

    @Test func noCommandReadsAFileThroughASavedQueryName() async throws {
        try await Self.withSetup { setup in
            let environment = [
                "QB_ENDPOINT": "http://127.0.0.1:9", "QB_APP_ID": "1", "QB_AUTH_KEY": "k", "QB_AUTH_SECRET": "s",
                "QB_LOGIN": "u", "QB_PASSWORD": "p",
            ]
            for name in Self.hostileNames {
                let runs: [[String]] = [
                    ["search", "--archive", setup.archive, "--queries", setup.queries, name],
                    ["stats", "--archive", setup.archive, "--queries", setup.queries, "--where", name],
                    [
                        "export", "--archive", setup.archive, "--queries", setup.queries, "--where", name, "--format",
                        "jsonl", "--out", setup.path("out.jsonl"),
                    ],
                    ["crawl", "--archive", setup.path("new.sqlite"), "--queries", setup.queries, "--where", name],
                ]
                for arguments in runs {
                    let result = try await CommandRunner.run(arguments, environment: environment)
                    let what = "\(arguments[0]) \(name)"
                    #expect(result.status == 2, "\(what) exited \(result.status): \(result.stderr)")
                    #expect(result.stderr.contains("saved-query name") || result.stderr.contains("no saved query"))
                    for output in [result.stdout, result.stderr] {
                        #expect(!output.contains(Self.secret), "\(what) leaked the key")
                        #expect(!output.contains(Self.outside), "\(what) ran a query from outside the folder")
                    }
                }
            }
            #expect(!FileManager.default.fileExists(atPath: setup.path("out.jsonl")))
            #expect(!FileManager.default.fileExists(atPath: setup.path("new.sqlite")))
            for name in ["@ok", " @ok "] {  // surrounding spaces are not part of the name
                let ok = try await CommandRunner.run(
                    ["search", "--archive", setup.archive, "--queries", setup.queries, name])
                #expect(ok.status == 0 && ok.stdout.contains("refund"), "\(ok.stderr)")
            }
        }
    }

    @Test(arguments: [
        ("refund\u{1B}[2J", 6), ("\u{7F}refund", 0), ("re\u{85}fund", 2), ("refund\tmoney", 6), ("refund\nmoney", 6),
        ("refund \u{1}", 7),
    ])
    func controlCharactersInAQueryAreUsageErrors(query: String, position: Int) async throws {
        try await Self.withSetup { setup in
            for arguments in [
                ["search", "--archive", setup.archive, query], ["stats", "--archive", setup.archive, "--where", query],
            ] {
                let result = try await CommandRunner.run(arguments)
                #expect(result.status == 2)
                #expect(result.stderr.contains("control character"))
                #expect(result.stderr.contains("column \(position + 1)") || result.stderr.contains("^"))
                #expect(
                    !result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x7F || $0.value == 0x85 })
            }
            let long = String(repeating: "a ", count: 2100)
            let tooLong = try await CommandRunner.run(["search", "--archive", setup.archive, long])
            #expect(tooLong.status == 2 && tooLong.stderr.contains("longer than 4096 bytes"))
        }
    }

    @Test func archivedTextCannotDriveTheTerminal() async throws {
        try await Self.withSetup { setup in
            let result = try await CommandRunner.run(["search", "--archive", setup.archive, "refund"])
            #expect(result.status == 0)
            #expect(!result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0.value != 0x0A })
            #expect(!result.stdout.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
            #expect(result.stdout.contains("\\x1B[31mred\\x1B[0m\\x9B6n over\\x07"))
            #expect(result.stdout.contains("Room\\x1B[2J\\u{202E}"))
            #expect(result.stdout.contains("Eve\\x1B]0;pw"))
            // Machine formats keep the text exactly (JSON escapes it; CSV is lossless).
            let json = try await CommandRunner.run([
                "search", "--archive", setup.archive, "--format", "jsonl", "refund",
            ])
            #expect(
                try JSONValue(parsing: json.stdout.trimmingCharacters(in: .newlines))["text"]
                    == .string("refund \u{1B}[31mred\u{1B}[0m\u{9B}6n\rover\u{07}"))
        }
    }

    @Test func anUnsignedBundleIsImportedOnlyWhenAskedAndVerifySaysWhatItProves() async throws {
        try await Self.withSetup { setup in
            let bundle = setup.path("plain.tar.gz")
            let made = try await CommandRunner.run(["export", "--archive", setup.archive, "--out", bundle])
            #expect(made.status == 0, "\(made.stderr)")
            let verify = try await CommandRunner.run(["verify", bundle])
            #expect(verify.status == 0)
            #expect(verify.stdout.contains("NOT SIGNED") && verify.stdout.contains("not that nobody edited it"))
            let verifyJSON = try await CommandRunner.run(["verify", "--json", bundle])
            let report = try JSONValue(parsing: verifyJSON.stdout.trimmingCharacters(in: .newlines))
            #expect(report["signed"] == .bool(false))
            #expect(report["proves"]?.stringValue?.contains("accidents only") == true)

            let refused = try await CommandRunner.run(["import", bundle, "--archive", setup.path("restored.sqlite")])
            #expect(refused.status == 20)
            #expect(refused.stderr.contains("not signed") && refused.stderr.contains("--allow-unsigned"))
            #expect(!FileManager.default.fileExists(atPath: setup.path("restored.sqlite")))
            let allowed = try await CommandRunner.run([
                "import", bundle, "--archive", setup.path("restored.sqlite"), "--allow-unsigned",
            ])
            #expect(allowed.status == 0, "\(allowed.stderr)")

            // A signed bundle imports without the flag, and with the key that signed it; without --key its
            // signature is checked against nothing (any key of a forger's own), so it is refused like an unsigned one.
            let key = setup.path("keys/compliance")
            #expect(try await CommandRunner.run(["keygen", key]).status == 0)
            let signed = setup.path("signed.tar.gz")
            #expect(
                try await CommandRunner.run(["export", "--archive", setup.archive, "--out", signed, "--sign", key])
                    .status == 0)
            let unchecked = try await CommandRunner.run(["import", signed, "--archive", setup.path("restored3.sqlite")])
            #expect(unchecked.status == 20, "\(unchecked)")
            #expect(unchecked.stderr.contains("without --key nothing shows whose key signed it"), "\(unchecked)")
            #expect(!FileManager.default.fileExists(atPath: setup.path("restored3.sqlite")))
            let other = setup.path("keys/other")
            #expect(try await CommandRunner.run(["keygen", other]).status == 0)
            let forged = try await CommandRunner.run([
                "import", signed, "--archive", setup.path("restored3.sqlite"), "--key", other + ".pub",
            ])
            #expect(forged.status == 20, "\(forged)")
            let imported = try await CommandRunner.run([
                "import", signed, "--archive", setup.path("restored2.sqlite"), "--key", key + ".pub",
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
        }
    }
}
