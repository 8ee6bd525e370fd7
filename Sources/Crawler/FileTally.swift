import Archive

/// What a run's file fetching did.
public struct FileTally: Sendable, Hashable, Codable {
    /// Files downloaded and stored this run, and their bytes.
    public var downloaded = 0
    public var bytes = 0
    public var failed = 0
    public var tooLarge = 0
    public var external = 0
    public var gone = 0
    /// Files that failed this run, by attachment key, and why (the first 50).
    public var failures: [String: String] = [:]

    public init() {}

    mutating func add(_ outcome: FileFetcher.Result) {
        switch outcome.outcome {
        case .stored(_, let size, _, _):
            downloaded += 1
            bytes += size
        case .failed(let reason, _):
            failed += 1
            if failures.count < 50 { failures[outcome.key] = reason }
        case .tooLarge: tooLarge += 1
        case .external: external += 1
        case .gone: gone += 1
        case nil: break
        }
    }
}
