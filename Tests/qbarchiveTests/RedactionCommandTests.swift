import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// `export --redact` and `export --subject` through the built binary: what a rule matches is gone from every
/// file of every format, what it does not match is untouched, and a subject-access export names no one else.
@Suite("qbarchive export --redact / --subject: matches gone from every file, others pseudonymised (the built binary)")
struct RedactionCommandTests {
    typealias F = ArchiveFixture

    /// Personal data in many shapes and scripts, and what each must become.
    static let found: [(text: String, becomes: String)] = [
        ("alice@example.com", "[email]"), ("Bob.Smith+tag@mail.example.co.uk", "[email]"),
        ("мария@почта.рф", "[email]"), ("用户@例子.中国", "[email]"), ("ελένη@παράδειγμα.ελ", "[email]"),
        ("O'Neil_99@EXAMPLE.ORG", "[email]"),
        ("+49 30 1234567", "[phone]"), ("(030) 123-4567", "[phone]"), ("+1-202-555-0143", "[phone]"),
        ("020 7946 0958", "[phone]"), ("0171.234.5678", "[phone]"), ("+44 (0)20 7946 0958", "[phone]"),
        ("5551234567", "[phone]"), ("٠١٧١٢٣٤٥٦٧٨", "[phone]"), ("+33 6 12 34 56 78", "[phone]"),
        ("https://example.com/path?q=1&r=2", "[url]"), ("http://evil.example/?a=b", "[url]"),
        ("www.example.org/page", "[url]"), ("HTTPS://EXAMPLE.COM", "[url]"), ("ftp://files.example.net/x.zip", "[url]"),
        ("https://例子.中国/路径", "[url]"), ("https://user:secret@host.example:8443/a(b)", "[url]"),
    ]

    /// What looks a little like personal data and must stay as it is.
    static let kept: [String] = [
        "2024-03-01", "2024-03-01 10:30", "01.03.2024", "192.168.1.10", "12:30", "v1.2.3", "ID 123456", "room 42",
        "3.14", "user@localhost", "@alice", "example.com", "order 65a1234567890abc", "5f1c0c2e9a4e0b0001a1b2c3",
        "1,234,567", "10-12", "call me", "мария", "100 %",
    ]

    /// One message per case, each in a sentence, with the case in a custom field too.
    static func fixture() async throws -> ArchiveFixture {
        let fixture = try await F()
        let cases = found.map(\.text) + kept
        try await fixture.write(
            cases.enumerated().map { index, text in
                F.message(
                    index + 1, text: "before \(text) after.", offset: index, custom: ["note": .string("x \(text) y")])
            })
        return fixture
    }

    @Test func everyMatchIsReplacedInTextRawAndCustomAndNothingElseIsTouched() async throws {
        let fixture = try await Self.fixture()
        let archive = fixture.directory.file("archive.sqlite")
        let out = fixture.directory.file("redacted.jsonl")
        let run = try await CommandRunner.run([
            "export", "--archive", archive, "--format", "jsonl", "--raw", "--redact", "all", "--out", out,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let records = try ExportReading.lines(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        let cases = Self.found + Self.kept.map { ($0, $0) }
        #expect(records.count == cases.count)
        for (record, (text, becomes)) in zip(records, cases) {
            #expect(record["text"]?.stringValue == "before \(becomes) after.", "\(text)")
            #expect(record["raw"]?["message"]?.stringValue == "before \(becomes) after.", "raw of \(text)")
            #expect(record["custom"]?["note"]?.stringValue == "x \(becomes) y", "custom of \(text)")
        }
        let bytes = try String(contentsOfFile: out, encoding: .utf8)
        for (text, _) in Self.found { #expect(!bytes.contains(text), "\(text) survived") }

        // Each kind alone touches only its own kind.
        for kind in ["emails", "phones", "urls"] {
            let path = fixture.directory.file("\(kind).jsonl")
            let single = try await CommandRunner.run([
                "export", "--archive", archive, "--format", "jsonl", "--redact", kind, "--out", path,
            ])
            #expect(single.status == 0, "\(single.stderr)")
            let texts = try ExportReading.lines(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                .map { $0["text"]?.stringValue }
            // (A URL's user:password@host is also an address to the e-mail rule alone: not compared here.)
            for (text, (original, becomes)) in zip(texts, cases) where !original.contains("://user:") {
                let mine = becomes == "[\(kind.dropLast())]"
                #expect(text == "before \(mine ? becomes : original) after.", "\(kind): \(original)")
            }
        }
    }

    @Test func aBundleCarriesNoMatchInAnyFileAndItsManifestSaysWhatWasRedacted() async throws {
        let fixture = try await Self.fixture()
        let archive = fixture.directory.file("archive.sqlite")
        // An earlier version holds an address; a user's profile, a dialog's name and an attachment hold others.
        try await fixture.write(
            [F.message(900, text: "old: write to zed@old.example", offset: 900, updatedAt: F.baseTime + 900)])
        try await fixture.write(
            [
                F.message(
                    900, text: "new text, see CASE-1234", offset: 900, updatedAt: F.baseTime + 950,
                    attachments: [Attachment(type: "image", url: "https://cdn.example.net/p/photo.png", name: "p.png")])
            ], at: F.baseTime + 1000)
        try await fixture.archive.storeUsers(rawItems: [
            User(
                id: 2, login: "carol", email: "carol@people.example", fullName: "Carol", phone: "+33 6 98 76 54 32",
                createdAt: 0, updatedAt: 0
            ).json
        ])
        try await fixture.archive.storeDialogs(
            rawItems: [F.dialog(F.otherDialogID, name: "Support www.help.example").json], at: F.baseTime + 10)
        let path = fixture.directory.file("case.tar.gz")
        let run = try await CommandRunner.run([
            "export", "--archive", archive, "--redact", "emails,phones,urls", "--redact-pattern", "CASE-[0-9]{4}",
            "--no-attachments", "--out", path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let entries = try ExportReading.entries(path)
        #expect(entries["revisions.jsonl"].map { !$0.isEmpty } == true)
        let secrets =
            Self.found.map(\.text) + [
                "zed@old.example", "CASE-1234", "https://cdn.example.net", "carol@people.example", "+33 6 98 76 54 32",
                "www.help.example",
            ]
        for (name, bytes) in entries where name != "manifest.json" {
            let text = String(decoding: bytes, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "\(secret) in \(name)") }
        }
        let users = try ExportReading.lines(entries["users.jsonl"])
        let carol = try #require(users.first { $0["id"] == 2 })
        #expect(carol["email"] == "[email]" && carol["phone"] == "[phone]" && carol["login"] == "carol")
        #expect(String(decoding: entries["revisions.jsonl"] ?? [], as: UTF8.self).contains("old: write to [email]"))
        #expect(String(decoding: entries["messages.jsonl"] ?? [], as: UTF8.self).contains("see [redacted]"))
        let manifest = try JSONValue(parsing: entries["manifest.json"] ?? [])
        let redacted = manifest["privacy"]?["redacted"]
        #expect(redacted?["kinds"] == .array(["urls", "emails", "phones"]))
        #expect(redacted?["patterns"] == .array(["CASE-[0-9]{4}"]))
        #expect((redacted?["replaced"]?["emails"]?.lenientInt ?? 0) >= 7, "\(String(describing: redacted))")
        #expect((redacted?["replaced"]?["patterns"]?.lenientInt ?? 0) >= 1)
        #expect(try await CommandRunner.run(["verify", path]).status == 0)

        // A redacted bundle is a disclosure, not a copy: import refuses it.
        let imported = try await CommandRunner.run([
            "import", "--archive", fixture.directory.file("restored.sqlite"), "--allow-unsigned", path,
        ])
        #expect(imported.status == 20 && imported.stderr.contains("--redact"), "\(imported)")
    }

    @Test func badRedactionOptionsAreRefusedNamingWhatWasWrong() async throws {
        let fixture = try await Self.fixture()
        let archive = fixture.directory.file("archive.sqlite")
        let cases: [([String], String)] = [
            (["--redact", "emails,ssn"], "\"ssn\""), (["--redact-pattern", "(unclosed"], "(unclosed"),
            (["--redact-pattern", "x*"], "matches the empty text"),
            (["--subject", "nobody"], "no user with this id or login"),
            (["--subject", "999"], "no user with this id or login"),
        ]
        for (options, says) in cases {
            let out = fixture.directory.file("never.jsonl")
            let run = try await CommandRunner.run(
                ["export", "--archive", archive, "--format", "jsonl", "--out", out] + options)
            #expect(run.status == 2 && run.stderr.contains(says), "\(options): \(run)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
