import ArgumentParser
import Foundation
import Logging
import QuickBloxEmulator

/// `qbarchive emulator`: serve a seeded, fault-injecting QuickBlox REST API.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Serve a QuickBlox-compatible REST API with seeded chat data.",
        discussion: """
            Prints `listening on http://HOST:PORT` once ready, then serves until SIGTERM or Ctrl-C.

            Seeded users are user1 ... userN (ids 100001 ...), each with password passwordN, so a user \
            session can be made:
              user[login]=user1  user[password]=password1

            With --api-key K, requests may instead send `Authorization: ApiKey K` and \
            `On-Behalf-Of: USER_ID`.

            Attachments are files of the Content API: GET /blobs/{id}.json describes one; GET \
            /blobs/{uid}/download (or /blobs/{uid}) redirects (302) to a signed storage URL on the emulator, \
            valid for --storage-url-ttl seconds, that serves bytes derived from the seed and the uid. Fault \
            flags apply to downloads too.

            Ground truth for tests: GET /_emulator/truth (JSON Lines), or --dump-truth FILE, written on \
            start, on SIGUSR1 and on exit. Its `blob` lines give each file's SHA-256.

            Examples:
              qbarchive emulator --port 0 --seed 7 --messages 1000000
              qbarchive emulator --api-key demo-key --fail-rate 0.05 --live 5
              qbarchive emulator --truncate-rate 0.1 --bad-length-rate 0.1 \\
                --large-file-rate 0.05 --storage-url-ttl 5
            """
    )

    @Option(help: "Address to bind.") var host = "127.0.0.1"
    @Option(help: "Port to bind; 0 picks a free port (printed on start).") var port = 8089
    @Option(help: "Seed for the data and for every injected fault.") var seed: UInt64 = 42
    @Option(help: "Number of users.") var users = 50
    @Option(help: "Number of dialogs.") var dialogs = 200
    @Option(help: "Number of messages in all (spread over dialogs with a long tail).") var messages = 20_000
    @Option(help: "Serve this truth dump (JSON Lines) instead of generated data.") var fixture: String?

    @Option(help: "Application id.") var appId = 1
    @Option(help: "Application auth key.") var authKey = "emulator-auth-key"
    @Option(help: "Application auth secret (signs session requests).") var authSecret = "emulator-auth-secret"
    @Option(help: "Enable `Authorization: ApiKey KEY` with this key.") var apiKey: String?
    @Option(help: "Largest page; larger `limit`s are clamped and the clamped value echoed.") var maxLimit = 100
    @Option(help: "Sliding session lifetime in seconds.") var tokenTtl: Double = 7200

    @Option(help: "Added latency per request, in milliseconds.") var latencyMs = 0
    @Option(help: "Up to this many more milliseconds, at random.") var jitterMs = 0
    @Option(help: "Probability (0-1) of answering 500, 502 or 503.") var failRate = 0.0
    @Option(help: "Requests per second before 429 Too Many Requests (0: no limit).") var rateLimit = 0
    @Option(help: "Probability (0-1) of dropping the connection without an answer.") var resetRate = 0.0
    @Option(help: "Probability (0-1) of cutting the body short mid-JSON or mid-file.") var truncateRate = 0.0
    @Option(help: "Probability (0-1) of a Content-Length larger than the whole body sent.") var badLengthRate = 0.0
    @Option(help: "Probability (0-1) of accepting a request, then staying silent for --stall-seconds.")
    var stallRate = 0.0
    @Option(help: "How long a stalled request stays silent before it is answered.") var stallSeconds = 60.0
    @Option(
        help: """
            Probability (0-1) that a page of messages is not what was asked for: reordered, padded with an \
            older repeat, cut short or one over the limit.
            """) var pageFaultRate = 0.0
    @Option(
        help: """
            The page faults --page-fault-rate draws from, comma-separated: reordered, padded, short, overlong \
            (default: all).
            """, transform: EmulatorCommand.pageFaults) var pageFaults: [PageFault] = PageFault.allCases
    @Option(help: "Fraction (0-1) of attachments that are 20-50 MB files.") var largeFileRate = 0.005
    @Option(help: "Fraction (0-1) of seeded attachments that download without a token.") var publicBlobRate = 0.1
    @Option(help: "Seconds a download's storage URL stays valid.") var storageUrlTtl: Double = 60
    @Option(help: "Changes per second while serving: new, edited, deleted messages, occupants.") var live = 0.0

    @Option(help: "Write the truth dump (JSON Lines) here on start, on SIGUSR1 and on exit.") var dumpTruth: String?
    @Flag(
        inversion: .prefixedNo,
        help: "Give each file's SHA-256 in truth dumps (about a second per GB of files to compute).")
    var blobDigests = true
    @Flag(help: "Log every request (to standard error).") var verbose = false

    var emulatorConfiguration: EmulatorConfiguration {
        var configuration = EmulatorConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.seed = seed
        configuration.users = users
        configuration.dialogs = dialogs
        configuration.messages = messages
        configuration.fixturePath = fixture
        configuration.applicationID = appId
        configuration.authKey = authKey
        configuration.authSecret = authSecret
        configuration.apiKey = apiKey
        configuration.maxLimit = maxLimit
        configuration.tokenTTL = tokenTtl
        configuration.latencyMilliseconds = latencyMs
        configuration.jitterMilliseconds = jitterMs
        configuration.failRate = failRate
        configuration.rateLimit = rateLimit
        configuration.resetRate = resetRate
        configuration.truncateRate = truncateRate
        configuration.badLengthRate = badLengthRate
        configuration.stallRate = stallRate
        configuration.stallSeconds = stallSeconds
        configuration.pageFaultRate = pageFaultRate
        configuration.pageFaultKinds = pageFaults
        configuration.largeFileRate = largeFileRate
        configuration.publicBlobRate = publicBlobRate
        configuration.storageURLTTL = storageUrlTtl
        configuration.liveRate = live
        configuration.truthDumpPath = dumpTruth
        configuration.blobDigests = blobDigests
        return configuration
    }

    func run() async throws {
        let emulator: Emulator
        do {
            emulator = try Emulator(configuration: emulatorConfiguration)
        } catch let error as EmulatorSetupError {
            if case .invalidConfiguration(let message) = error { throw ValidationError(message) }
            throw error
        }
        var logger = Logger(label: "qbarchive.emulator")
        logger.logLevel = verbose ? .debug : .warning
        try await emulator.run(logger: logger) { line in
            // Written straight to the descriptor so scripts reading a pipe see it at once.
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}

extension EmulatorCommand {
    /// `--page-faults`: names from ``PageFault``, comma-separated.
    static func pageFaults(_ text: String) throws -> [PageFault] {
        try text.split(separator: ",").map { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let fault = PageFault(rawValue: trimmed) else {
                throw ValidationError(
                    "--page-faults: unknown fault '\(trimmed)'; use "
                        + PageFault.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return fault
        }
    }
}
