import ArgumentParser
import Crawler
import Foundation

/// A command that takes an archive: `--archive`, or else `QB_ARCHIVE` from the environment (a crawl also reads it
/// from its `--config` file), so that scheduled jobs and a shell session name the archive once.
protocol ArchiveTaking {
    var archive: String { get set }
}

extension ArchiveTaking {
    /// Fills an `--archive` left out from `QB_ARCHIVE` (the environment first, then `configFile`'s lines); a
    /// usage error (exit 2) when neither names one. Called by the command's `validate()`.
    mutating func resolveArchive(
        configFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        guard archive.isEmpty else { return }
        if let value = environment["QB_ARCHIVE"], !value.isEmpty {
            archive = value
        } else if let configFile {
            do {
                archive = try CrawlSettings.read(configFile)["QB_ARCHIVE"] ?? ""
            } catch {
                throw ValidationError(error.localizedDescription)
            }
        }
        guard !archive.isEmpty else {
            throw ValidationError(
                "Missing expected argument '--archive <archive>': the archive (a SQLite file or a postgresql:// URL), "
                    + "or QB_ARCHIVE in the environment")
        }
    }
}
