/// How a crawl run ended, as stored in `runs.status`.
public enum RunStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Begun and not finished: still going, or the process died (a later run can tell by the pid lock).
    case running
    /// Every dialog crawled (exit 0).
    case complete
    /// Some dialogs failed after retries; the rest were archived (exit 3).
    case partial
    /// The run stopped on an error (exit 1, 12, ...).
    case failed
    /// SIGINT or SIGTERM: the current page was finished and the run recorded (exit 130).
    case interrupted
}
