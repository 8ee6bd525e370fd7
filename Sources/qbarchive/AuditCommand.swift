import Archive
import ArgumentParser
import Foundation
import QuickBlox

/// `qbarchive audit`: read and check the archive's append-only audit log.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check or list the archive's hash-chained audit log (exports, imports, service searches and views).",
        subcommands: [AuditVerifyCommand.self, AuditListCommand.self]
    )
}

/// `qbarchive audit verify`: recompute every entry's hash and check the chain.
struct AuditVerifyCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Recompute every audit entry's SHA-256 and check that each names its predecessor.",
        discussion: """
            Each entry's hash covers the previous entry's hash, its time, action and detail, so changing, \
            removing or reordering any entry breaks the chain from there on; the first broken entry is named. \
            Removing the newest entries leaves a shorter chain that is still whole: only a head recorded \
            elsewhere shows it. Keep the head this command prints (or an exported bundle's audit.jsonl), and \
            give it to a later check with --expect-head: the entry it names must still be in the chain.

            Exit codes: 0 the chain is intact, 10 the archive is missing or not one, 20 the chain is broken \
            or the expected head is gone.

            Examples:
              qbarchive audit verify --archive chat.sqlite
              qbarchive audit verify --archive chat.sqlite --expect-head 3f2a9c0d1e2b4a57
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""

    mutating func validate() throws {
        try resolveArchive()
        if let expectHead {
            guard expectHead.count >= 16, expectHead.count <= 64, expectHead.allSatisfy(\.isHexDigit) else {
                throw ValidationError("--expect-head takes 16 to 64 hexadecimal digits of an entry's hash")
            }
        }
    }
    @Flag(help: "Print the result as JSON.") var json = false
    @Option(
        help: ArgumentHelp(
            "A head recorded earlier (its first 16 hex digits or more): the entry must still be in the chain.",
            valueName: "HEX"))
    var expectHead: String?

    func run() async throws {
        let store = try await AuditCommand.open(archive)
        let entries = try await store.auditEntries()
        let broken = try await store.firstBrokenAuditEntry()
        let wanted = expectHead?.lowercased()
        let witnessed = wanted.map { wanted in
            entries.firstIndex { $0.hashHex.hasPrefix(wanted) }
        }
        if json {
            print(
                JSONValue.object([
                    "entries": .int(entries.count), "intact": .bool(broken == nil),
                    "first_broken": broken.map { .int(Int($0.id)) } ?? .null,
                    "head": entries.last.map { .string($0.hashHex) } ?? .null,
                    "expected_head_found": witnessed.map { .bool($0 != nil) } ?? .null,
                    "entries_after_expected_head": (witnessed ?? nil).map { .int(entries.count - $0 - 1) } ?? .null,
                ]).jsonString)
        }
        if let broken {
            throw CommandFailure(
                "audit log BROKEN at entry \(broken.id) (\(broken.action) at \(ISO8601.format(broken.at))): "
                    + "its hash does not match its contents and predecessor; entries from there on cannot be trusted",
                code: ExitCode(20))
        }
        if let wanted, (witnessed ?? nil) == nil {
            throw CommandFailure(
                "audit log SHORTENED: no entry has the expected head \(wanted); that entry, and perhaps others "
                    + "after it, were removed (the \(entries.count) entries left form a whole chain)",
                code: ExitCode(20))
        }
        if !json {
            let head =
                entries.last.map { ", head " + $0.hashHex.prefix(16) } ?? ""
            let since = (witnessed ?? nil).map {
                "; the expected head is entry \($0 + 1), \(entries.count - $0 - 1) after it"
            }
            print("audit log intact: \(entries.count) entries\(head)\(since ?? "")")
        }
    }
}

/// `qbarchive audit list`: the latest audit entries.
struct AuditListCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print the latest audit entries (time, action, detail), oldest first.")

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""

    mutating func validate() throws {
        try resolveArchive()
    }
    @Option(help: "How many of the latest entries.") var last = 50
    @Flag(help: "One JSON object per line, with each entry's chain hashes.") var json = false

    func run() async throws {
        let entries = try await AuditCommand.open(archive).auditEntries().suffix(max(0, last))
        for entry in entries {
            if json {
                print(
                    JSONValue.object([
                        "id": .int(Int(entry.id)), "at": .string(ISO8601.format(entry.at)),
                        "action": .string(entry.action),
                        "detail": (try? JSONValue(parsing: entry.detail)) ?? .string(entry.detail),
                        "hash": .string(entry.hashHex),
                        "previous_hash": entry.previousHashHex.map(JSONValue.string) ?? .null,
                    ]).jsonString)
            } else {
                print(
                    "\(entry.id)\t\(ISO8601.format(entry.at))\t\(TerminalText.neutralised(entry.action))\t"
                        + TerminalText.neutralised(entry.detail))
            }
        }
    }
}

extension AuditCommand {
    static func open(_ path: String) async throws -> any ArchiveReader {
        try await ArchiveLocation.reader(path)
    }
}
