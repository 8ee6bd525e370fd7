import Foundation
import QuickBlox
import Synchronization

/// Shows a crawl's progress: a live line on a terminal, one JSON object per line for machines, or
/// nothing but the summary for scheduled runs.
public final class CrawlReporter: Sendable {
    public enum Mode: Sendable {
        /// A progress line redrawn in place (dialogs done/total, messages, rate, ETA).
        case terminal
        /// `{"event": ...}` per line: listing_part (a worker of a shared crawl), listed, dialog, dialog_parts (a
        /// long dialog walked in parts), dialog_reader (read as another occupant), dialog_failed,
        /// dialog_list_failed, tombstones, files, summary.
        case json
        /// Failures and the final summary only (output that is not a terminal: logs, systemd).
        case quiet
        /// `--quiet`: nothing at all when the run succeeds, so cron mails nothing; failures, and the summary
        /// of a run that did not succeed, on standard error.
        case silent
    }

    struct State {
        var started = ContinuousClock.now
        var dialogs = 0
        var done = 0
        var new = 0
        var edited = 0
        var failed = 0
    }

    public let mode: Mode
    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void
    private let writeError: @Sendable (String) -> Void

    /// - Parameters:
    ///   - write: where progress and the summary go (standard output).
    ///   - writeError: where failures go (standard error).
    public init(
        mode: Mode, write: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void
    ) {
        self.mode = mode
        self.write = write
        self.writeError = writeError
    }

    /// Receives one crawl event (called from concurrent tasks).
    public func handle(_ event: CrawlEvent) {
        let snapshot = state.withLock { state -> State in
            switch event {
            case .listed(_, let dialogs): state.dialogs = dialogs
            case .dialogFinished(_, let new, let edited, let done, _):
                state.done = done
                state.new += new
                state.edited += edited
            case .dialogFailed: state.failed += 1
            case .listingFailed: break
            case .tombstoned, .filesFetched, .listingPart, .dialogParts, .readerChanged: break
            }
            return state
        }
        switch mode {
        case .json:
            write(Self.json(event).jsonString + "\n")
        case .terminal:
            if case .dialogFailed(let id, let reason) = event { writeError("\r\u{1B}[K! dialog \(id): \(reason)\n") }
            if case .listingFailed(let user, let reason) = event {
                writeError("\r\u{1B}[K! dialog list of user \(user): \(reason)\n")
            }
            write("\r\u{1B}[K" + Self.progressLine(snapshot))
        case .quiet, .silent:
            if case .dialogFailed(let id, let reason) = event { writeError("dialog \(id) failed: \(reason)\n") }
            if case .listingFailed(let user, let reason) = event {
                writeError("dialog list of user \(user) failed: \(reason)\n")
            }
        }
    }

    /// Prints the final summary: a line, or a `summary` JSON event.
    public func finish(_ summary: CrawlSummary) {
        switch mode {
        case .json:
            var object = (try? JSONValue(parsing: JSONEncoder().encode(summary)))?.objectValue ?? [:]
            object["event"] = "summary"
            write(JSONValue.object(object).jsonString + "\n")
        case .terminal:
            write("\r\u{1B}[K" + summary.line + "\n")
        case .quiet:
            write(summary.line + "\n")
        case .silent:
            if summary.exitCode != 0 { writeError(summary.line + "\n") }
        }
    }

    static func progressLine(_ state: State) -> String {
        let elapsed = state.started.duration(to: .now)
        let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let rate = Double(state.new) / seconds
        var line = "dialogs \(state.done)/\(state.dialogs) · \(state.new) new, \(state.edited) edited"
        line += String(format: " · %.0f msg/s", rate)
        if state.failed > 0 { line += " · \(state.failed) failed" }
        if state.done > 0, state.dialogs > state.done {
            let remaining = seconds / Double(state.done) * Double(state.dialogs - state.done)
            line += String(format: " · ETA %.0f s", remaining)
        }
        return line
    }

    static func json(_ event: CrawlEvent) -> JSONValue {
        switch event {
        case .listed(let users, let dialogs):
            ["event": "listed", "users": .int(users), "dialogs": .int(dialogs)]
        case .dialogFinished(let id, let new, let edited, let done, let total):
            [
                "event": "dialog", "id": .string(id), "new": .int(new), "edited": .int(edited), "done": .int(done),
                "total": .int(total),
            ]
        case .listingPart(let part, let users):
            ["event": "listing_part", "part": .int(part), "users": .int(users)]
        case .dialogFailed(let id, let reason):
            ["event": "dialog_failed", "id": .string(id), "reason": .string(reason)]
        case .dialogParts(let id, let parts, let from):
            ["event": "dialog_parts", "id": .string(id), "parts": .int(parts), "from": .int(from)]
        case .readerChanged(let id, let from, let to, let reason):
            [
                "event": "dialog_reader", "id": .string(id), "from": from.map(JSONValue.int) ?? .null, "to": .int(to),
                "reason": .string(reason),
            ]
        case .listingFailed(let user, let reason):
            ["event": "dialog_list_failed", "user": .int(user), "reason": .string(reason)]
        case .tombstoned(let messages, let dialogs):
            ["event": "tombstones", "messages": .int(messages), "dialogs": .int(dialogs)]
        case .filesFetched(let tally):
            [
                "event": "files", "downloaded": .int(tally.downloaded), "bytes": .int(tally.bytes),
                "failed": .int(tally.failed), "too_large": .int(tally.tooLarge), "external": .int(tally.external),
                "gone": .int(tally.gone),
            ]
        }
    }
}
