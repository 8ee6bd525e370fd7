import Foundation

/// An `--out` path with `{date}` and `{time}` in it, for scheduled exports: each run writes a new file
/// (`exports/chat-{date}.jsonl` → `exports/chat-2024-03-01.jsonl`), and ``rotate(keep:except:extensions:)`` removes the
/// oldest files the template made beyond a count (OutputTemplate+Rotation.swift).
///
/// `{date}` is the UTC day (`2024-03-01`), `{time}` the UTC time of day (`101500Z`); both sort as they read,
/// so a newer file's name sorts after an older one's made by the same template. Only the file name may
/// hold them, not the directory.
public struct OutputTemplate: Sendable, Hashable {
    /// The path as given.
    public let text: String
    /// The directory the exports are in (`.` for none given).
    let directory: String
    /// The file name, with its placeholders.
    let name: String

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
    public func path(at time: Int) -> String { join(fileName(at: time)) }

    /// The file name for an export made at `time`: the placeholders filled with ``stamps(at:)``.
    func fileName(at time: Int) -> String {
        let (date, clock) = Self.stamps(at: time)
        return name.replacingOccurrences(of: "{date}", with: date).replacingOccurrences(of: "{time}", with: clock)
    }

    /// What `{date}` and `{time}` become at `time` (unix seconds): `2024-03-01` and `101500Z`, UTC.
    static func stamps(at time: Int) -> (date: String, clock: String) {
        let stamp = Date(timeIntervalSince1970: Double(time))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: stamp)
        let date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let clock = String(format: "%02d%02d%02dZ", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        return (date, clock)
    }

    /// `name` in the template's directory, written the way the template wrote its directory.
    func join(_ name: String) -> String {
        guard text.contains("/") else { return name }
        return directory == "/" ? "/" + name : directory + "/" + name
    }
}
