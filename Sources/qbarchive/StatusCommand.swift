import Archive
import ArgumentParser
import Crawler
import Foundation
import QuickBlox

/// `qbarchive status`: what an archive holds and how its scheduled crawls are doing.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show an archive's totals, last runs and per-dialog crawl lag.",
        discussion:
            "Opens the archive read-only, so it is safe while a crawl runs. Exit 10 when the archive is missing or unreadable."
    )

    @Option(help: "The archive file.") var archive: String
    @Option(help: "How many recent runs to list.") var runs = 10
    @Flag(help: "Print JSON for scripts and monitoring.") var json = false

    func run() async throws {
        let store = try ArchiveLocation.reader(archive)
        let report = try await StatusReport.read(store, runs: runs)
        print(json ? report.json.jsonString : report.text, terminator: json ? "\n" : "")
    }
}
