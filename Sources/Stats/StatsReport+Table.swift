extension StatsReport {
    /// Rows of the volume table on a terminal: the most recent periods (JSON and the charts have all).
    static let tablePeriods = 31
    /// Dialogs listed under coverage on a terminal: those furthest behind first.
    static let tableCoverageRows = 10

    /// The report as fixed-width text for a terminal: totals, volume with bars, an hour-of-week heat map,
    /// top senders and dialogs, first replies and coverage.
    ///
    /// Names are archived input: control characters are replaced so that a name cannot move the cursor
    /// or recolour the terminal, and long names are cut to fit their column.
    public func table() -> String {
        var out: [String] = []
        out.append(query.map { "Stats for messages matching: \(Self.clean($0))" } ?? "Stats for the whole archive")
        out.append("")
        out += totalsSection()
        out += volumeSection()
        out += hourOfWeekSection()
        out += leadersSection()
        out += replySection()
        out += coverageSection()
        return out.joined(separator: "\n") + "\n"
    }

    private func totalsSection() -> [String] {
        let d = totals.dialogs
        var lines = ["TOTALS"]
        lines.append(Self.row("users", totals.users, "\(Self.number(totals.senders)) sent a message"))
        lines.append(
            Self.row(
                "dialogs", d.total,
                "public \(Self.number(d.public)) · group \(Self.number(d.group)) · private \(Self.number(d.private))"
                    + (d.other > 0 ? " · other \(Self.number(d.other))" : "") + " · deleted \(Self.number(d.deleted))"))
        lines.append(
            Self.row(
                "messages", totals.messages,
                "deleted \(Self.number(totals.deletedMessages)) · edited \(Self.number(totals.editedMessages)) "
                    + "(\(Self.number(totals.edits)) edits)"))
        let types = totals.attachmentsByType.map { "\(Self.clean($0.type, width: 16)) \(Self.number($0.attachments))" }
        lines.append(
            Self.row(
                "attachments", totals.attachments,
                "on \(Self.number(totals.messagesWithAttachments)) messages"
                    + (types.isEmpty ? "" : ": " + types.joined(separator: " · "))))
        return lines + [""]
    }

    private func volumeSection() -> [String] {
        let shown = volume.suffix(Self.tablePeriods)
        var lines = ["VOLUME PER \(period.rawValue.uppercased()) (UTC; deleted messages included)"]
        if volume.count > shown.count {
            lines.append("  (the last \(shown.count) of \(volume.count); --json or --svg for all, --by week or month)")
        }
        guard !shown.isEmpty else { return lines + ["  no messages", ""] }
        let peak = max(1, shown.map(\.messages).max() ?? 1)
        lines.append(
            "  " + Self.pad("period", 11) + Self.right("messages", 10) + Self.right("deleted", 9)
                + Self.right("senders", 9))
        for bucket in shown {
            let bar = String(repeating: "█", count: (bucket.messages * 30 + peak - 1) / peak)
            lines.append(
                "  " + Self.pad(bucket.label, 11) + Self.right(Self.number(bucket.messages), 10)
                    + Self.right(Self.number(bucket.deleted), 9) + Self.right(Self.number(bucket.senders), 9) + "  "
                    + bar)
        }
        let active = dailyActiveSenders.map(\.senders)
        if let most = active.max(), let day = dailyActiveSenders.first(where: { $0.senders == most }) {
            let mean = Double(active.reduce(0, +)) / Double(active.count)
            lines.append(
                "  daily active senders: mean \(Self.decimal(mean)), most \(Self.number(most)) on \(day.date)")
        }
        return lines + [""]
    }

    private func hourOfWeekSection() -> [String] {
        let peak = max(1, hourOfWeek.flatMap { $0 }.max() ?? 1)
        let shades: [Character] = [" ", "░", "▒", "▓", "█"]
        var lines = ["ACTIVITY BY HOUR OF WEEK (UTC; darker is busier, peak \(Self.number(peak)) messages in an hour)"]
        lines.append("       " + (0..<24).map { $0 % 3 == 0 ? Self.pad(String($0), 3) : "" }.joined())
        for (index, name) in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].enumerated() {
            let cells = hourOfWeek[safe: index] ?? []
            let row = cells.map { count -> Character in
                count == 0 ? "·" : shades[min(4, 1 + (count * 4 - 1) / peak)]
            }
            lines.append("  \(name)  " + String(row))
        }
        return lines + [""]
    }

    private func leadersSection() -> [String] {
        var lines = ["TOP SENDERS"]
        if topSenders.isEmpty { lines.append("  none") }
        for (rank, sender) in topSenders.enumerated() {
            let login = sender.login.map { "@" + Self.clean($0, width: 18) } ?? ""
            lines.append(
                "  " + Self.right("\(rank + 1).", 4) + " " + Self.pad(Self.clean(sender.label, width: 28), 29)
                    + Self.pad(login, 20) + Self.right("#\(sender.id)", 10)
                    + Self.right(Self.number(sender.messages), 11)
                    + "  " + Self.share(sender.messages, of: totals.messages))
        }
        lines += ["", "TOP DIALOGS"]
        if topDialogs.isEmpty { lines.append("  none") }
        for (rank, dialog) in topDialogs.enumerated() {
            lines.append(
                "  " + Self.right("\(rank + 1).", 4) + " " + Self.pad(Self.clean(dialog.label, width: 36), 37)
                    + Self.pad(dialog.type, 8) + Self.pad(dialog.id, 25) + Self.right(Self.number(dialog.messages), 9)
                    + "  " + Self.share(dialog.messages, of: totals.messages))
        }
        return lines + [""]
    }

    private func replySection() -> [String] {
        guard let median = firstReply.medianSeconds, let p90 = firstReply.p90Seconds else {
            return ["FIRST REPLY IN PRIVATE DIALOGS", "  no replies (no private dialog where the sender changes)", ""]
        }
        return [
            "FIRST REPLY IN PRIVATE DIALOGS",
            "  median \(Self.duration(median)) · p90 \(Self.duration(p90)) over \(Self.number(firstReply.replies)) replies",
            "",
        ]
    }

    private func coverageSection() -> [String] {
        let c = coverage
        var lines = [
            "COVERAGE (server count at the last reconcile against the archive then)",
            "  \(Self.number(c.dialogs)) dialogs: \(Self.number(c.complete)) complete · \(Self.number(c.behind)) behind "
                + "(\(Self.number(c.missing)) messages missing) · \(Self.number(c.ahead)) ahead · "
                + "\(Self.number(c.notReconciled)) not reconciled",
        ]
        let uneven = c.entries.filter { $0.status == "behind" || $0.status == "ahead" }
            .sorted {
                abs(($0.serverCount ?? 0) - ($0.archivedAtCount ?? 0))
                    > abs(($1.serverCount ?? 0) - ($1.archivedAtCount ?? 0))
            }
        for entry in uneven.prefix(Self.tableCoverageRows) {
            lines.append(
                "  " + Self.pad(entry.id, 25) + Self.pad(Self.clean(entry.name ?? "", width: 28), 29)
                    + "server \(Self.number(entry.serverCount ?? 0)), archived \(Self.number(entry.archivedAtCount ?? 0))"
                    + " at \(entry.countedAt ?? "?")")
        }
        if c.notReconciled > 0 {
            lines.append("  not reconciled: run `qbarchive crawl --reconcile` to count dialogs on the server")
        }
        return lines
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
