import Archive
import Foundation
import QuickBlox
import Synchronization

/// Shows the progress of a one-time archive upgrade (an index rebuilt for a new version) on standard error: on a
/// terminal one line kept up to date, elsewhere a line per tenth, so that a cron job's mail says what the long
/// run was.
final class UpgradeReporter: Sendable {
    private let terminal = isatty(STDERR_FILENO) == 1
    private let last = Mutex<(step: String, tenth: Int)>(("", -1))

    /// The observer to give a backend.
    var observer: UpgradeObserver {
        { [self] progress in report(progress) }
    }

    private func report(_ progress: UpgradeProgress) {
        let tenth = progress.total == 0 ? 10 : progress.done * 10 / progress.total
        let line =
            "upgrading the archive (once): \(progress.step) — \(NumberText.grouped(progress.done)) of "
            + "\(NumberText.grouped(progress.total)) messages (\(tenth * 10) %)"
        let show = last.withLock { last -> Bool in
            defer { last = (progress.step, tenth) }
            return terminal || last.step != progress.step || last.tenth != tenth
        }
        guard show else { return }
        let done = progress.done == progress.total
        let text = terminal ? "\r\(line)\u{1B}[K" + (done ? "\n" : "") : line + "\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
