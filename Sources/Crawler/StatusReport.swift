import Archive
import Foundation
import QuickBlox

/// What `qbarchive status` shows: totals, the last runs, and how far behind each dialog is.
public struct StatusReport: Sendable {
    public var counts: ArchiveCounts
    /// The runs to list, newest first.
    public var runs: [RunRecord]
    /// More of the latest runs (at least ``runs``), for ``health(maxAge:)``.
    public var recentRuns: [RunRecord]
    public var states: [CrawlState]
    /// Attachment files by status, and what the file store holds.
    public var files: FileCounts
    public var now: Int
    /// The pid of the crawl running on the archive now (``ArchiveLock/liveHolder(archivePath:)``), if any.
    public var crawlerPID: Int32?

    /// Reads the report from an archive (read-only); `crawlerPID` is the crawl holding its lock, if any.
    public static func read(
        _ archive: any ArchiveReader, runs limit: Int = 10, crawlerPID: Int32? = nil, now: Int = ArchiveTime.now()
    ) async throws -> StatusReport {
        let recent = try await archive.runs(limit: max(limit, 200))
        return StatusReport(
            counts: try await archive.counts(), runs: Array(recent.prefix(limit)), recentRuns: recent,
            states: try await archive.crawlStates(), files: try await archive.fileCounts(), now: now,
            crawlerPID: crawlerPID)
    }

    /// Seconds since the newest archived message of the dialog that is furthest behind.
    public var lag: Int? {
        states.compactMap(\.cursor.dateSent).min().map { now - $0 }
    }

    /// The human-readable report.
    public var text: String {
        var lines: [String] = []
        lines.append(
            "archive: \(counts.users) users, \(counts.dialogs) dialogs (\(counts.deletedDialogs) deleted), "
                + "\(counts.messages) messages (\(counts.deletedMessages) deleted, \(counts.revisions) earlier versions)"
        )
        lines.append(filesLine)
        if let last = runs.first {
            let age = now - (last.endedAt ?? last.startedAt)
            lines.append(
                "last run: \(label(last)), \(Self.duration(age)) ago (\(ISO8601.format(last.startedAt)))")
        } else {
            lines.append("last run: none yet")
        }
        lines.append("")
        lines.append("runs (newest first):")
        for run in runs {
            var line =
                "  #\(run.id) \(ISO8601.format(run.startedAt)) \(label(run)): \(run.counts.dialogs) dialogs, "
            line +=
                "\(run.counts.newMessages) new, \(run.counts.editedMessages) edited, \(run.counts.deletedMessages) deleted; "
            line += "\(run.counts.requests) requests (\(run.counts.retries) retries)"
            if let error = run.error { line += " — \(error)" }
            lines.append(line)
        }
        lines.append("")
        lines.append(
            "dialogs: \(states.count) with a crawl cursor"
                + (lag.map { "; oldest newest-message \(Self.duration($0)) ago" } ?? ""))
        for state in states.filter({ $0.lastError != nil }).prefix(20) {
            lines.append("  ! \(state.dialogID): \(state.lastError ?? "")")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A run's status as it stands (a dead process's run reads `interrupted (process died)`).
    func label(_ run: RunRecord) -> String {
        let (status, died) = standing(of: run)
        return died ? "interrupted (its process died)" : status.rawValue
    }

    /// `files: 120 referenced — 100 stored (85.2 MB in 98 files), 12 listed, 3 failed, …`
    var filesLine: String {
        var line = "files: \(files.total) referenced"
        guard files.total > 0 else { return line }
        line += " — \(files.byStatus[.ok] ?? 0) stored"
        line += String(format: " (%.1f MB in %d files)", Double(files.storedBytes) / 1_000_000, files.storedFiles)
        let labels: [(FileStatus, String)] = [
            (.listed, "listed, not downloaded"), (.failed, "failed"), (.tooLarge, "too large"),
            (.external, "external"), (.gone, "gone"),
        ]
        for (status, label) in labels {
            if let count = files.byStatus[status], count > 0 { line += ", \(count) \(label)" }
        }
        return line
    }

    /// The report as JSON for scripts and monitoring, with ``health(maxAge:)`` as `health`.
    public func json(maxAge: Int? = nil) -> JSONValue {
        let health = health(maxAge: maxAge)
        let runsJSON: [JSONValue] = runs.map { run in
            [
                "id": .int(Int(run.id)), "started_at": .int(run.startedAt),
                "ended_at": run.endedAt.map(JSONValue.int) ?? .null,
                "status": .string(standing(of: run).status.rawValue), "process_died": .bool(standing(of: run).died),
                "dialogs": .int(run.counts.dialogs),
                "new": .int(run.counts.newMessages), "edited": .int(run.counts.editedMessages),
                "deleted": .int(run.counts.deletedMessages), "requests": .int(run.counts.requests),
                "retries": .int(run.counts.retries), "bytes": .int(run.counts.bytes),
                "error": run.error.map(JSONValue.string) ?? .null,
            ]
        }
        let dialogsJSON: [JSONValue] = states.map { state in
            [
                "id": .string(state.dialogID), "watermark": state.cursor.dateSent.map(JSONValue.int) ?? .null,
                "last_success_at": state.lastSuccessAt.map(JSONValue.int) ?? .null,
                "last_error": state.lastError.map(JSONValue.string) ?? .null,
            ]
        }
        return [
            "users": .int(counts.users), "dialogs": .int(counts.dialogs),
            "deleted_dialogs": .int(counts.deletedDialogs),
            "messages": .int(counts.messages), "deleted_messages": .int(counts.deletedMessages),
            "revisions": .int(counts.revisions), "lag_seconds": lag.map(JSONValue.int) ?? .null,
            "runs": .array(runsJSON), "dialog_cursors": .array(dialogsJSON),
            "crawl_running_pid": crawlerPID.map { .int(Int($0)) } ?? .null,
            "health": .object([
                "verdict": .string(health.verdict.rawValue), "exit_code": .int(Int(health.exitCode)),
                "reason": .string(health.reason), "max_age_seconds": maxAge.map(JSONValue.int) ?? .null,
            ]),
            "files": .object(
                Dictionary(
                    uniqueKeysWithValues: FileStatus.allCases.map { ($0.rawValue, .int(files.byStatus[$0] ?? 0)) }
                )
                .merging(["stored_files": .int(files.storedFiles), "stored_bytes": .int(files.storedBytes)]) {
                    $1
                }),
        ]
    }

    static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<120: "\(seconds) s"
        case ..<7200: "\(seconds / 60) min"
        case ..<172_800: "\(seconds / 3600) h"
        default: "\(seconds / 86_400) days"
        }
    }
}
