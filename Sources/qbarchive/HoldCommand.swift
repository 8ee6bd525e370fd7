import Archive
import ArgumentParser
import Foundation
import QueryLanguage
import QuickBlox

/// `qbarchive hold`: legal holds that erasure and retention must not touch.
struct HoldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Place, list and release legal holds (erase and retain refuse held data).",
        discussion: """
            A hold keeps a person's messages (--user ID|LOGIN, and their profile), a dialog's (--dialog ID) or \
            what a query matches (--query Q, checked each time against what the archive holds then; its names are \
            pinned to the ids they stand for when it is placed, so renames move nothing it keeps). While it \
            is in force, `qbarchive erase` refuses any erasure that would touch it (exit 15, naming the hold) \
            and `qbarchive retain` skips what it keeps. Placing and releasing are recorded in the audit log; \
            released holds stay listed.

            Examples:
              qbarchive hold add --archive chat.sqlite --user 100042 --reason "litigation 2026-CV-118"
              qbarchive hold add --archive chat.sqlite --query 'in:"Payments" during:2026-03' --reason "audit Q1"
              qbarchive hold list --archive chat.sqlite
              qbarchive hold release 3 --archive chat.sqlite --reason "case closed 2026-11-20"
            """,
        subcommands: [HoldAddCommand.self, HoldListCommand.self, HoldReleaseCommand.self]
    )
}

struct HoldAddCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Place a legal hold.")

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL; QB_ARCHIVE when not given.") var archive:
        String = ""
    @Option(
        help: ArgumentHelp(
            "A person, by numeric id or login; id:N or login:TEXT when digits could be either.",
            valueName: "ID|LOGIN")) var user: String?
    @Option(help: ArgumentHelp("A dialog, by id.", valueName: "ID")) var dialog: String?
    @Option(help: ArgumentHelp("A query in the moderation language.", valueName: "QUERY")) var query: String?
    @Option(help: "Why (a case reference): required.") var reason: String
    @Flag(help: "Print the hold as JSON.") var json = false

    mutating func validate() throws {
        try resolveArchive()
        guard [user, dialog, query].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --user, --dialog or --query")
        }
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--reason must say why (a case reference)")
        }
    }

    func run() async throws {
        let store = try await ArchiveLocation.writer(archive)
        let placed = ArchiveTime.now()  // a query's relative dates are read from this moment while the hold stands
        let kind: LegalHold.Kind
        let target: String
        // What the hold keeps, counted before it is recorded: a hold is never recorded that could not be counted.
        let kept: Int
        if let user {
            // An id must be one the archive knows (as a user or a sender), as a login must.
            guard let id = try await UserReference(text: user).resolve(in: store).map(String.init),
                let ids = try? await HoldCheck.ids(matching: "sender_id = \(id)", in: store, now: placed)
            else {
                throw CommandFailure(
                    "--user \(user): the archive holds no user with this id or login", code: ExitCode(14))
            }
            (kind, target, kept) = (.user, id, ids.count)
        } else if let dialog {
            guard try await store.dialogSummary(id: dialog) != nil else {
                throw CommandFailure("--dialog \(dialog): the archive holds no dialog with this id", code: ExitCode(14))
            }
            let ids = try await HoldCheck.ids(matching: "dialog = \"\(dialog)\"", in: store, now: placed)
            (kind, target, kept) = (.dialog, dialog, ids.count)
        } else {
            let text = query ?? ""
            let pinned: (text: String, kept: Set<String>)
            do {
                pinned = try await HoldCheck.pinned(text, in: store, now: placed)
            } catch let error as QueryError {
                throw QueryInput.failure(error, query: text)
            }
            if pinned.text != text, !json {
                print("names pinned to the ids they stand for now: \(text) → \(pinned.text)")
            }
            (kind, target, kept) = (.query, pinned.text, pinned.kept.count)
        }
        let hold = try await store.addHold(kind: kind, target: target, reason: reason, at: placed)
        if json {
            print(HoldListCommand.json(hold, kept: kept).jsonString)
        } else {
            print("hold #\(hold.id) placed on \(kind.rawValue) \(target): it keeps \(kept) archived messages now")
        }
    }
}

struct HoldListCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List legal holds.")

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL; QB_ARCHIVE when not given.") var archive:
        String = ""

    mutating func validate() throws {
        try resolveArchive()
    }
    @Flag(help: "Also list released holds.") var all = false
    @Flag(help: "Print JSON.") var json = false

    static func json(_ hold: LegalHold, kept: Int?, problem: String? = nil) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .int(Int(hold.id)), "kind": .string(hold.kind.rawValue), "target": .string(hold.target),
            "reason": .string(hold.reason), "created_at": .string(ISO8601.format(hold.createdAt)),
            "released_at": hold.releasedAt.map { .string(ISO8601.format($0)) } ?? .null,
            "release_reason": hold.releaseReason.map(JSONValue.string) ?? .null,
            "messages_kept": kept.map(JSONValue.int) ?? .null,
        ]
        if let problem { object["problem"] = .string(problem) }
        return .object(object)
    }

    func run() async throws {
        let store = try await ArchiveLocation.reader(archive)
        var lines: [JSONValue] = []
        var text = ""
        var unresolvable = false
        for hold in try await store.holds() where all || hold.isActive {
            var kept: Int?
            var problem: String?
            if hold.isActive {
                do {
                    kept = try await HoldCheck.ids(kept: hold, in: store).count
                } catch let error as QueryError {
                    problem = error.message
                    unresolvable = true
                }
            }
            lines.append(Self.json(hold, kept: kept, problem: problem))
            text +=
                "#\(hold.id) \(hold.kind.rawValue) \(hold.target) since \(ISO8601.format(hold.createdAt)): \(hold.reason)"
            if let problem {
                text += " — CANNOT SAY WHAT IT KEEPS: \(problem) (erase refuses everything while it stands)\n"
            } else {
                text +=
                    kept.map { " — keeps \($0) messages\n" }
                    ?? " — released \(ISO8601.format(hold.releasedAt ?? 0)): \(hold.releaseReason ?? "")\n"
            }
        }
        if json {
            print(JSONValue.array(lines).jsonString)
        } else {
            print(text.isEmpty ? "no legal hold is in force" : text, terminator: text.isEmpty ? "\n" : "")
        }
        if unresolvable { throw ExitCode(15) }
    }
}

struct HoldReleaseCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(commandName: "release", abstract: "Release a legal hold.")

    @Argument(help: "The hold's number (from hold list).") var id: Int64
    @Option(help: "The archive: a SQLite file, or a postgresql:// URL; QB_ARCHIVE when not given.") var archive:
        String = ""

    mutating func validate() throws {
        try resolveArchive()
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--reason must say why the hold ends (a case reference)")
        }
    }
    @Option(help: "Why it ends: required.") var reason: String

    func run() async throws {
        let store = try await ArchiveLocation.writer(archive)
        guard let hold = try await store.releaseHold(id: id, reason: reason, at: ArchiveTime.now()) else {
            throw CommandFailure("no legal hold #\(id) is in force (qbarchive hold list --all)", code: ExitCode(14))
        }
        print("hold #\(hold.id) on \(hold.kind.rawValue) \(hold.target) released")
    }
}
