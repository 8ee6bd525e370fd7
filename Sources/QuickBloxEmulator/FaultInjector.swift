import HTTPTypes
import Hummingbird
import QuickBlox

/// Decides, request by request, which fault to inject, and counts what the emulator served.
///
/// Decisions come from a generator seeded by `--seed`: the n-th request always meets the same
/// fault, so a failing crawl can be replayed.
actor FaultInjector {
    struct Decision: Sendable {
        var latencyMilliseconds = 0
        var rateLimited = false
        var failure: HTTPResponse.Status?
        var reset = false
        var truncate = false
        var badLength = false
        /// Stay silent for ``EmulatorConfiguration/stallSeconds`` before answering.
        var stall = false
    }

    let configuration: EmulatorConfiguration
    private var random: SeededRandom
    /// Draws the bad-length fault, apart from `random` so that the older faults keep the sequence
    /// they had before it existed.
    private var lengthRandom: SeededRandom
    /// Draws page faults, apart for the same reason.
    private var pageRandom: SeededRandom
    /// Draws stalls, apart for the same reason.
    private var stallRandom: SeededRandom
    private var tokens: Double
    private var lastRefill: ContinuousClock.Instant
    private(set) var requests: [String: Int] = [:]
    private(set) var faults: [String: Int] = [:]
    /// Requests being answered now (from ``decide(endpoint:)`` to ``finished()``), and the most there were at once:
    /// how many requests a client really keeps in flight, whatever it was told.
    private var inFlight = 0
    private(set) var mostInFlight = 0

    init(configuration: EmulatorConfiguration) {
        self.configuration = configuration
        random = SeededRandom(seed: configuration.seed, stream: 5)
        lengthRandom = SeededRandom(seed: configuration.seed, stream: 7)
        pageRandom = SeededRandom(seed: configuration.seed, stream: 9)
        stallRandom = SeededRandom(seed: configuration.seed, stream: 11)
        tokens = Double(configuration.rateLimit)
        lastRefill = .now
    }

    /// The fault for the next request to `endpoint` (a label such as `GET /chat/Message`).
    func decide(endpoint: String) -> Decision {
        requests[endpoint, default: 0] += 1
        inFlight += 1
        mostInFlight = max(mostInFlight, inFlight)
        var decision = Decision()
        // Draw every number every time so one flag does not shift the others' sequence.
        let jitter = Int.random(in: 0...max(0, configuration.jitterMilliseconds), using: &random)
        let failRoll = Double.random(in: 0..<1, using: &random)
        let failKind = Int.random(in: 0..<3, using: &random)
        let resetRoll = Double.random(in: 0..<1, using: &random)
        let truncateRoll = Double.random(in: 0..<1, using: &random)
        let badLengthRoll = Double.random(in: 0..<1, using: &lengthRandom)
        let stallRoll = Double.random(in: 0..<1, using: &stallRandom)
        decision.latencyMilliseconds = configuration.latencyMilliseconds + jitter
        if configuration.rateLimit > 0 {
            let now = ContinuousClock.now
            let elapsed = lastRefill.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(Double(configuration.rateLimit), tokens + seconds * Double(configuration.rateLimit))
            lastRefill = now
            if tokens >= 1 { tokens -= 1 } else { decision.rateLimited = true }
        }
        if decision.rateLimited {
            count("429")
        } else if failRoll < configuration.failRate {
            decision.failure = [HTTPResponse.Status.internalServerError, .badGateway, .serviceUnavailable][failKind]
            count(String(decision.failure!.code))
        } else if resetRoll < configuration.resetRate {
            decision.reset = true
            count("reset")
        } else if truncateRoll < configuration.truncateRate {
            decision.truncate = true
            count("truncate")
        } else if badLengthRoll < configuration.badLengthRate {
            decision.badLength = true
            count("bad_length")
        } else if stallRoll < configuration.stallRate {
            decision.stall = true
            count("stall")
        }
        return decision
    }

    /// The fault for the next page of message items, if any (`--page-fault-rate`).
    func pageFault() -> PageFault? {
        let roll = Double.random(in: 0..<1, using: &pageRandom)
        let kinds = configuration.pageFaultKinds
        let kind = Int.random(in: 0..<max(1, kinds.count), using: &pageRandom)
        guard roll < configuration.pageFaultRate, !kinds.isEmpty else { return nil }
        let fault = kinds[kind]
        count("page_" + fault.rawValue)
        return fault
    }

    private func count(_ fault: String) { faults[fault, default: 0] += 1 }

    /// A request ``decide(endpoint:)`` counted has been answered (or failed).
    func finished() { inFlight -= 1 }

    func statistics() -> (requests: [String: Int], faults: [String: Int], mostInFlight: Int) {
        (requests, faults, mostInFlight)
    }
}
