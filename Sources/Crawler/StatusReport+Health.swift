import Archive
import QuickBlox

extension StatusReport {
    /// Whether scheduled crawls are doing their job: what `status --check` answers, for cron, systemd timers
    /// and Nagios-style monitors, in one line and an exit code.
    public struct Health: Sendable, Hashable {
        public enum Verdict: String, Sendable, Hashable {
            /// The last finished run succeeded, recently enough.
            case ok
            /// No run has completed yet (none ran, or the first is still going).
            case neverSucceeded = "never_succeeded"
            /// The last finished run did not succeed: failed, partial, interrupted, or its process died.
            case lastRunFailed = "last_run_failed"
            /// The last run succeeded, longer ago than `--max-age`.
            case stale
        }

        public var verdict: Verdict
        /// One line saying why.
        public var reason: String

        /// `status --check`'s exit code: 0 ok, 30 never succeeded, 31 last run failed, 32 stale.
        public var exitCode: Int32 {
            switch verdict {
            case .ok: 0
            case .neverSucceeded: 30
            case .lastRunFailed: 31
            case .stale: 32
            }
        }
    }

    /// A run as it stands: a run still marked `running` while no crawl holds the archive's lock belongs to a
    /// process that died, and is shown as interrupted.
    public func standing(of run: RunRecord) -> (status: RunStatus, died: Bool) {
        guard run.status == .running else { return (run.status, false) }
        let isCurrent = crawlerPID != nil && run.id == recentRuns.first?.id
        return isCurrent ? (.running, false) : (.interrupted, true)
    }

    /// The health of the archive's crawls; `maxAge` (seconds) is how old the last successful run may be.
    public func health(maxAge: Int?) -> Health {
        // A targeted run (`--where`, `--dialog`) read part of what a backup reads: it is no backup.
        let whole = recentRuns.filter(\.isWhole)
        let finished = whole.filter { standing(of: $0).status != .running }
        let running = crawlerPID.map { " (a crawl is running now, pid \($0))" } ?? ""
        guard let last = finished.first else {
            let why =
                whole.isEmpty
                ? (recentRuns.isEmpty
                    ? "no crawl has run on this archive yet"
                    : "no full crawl has run on this archive yet (a run with --where or --dialog is no backup)")
                : "the first crawl has not finished"
            return Health(verdict: .neverSucceeded, reason: why + running)
        }
        let lastSuccess = finished.first { $0.status == .complete }
        let successText =
            lastSuccess.map { "the last successful run ended \(Self.duration(now - ($0.endedAt ?? $0.startedAt))) ago" }
            ?? "no full run among the last \(whole.count) succeeded"
        let (status, died) = standing(of: last)
        guard status == .complete else {
            var what = died ? "its process died before it could finish" : "it ended \(status.rawValue)"
            if status == .partial, let error = last.error { what += " (\(error))" }
            if status == .partial, last.error == nil {
                what += " (some dialogs failed; `status --dialogs 20` lists them)"
            }
            if status != .partial, !died, let error = last.error { what += ": \(error)" }
            return Health(
                verdict: .lastRunFailed,
                reason:
                    "the last run (#\(last.id), started \(Self.duration(now - last.startedAt)) ago) did not succeed: "
                    + "\(what); \(successText)\(running)")
        }
        let age = now - (last.endedAt ?? last.startedAt)
        if let maxAge, age > maxAge {
            return Health(
                verdict: .stale,
                reason: "the last run (#\(last.id)) succeeded, but it ended \(Self.duration(age)) ago, more than "
                    + "--max-age \(Self.duration(maxAge))\(running)")
        }
        return Health(
            verdict: .ok,
            reason: "the last run (#\(last.id)) succeeded \(Self.duration(age)) ago: \(last.counts.dialogs) dialogs, "
                + "\(last.counts.newMessages) new messages\(running)")
    }

    /// The dialogs that have gone longest without a successful crawl (never first), at most `limit`.
    public func laggards(limit: Int) -> [CrawlState] {
        let sorted = states.sorted {
            ($0.lastSuccessAt ?? Int.min, $0.dialogID) < ($1.lastSuccessAt ?? Int.min, $1.dialogID)
        }
        return Array(sorted.prefix(limit))
    }

    /// The `--dialogs` lines: one per lagging dialog.
    public func laggardLines(limit: Int) -> String {
        var lines = ["dialogs longest without a successful crawl (oldest first):"]
        let list = laggards(limit: limit)
        if list.isEmpty { lines.append("  none: no dialog has been crawled yet") }
        for state in list {
            var line = "  \(state.dialogID): "
            line +=
                state.lastSuccessAt.map { "last success \(Self.duration(now - $0)) ago" }
                ?? "no successful crawl recorded"
            if let error = state.lastError { line += " — last error: \(error)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
