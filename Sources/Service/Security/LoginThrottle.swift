/// Counts failed logins per client address and refuses further attempts once too many failed recently.
///
/// Tokens are long, so guessing is hopeless anyway; the throttle keeps a flood of attempts from filling the
/// audit log (every failed login is audited) and from costing the service anything. Bounded memory: old
/// failures are forgotten as they leave the window, and at most ``maximumAddresses`` addresses are tracked.
actor LoginThrottle {
    static let maximumAddresses = 10_000

    private let failures: Int
    private let window: Int
    private var recent: [String: [Int]] = [:]

    init(failures: Int, window: Int) {
        self.failures = failures
        self.window = window
    }

    /// Seconds until `address` may try again, or `nil` when it may try now.
    func wait(for address: String, now: Int) -> Int? {
        let times = (recent[address] ?? []).filter { $0 > now - window }
        recent[address] = times.isEmpty ? nil : times
        guard times.count >= failures, let oldest = times.first else { return nil }
        return max(1, oldest + window - now)
    }

    /// Records a failed attempt from `address`.
    func fail(_ address: String, now: Int) {
        if recent.count >= Self.maximumAddresses, recent[address] == nil {
            recent = recent.filter { $0.value.contains { $0 > now - window } }
            if recent.count >= Self.maximumAddresses { recent.removeAll() }
        }
        recent[address, default: []].append(now)
    }
}
