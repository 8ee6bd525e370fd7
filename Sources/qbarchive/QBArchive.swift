import ArgumentParser
import Foundation
import TextIndex

/// `qbarchive`: archive, search and export the chat history of a QuickBlox application.
@main
struct QBArchive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qbarchive",
        abstract: "Archive, search and export the chat history of a QuickBlox application.",
        discussion: """
            Start with the built-in QuickBlox emulator, which serves seeded chat data over the real REST API:

              qbarchive emulator --port 8089 --api-key demo-key

            Then crawl it (qbarchive crawl --help), search it (qbarchive search --help), list the saved \
            moderation queries (qbarchive queries), summarise it (qbarchive stats --help), export it \
            (qbarchive export --help), check an export (qbarchive verify --help), and serve the moderator \
            web UI and JSON API (qbarchive serve --help; its audit log: qbarchive audit verify --help).

            For scheduled runs: qbarchive status --check (monitoring) and qbarchive backup (a live copy). \
            For compliance: qbarchive erase, qbarchive hold and qbarchive retain (docs/compliance.md).

            Exit codes: 0 success, 1 error, 2 usage error (bad flag, value or query).
            """,
        version: QBArchiveVersion.current,
        subcommands: [
            CrawlCommand.self, StatusCommand.self, SearchCommand.self, QueriesCommand.self, StatsCommand.self,
            ExportCommand.self, VerifyCommand.self, ImportCommand.self, KeygenCommand.self, ServeCommand.self,
            AuditCommand.self, VerifyStoreCommand.self, CheckCommand.self, BackupCommand.self, EraseCommand.self,
            HoldCommand.self, RetainCommand.self, MigrateCommand.self,
            EmulatorCommand.self,
        ]
    )

    /// Runs the command, mapping usage errors to exit code 2 (argument-parser's default is 64)
    /// so that every qbarchive command reports a bad flag the same way.
    static func main() async {
        if let bad = firstInvalidArgument() {
            FileHandle.standardError.write(
                Data("error: argument \(bad) is not valid UTF-8; qbarchive will not guess at its text\n".utf8))
            Foundation.exit(ExitCode.usage.rawValue)
        }
        if let mistyped = unknownSubcommand() {
            FileHandle.standardError.write(Data(mistyped.utf8))
            Foundation.exit(ExitCode.usage.rawValue)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("error: \(failure.message)\n".utf8))
            Foundation.exit(failure.code.rawValue)
        } catch {
            if exitCode(for: error) == .validationFailure {
                let message = fullMessage(for: error)
                FileHandle.standardError.write(Data((message + "\n").utf8))
                if let hint = dashedQueryHint(message: message) { FileHandle.standardError.write(Data(hint.utf8)) }
                Foundation.exit(ExitCode.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

extension QBArchive {
    /// The error for a first argument that is neither an option nor a command, naming the nearest command
    /// (`qbarchive crawll` → `did you mean crawl?`); `nil` when it is one.
    static func unknownSubcommand() -> String? {
        let arguments = CommandLine.arguments.dropFirst()
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        let nearest = names.min { EditDistance.between(first, $0) < EditDistance.between(first, $1) } ?? "help"
        let close = EditDistance.between(first, nearest) <= max(2, nearest.count / 3)
        return "error: `\(first)` is not a qbarchive command" + (close ? "; did you mean `\(nearest)`?" : ".")
            + " The commands: \(names.filter { $0 != "help" }.joined(separator: ", ")) (qbarchive help COMMAND).\n"
    }

    /// The position (1-based) of the first command-line argument whose bytes are not UTF-8.
    ///
    /// Swift decodes arguments with replacement characters, so `search $'caf\xe9'` would search for
    /// "caf\u{FFFD}" and report no results; a query that cannot be read is a usage error instead.
    static func firstInvalidArgument() -> Int? {
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
            if String(validating: bytes, as: UTF8.self) == nil { return index }
        }
        return nil
    }
}

extension ExitCode {
    /// A flag or value was wrong: the message says which.
    static let usage = ExitCode(2)
}

enum QBArchiveVersion {
    static let current = "0.1.0"
}
