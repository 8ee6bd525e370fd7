import Foundation

/// An `--out` path with `{date}` and `{time}` in it, for scheduled exports: each run writes a new file
/// (`exports/chat-{date}.jsonl` → `exports/chat-2024-03-01.jsonl`), and ``rotate(keep:except:extensions:)`` removes the
/// oldest files the template made beyond a count.
///
/// `{date}` is the UTC day (`2024-03-01`), `{time}` the UTC time of day (`101500Z`); both sort as they read,
/// so a newer file's name sorts after an older one's made by the same template. Only the file name may
/// hold them, not the directory.
public struct OutputTemplate: Sendable, Hashable {
    /// The path as given.
    public let text: String
    private let directory: String
    private let name: String

    /// The placeholders a template may hold.
    public static let placeholders = ["{date}", "{time}"]

    /// Reads `text`; `nil` when it holds no placeholder (a plain path).
    ///
    /// - Throws: ``ExportError/badOption(_:)`` for an unknown `{…}` or a placeholder in the directory.
    public init?(_ text: String) throws(ExportError) {
        let slash = text.lastIndex(of: "/")
        let name = slash.map { String(text[text.index(after: $0)...]) } ?? text
        let directory = slash.map { $0 == text.startIndex ? "/" : String(text[..<$0]) } ?? "."
        guard text.contains("{") || text.contains("}") else { return nil }
        if directory.contains("{") || directory.contains("}") {
            throw ExportError.badOption("--out \(text): {date} and {time} may only appear in the file name")
        }
        var rest = Substring(name)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ExportError.badOption("--out \(text): `{` without `}`; the placeholders are {date} and {time}")
            }
            let placeholder = String(rest[open...close])
            guard Self.placeholders.contains(placeholder) else {
                throw ExportError.badOption(
                    "--out \(text): \(placeholder) is not a placeholder; use {date} (2024-03-01) or {time} (101500Z)")
            }
            guard name.components(separatedBy: placeholder).count == 2 else {
                throw ExportError.badOption("--out \(text): \(placeholder) may appear once")
            }
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw ExportError.badOption("--out \(text): `}` without `{`") }
        self.text = text
        self.directory = directory
        self.name = name
    }

    /// The path for an export made at `time` (unix seconds, written in UTC).
    public func path(at time: Int) -> String {
        let stamp = Date(timeIntervalSince1970: Double(time))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: stamp)
        let date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let clock = String(format: "%02d%02d%02dZ", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        let filled = name.replacingOccurrences(of: "{date}", with: date).replacingOccurrences(of: "{time}", with: clock)
        return join(filled)
    }

    /// `name` in the template's directory, written the way the template wrote its directory.
    private func join(_ name: String) -> String {
        guard text.contains("/") else { return name }
        return directory == "/" ? "/" + name : directory + "/" + name
    }

    /// The pattern of names the template makes: placeholders as their digits, anything else literal.
    /// A bundle's parts (`.part01` before the container's extension) and checksum files (`.sha256`) belong to
    /// the export they came with; the first capture is the export's own name.
    private func pattern(extensions: [String]) throws -> NSRegularExpression {
        var regex = ""
        var rest = Substring(name)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            regex += NSRegularExpression.escapedPattern(for: String(rest[..<open]))
            regex += rest[open...close] == "{date}" ? "(?<date>[0-9]{4}-[0-9]{2}-[0-9]{2})" : "(?<time>[0-9]{6}Z)"
            rest = rest[rest.index(after: close)...]
        }
        regex += NSRegularExpression.escapedPattern(for: String(rest))
        // The name with a part number inserted before a known extension, when it ends with one.
        var parted = "(?:\\.part[0-9]{2,})?"
        if let ext = extensions.first(where: { name.hasSuffix("." + $0) }) {
            let escapedExt = NSRegularExpression.escapedPattern(for: "." + ext)
            regex = String(regex.dropLast(escapedExt.count))
            parted += escapedExt
        }
        return try NSRegularExpression(pattern: "^(" + regex + ")" + parted + "(?:\\.sha256)?$")
    }

    /// Removes the oldest exports this template made beyond the newest `keep` (by the time in their names),
    /// with their checksum files and parts; never `except` (the export just written) or a file whose name the
    /// template could not have made. Returns the removed paths.
    ///
    /// - Parameter extensions: the containers' extensions (`tar.gz`, …), to recognise a split bundle's parts.
    public func rotate(keep: Int, except: String, extensions: [String]) throws(ExportError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw ExportError.cannotRead(path: directory, reason: error.localizedDescription)
        }
        guard let regex = try? pattern(extensions: extensions) else { return [] }
        /// The export a name belongs to, and when it was made (its date, then its time).
        func stem(of name: String) -> (stem: String, time: String)? {
            guard let match = regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)),
                let stem = Range(match.range(at: 1), in: name)
            else { return nil }
            let time = ["date", "time"].map { group in
                Range(match.range(withName: group), in: name).map { String(name[$0]) } ?? ""
            }
            return (String(name[stem]), time.joined(separator: "T"))
        }
        var groups: [String: (time: String, names: [String])] = [:]
        for name in names {
            guard let (stem, time) = stem(of: name) else { continue }
            groups[stem, default: (time, [])].names.append(name)
        }
        let keptStem = stem(of: URL(fileURLWithPath: except).lastPathComponent)?.stem
        let older = groups.filter { $0.key != keptStem }.sorted { ($0.value.time, $0.key) > ($1.value.time, $1.key) }
        var removed: [String] = []
        for (stem, _) in older.dropFirst(max(0, keep - 1)) {
            for name in (groups[stem]?.names ?? []).sorted() {
                let path = join(name)
                if unlink(path) == 0 { removed.append(path) }
            }
        }
        return removed
    }
}
