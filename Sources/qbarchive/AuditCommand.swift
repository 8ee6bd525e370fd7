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
            removing or reordering any entry breaks the chain from there on; the first broken entry is named.

            Exit codes: 0 the chain is intact, 10 the archive is missing or not one, 20 the chain is broken.

            Example:
              qbarchive audit verify --archive chat.sqlite
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""

    mutating func validate() throws {
        try resolveArchive()
    }
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let store = try await AuditCommand.open(archive)
        let entries = try await store.auditEntries()
        let broken = try await store.firstBrokenAuditEntry()
        if json {
            print(
                JSONValue.object([
                    "entries": .int(entries.count), "intact": .bool(broken == nil),
                    "first_broken": broken.map { .int(Int($0.id)) } ?? .null,
                    "head": entries.last.map { .string($0.hash.map { String(format: "%02x", $0) }.joined()) } ?? .null,
                ]).jsonString)
        }
        if let broken {
            throw CommandFailure(
                "audit log BROKEN at entry \(broken.id) (\(broken.action) at \(ISO8601.format(broken.at))): "
                    + "its hash does not match its contents and predecessor; entries from there on cannot be trusted",
                code: ExitCode(20))
        }
        if !json {
            let head =
                entries.last.map { ", head " + $0.hash.prefix(8).map { String(format: "%02x", $0) }.joined() } ?? ""
            print("audit log intact: \(entries.count) entries\(head)")
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
