import Archive
import ArchiveSQLite
import Crawler
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator

/// An archive crawled from the emulator over real HTTP, then changed (edits, deletions) and crawled
/// again with a reconcile: messages, revisions, tombstones and membership for exports to carry.
package struct ExportFixture: Sendable {
    package let directory: URL
    package let archive: any ArchiveWriter

    /// The archive as SQLite, for tests of what only SQLite has (made with ``TestBackend/sqlite``).
    package var sqlite: SQLiteArchive {
        guard let archive = archive as? SQLiteArchive else { preconditionFailure("not a SQLite archive") }
        return archive
    }

    /// A file name inside the fixture's directory.
    package func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    package func remove() { try? FileManager.default.removeItem(at: directory) }

    package static func make(
        messages: Int = 1200, dialogs: Int = 10, changes: Int = 150, backend: TestBackend = .sqlite
    ) async throws -> ExportFixture {
        var configuration = EmulatorConfiguration()
        configuration.seed = 23
        configuration.users = 6
        configuration.dialogs = dialogs
        configuration.messages = messages
        configuration.apiKey = "k"
        let emulator = try Emulator(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let archive = try await backend.create(directory.path, ArchiveTime.now())
        var logger = Logger(label: "export-test")
        logger.logLevel = .critical
        let quiet = logger
        try await emulator.buildApplication(logger: quiet).test(.live) { hooks in
            func crawl(reconcile: Bool) async throws {
                var client = ClientConfiguration(endpoint: "http://localhost:\(hooks.port!)", credentials: .apiKey("k"))
                client.maxRequestsPerSecond = 0
                var options = CrawlOptions()
                options.scope = .app
                options.reconcile = reconcile
                _ = try await Crawl(
                    client: QuickBloxClient(configuration: client, logger: quiet), archive: archive, options: options,
                    logger: quiet
                ).run()
            }
            try await crawl(reconcile: false)
            await emulator.applyLiveChanges(changes)
            try await crawl(reconcile: true)
        }
        return ExportFixture(directory: directory, archive: archive)
    }

    /// Runs a command-line tool; returns its exit status and standard output.
    package static func tool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A strict RFC 4180 reader for the tests: quoted fields, doubled quotes, line breaks inside quotes;
/// anything else (a quote inside an unquoted field, text after a closing quote) is an error.
package enum StrictCSV {
    package struct Malformed: Error {}

    package static func parse(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var fieldStarted = false
        var afterQuote = false
        var iterator = Array(text.unicodeScalars).makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return iterator.next()
        }
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let following = next() {
                        if following == "\"" {
                            field.unicodeScalars.append("\"")
                        } else {
                            quoted = false
                            afterQuote = true
                            pending = following
                        }
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard !fieldStarted else { throw Malformed() }
                quoted = true
                fieldStarted = true
            case ",":
                record.append(field)
                field = ""
                fieldStarted = false
                afterQuote = false
            case "\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
                fieldStarted = false
                afterQuote = false
            default:
                guard !afterQuote else { throw Malformed() }
                field.unicodeScalars.append(c)
                fieldStarted = true
            }
        }
        guard !quoted else { throw Malformed() }
        if fieldStarted || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        return records
    }
}
