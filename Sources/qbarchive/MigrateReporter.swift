import ArchiveMigration
import Foundation
import QuickBlox
import Synchronization

/// What `qbarchive migrate` shows: progress lines on standard error (at most one a second per part, and each
/// part's end), or JSON Lines events on standard output with `--json`; then the figures of the verification.
final class MigrateReporter: Sendable {
    private let json: Bool
    private let output: StandardStreams
    private let last = Mutex<(part: String, at: Date)>(("", .distantPast))

    init(json: Bool, output: StandardStreams) {
        self.json = json
        self.output = output
    }

    func event(_ event: MigrationEvent) {
        if json {
            output.out(
                JSONValue.object([
                    "event": .string(event.step.rawValue), "part": .string(event.part), "done": .int(event.done),
                    "total": .int(event.total),
                ]).jsonString + "\n")
            return
        }
        let now = Date()
        let show = last.withLock { last -> Bool in
            let ends = event.done >= event.total
            guard ends || last.part != event.part || now.timeIntervalSince(last.at) >= 1 else { return false }
            last = (event.part, now)
            return true
        }
        guard show else { return }
        switch event.step {
        case .copying: output.error("migrate: \(event.part) \(event.done)/\(event.total)\n")
        case .skipped: output.error("migrate: \(event.part) already complete (\(event.total))\n")
        case .verifying: output.error("migrate: verifying \(event.part)\n")
        }
    }

    /// The verification's figures, one line per part (also when they differ).
    func figures(_ figures: [MigrationFigure]) {
        if json {
            for figure in figures {
                output.out(
                    JSONValue.object([
                        "event": .string("figure"), "part": .string(figure.part),
                        "source_count": .int(figure.sourceCount), "destination_count": .int(figure.destinationCount),
                        "source_sha256": .string(figure.sourceHash),
                        "destination_sha256": .string(figure.destinationHash), "matches": .bool(figure.matches),
                    ]).jsonString + "\n")
            }
            return
        }
        let width = figures.map(\.part.count).max() ?? 0
        for figure in figures {
            let part = figure.part.padding(toLength: width, withPad: " ", startingAt: 0)
            let counts =
                figure.sourceCount == figure.destinationCount
                ? "\(figure.sourceCount)" : "\(figure.sourceCount) -> \(figure.destinationCount)"
            let hash =
                figure.sourceHash == figure.destinationHash
                ? figure.sourceHash : "\(figure.sourceHash) -> \(figure.destinationHash)"
            output.out("\(part)  \(counts)  sha256 \(hash)\(figure.matches ? "" : "  DIFFERS")\n")
        }
    }

    func finish(_ report: Migration.Report, from: String, to: String, seconds: TimeInterval) {
        figures(report.figures)
        if json {
            output.out(
                JSONValue.object([
                    "event": .string("done"), "from": .string(from), "to": .string(to),
                    "adopted_identity": .bool(report.adopted), "written": .int(report.written),
                    "files_copied": .int(report.filesCopied), "verified": .bool(true),
                ]).jsonString + "\n")
        } else {
            output.out(
                "migrated \(from) to \(to): \(report.written) records and rows written, \(report.filesCopied) files "
                    + "copied, \(String(format: "%.1f", seconds)) s; counts and hashes agree\n")
        }
    }
}
