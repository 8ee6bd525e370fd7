import Dispatch
import Foundation
import Hummingbird
import Logging
import QuickBlox
import ServiceLifecycle

/// A running QuickBlox emulator: its data, its fault injector, and the HTTP application serving them.
public struct Emulator: Sendable {
    public let configuration: EmulatorConfiguration
    let store: EmulatorStore
    let faults: FaultInjector
    let downloads = DownloadStatistics()

    /// Generates the seeded data (or loads `--fixture`) and prepares the server.
    public init(configuration: EmulatorConfiguration) throws {
        try Self.validate(configuration)
        self.configuration = configuration
        let state: EmulatorState
        if let fixture = configuration.fixturePath {
            state = try TruthDump.load(path: fixture)
        } else {
            var generator = DataGenerator(configuration: configuration)
            state = generator.generate()
        }
        store = EmulatorStore(configuration: configuration, state: state)
        faults = FaultInjector(configuration: configuration)
    }

    static func validate(_ configuration: EmulatorConfiguration) throws {
        func check(_ condition: Bool, _ message: String) throws {
            if !condition { throw EmulatorSetupError.invalidConfiguration(message) }
        }
        try check(configuration.users >= 2, "--users must be at least 2 (got \(configuration.users))")
        try check(configuration.dialogs >= 0, "--dialogs must not be negative")
        try check(configuration.messages >= 0, "--messages must not be negative")
        try check(configuration.maxLimit >= 1, "--max-limit must be at least 1")
        try check(configuration.tokenTTL > 0, "--token-ttl must be positive")
        try check((0...65535).contains(configuration.port), "--port must be 0...65535")
        for (name, rate) in [
            ("--fail-rate", configuration.failRate), ("--reset-rate", configuration.resetRate),
            ("--truncate-rate", configuration.truncateRate), ("--bad-length-rate", configuration.badLengthRate),
            ("--page-fault-rate", configuration.pageFaultRate),
            ("--large-file-rate", configuration.largeFileRate), ("--public-blob-rate", configuration.publicBlobRate),
        ] {
            try check((0...1).contains(rate), "\(name) is a probability from 0 to 1 (got \(rate))")
        }
        try check(
            configuration.pageFaultRate == 0 || !configuration.pageFaultKinds.isEmpty,
            "--page-faults needs at least one of \(PageFault.allCases.map(\.rawValue).joined(separator: ", "))")
        try check(configuration.liveRate >= 0, "--live must not be negative")
        try check(configuration.storageURLTTL >= 0, "--storage-url-ttl must not be negative")
        try check(configuration.rateLimit >= 0, "--rate-limit must not be negative")
        try check(
            configuration.latencyMilliseconds >= 0 && configuration.jitterMilliseconds >= 0,
            "latency must not be negative")
    }

    /// The Hummingbird application; tests run it in-process with `app.test(.live)`.
    public func buildApplication(
        logger: Logger = Logger(label: "qbarchive.emulator"),
        onServerRunning: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: EmulatorContext.self)
        router.add(middleware: JSONErrorMiddleware())
        registerAdmin(on: router)
        let quickblox = router.group().add(middleware: FaultMiddleware(faults: faults))
        let routes = EmulatorRoutes(store: store, configuration: configuration, faults: faults)
        routes.register(on: quickblox)
        ContentRoutes(routes: routes, signer: StorageSigner(configuration: configuration), statistics: downloads)
            .register(on: quickblox)
        var services: [any Service] = []
        if configuration.liveRate > 0 { services.append(LiveChanges(store: store, rate: configuration.liveRate)) }
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: services,
            onServerRunning: { channel in
                await onServerRunning(configuration.host, channel.localAddress?.port ?? configuration.port)
            },
            logger: logger)
    }

    /// Applies `count` live changes at once (the `--live` generator, without waiting for the clock).
    @discardableResult
    public func applyLiveChanges(_ count: Int) async -> [String] {
        var kinds: [String] = []
        for _ in 0..<count {
            if let kind = await store.applyLiveChange(now: Int(Date().timeIntervalSince1970)) { kinds.append(kind) }
        }
        return kinds
    }

    /// Writes the truth dump to `path` (atomically).
    public func writeTruth(to path: String) async throws {
        try TruthDump.write(
            await store.snapshot(), seed: configuration.seed, digests: configuration.blobDigests, to: path)
    }

    /// The truth dump as text (for tests and small data sets).
    public func truthLines() async -> [String] {
        TruthDump.lines(of: await store.snapshot(), seed: configuration.seed, digests: configuration.blobDigests).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Serves until SIGTERM or SIGINT. Writes the truth dump on start, on SIGUSR1 and on exit, and
    /// calls `announce` with `listening on http://HOST:PORT` once the port is bound.
    public func run(logger: Logger, announce: @escaping @Sendable (String) -> Void) async throws {
        if let path = configuration.truthDumpPath { try await writeTruth(to: path) }
        signal(SIGUSR1, SIG_IGN)
        let dumpSignal = DispatchSource.makeSignalSource(signal: SIGUSR1)
        dumpSignal.setEventHandler {
            guard let path = configuration.truthDumpPath else { return }
            Task {
                do { try await writeTruth(to: path) } catch {
                    logger.error("truth dump failed: \(error.localizedDescription)")
                }
            }
        }
        dumpSignal.resume()
        defer { dumpSignal.cancel() }
        let app = buildApplication(logger: logger) { host, port in
            announce("listening on http://\(host):\(port)")
        }
        try await app.runService()
        if let path = configuration.truthDumpPath { try await writeTruth(to: path) }
    }
}

/// `--live RATE`: makes changes while the server runs, until graceful shutdown.
struct LiveChanges: Service {
    let store: EmulatorStore
    let rate: Double

    func run() async throws {
        let interval = Duration.nanoseconds(Int64(1e9 / rate))
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // Shutdown cancels the sleep: that is the end of the service, not an error (a thrown
                // CancellationError made the emulator exit 1 without writing its exit truth dump).
                do { try await Task.sleep(for: interval) } catch { return }
                await store.applyLiveChange(now: Int(Date().timeIntervalSince1970))
            }
        }
    }
}
