import Foundation

/// `--keep N`: which files in the template's directory are its exports, and which of them go.
///
/// A name is the template's only when the template could have made it: its placeholders hold a real UTC
/// date and time that written again give the same name (`2024-02-30`, `2020-13-45` or `246000Z` are not
/// dates the template writes, so such files are never touched). Exports go by the time in their names, oldest
/// first, and never one dated after the export just written (another clock's, or a hand-made file's); a
/// checksum file goes only with its export, so one whose export is absent stays.
extension OutputTemplate {
    /// A file the template could have made: the export it belongs to (its name without part number and
    /// extension), when that export was made, and whether it is a checksum file.
    struct Member: Hashable {
        var stem: String
        var time: Int
        var isChecksum: Bool
    }

    /// The pattern of names the template makes: placeholders as their digits, anything else literal.
    /// A bundle's parts (`.part01` before the container's extension) and checksum files (`.sha256`) belong to
    /// the export they came with; the first capture is the export's own name. `\A` and `\z` bound the whole
    /// name (`$` would let a final line break through).
    func pattern(extensions: [String]) throws -> NSRegularExpression {
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
        return try NSRegularExpression(pattern: "\\A(" + regex + ")" + parted + "(?<sum>\\.sha256)?\\z")
    }

    /// `name` as a file of the template's making, or `nil` when the template could not have made it: it must
    /// match `pattern` and its date and time must be ones ``stamps(at:)`` writes (format(parse(name)) == name).
    func member(_ name: String, pattern: NSRegularExpression) -> Member? {
        guard let match = pattern.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)),
            let stem = Range(match.range(at: 1), in: name)
        else { return nil }
        let group = { (label: String) in Range(match.range(withName: label), in: name).map { name[$0] } }
        let date = group("date")
        let clock = group("time")
        var time = 0
        if let date {
            let fields = date.split(separator: "-").compactMap { Int($0) }
            guard fields.count == 3 else { return nil }
            time += Self.days(year: fields[0], month: fields[1], day: fields[2]) * 86_400
        }
        if let clock {
            guard let hour = Int(clock.prefix(2)), let minute = Int(clock.dropFirst(2).prefix(2)),
                let second = Int(clock.dropFirst(4).prefix(2))
            else { return nil }
            time += hour * 3_600 + minute * 60 + second
        }
        let written = Self.stamps(at: time)
        guard date.map({ $0 == written.date }) ?? true, clock.map({ $0 == written.clock }) ?? true else { return nil }
        return Member(stem: String(name[stem]), time: time, isChecksum: group("sum") != nil)
    }

    /// Days from 1970-01-01 to a day of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    /// Out-of-range months and days give some other day, which ``member(_:pattern:)``'s round trip refuses.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Removes the oldest exports this template made beyond the newest `keep` (by the time in their names),
    /// with their checksum files and parts. Never touched: `except` (the export just written), an export dated
    /// after it, a file whose name the template could not have made (``member(_:pattern:)``), and a checksum
    /// file whose export is absent. Returns the removed paths.
    ///
    /// - Parameter extensions: the containers' extensions (`tar.gz`, …), to recognise a split bundle's parts.
    public func rotate(keep: Int, except: String, extensions: [String]) throws(ExportError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw ExportError.cannotRead(path: directory, reason: error.localizedDescription)
        }
        guard let regex = try? pattern(extensions: extensions),
            let written = member(URL(fileURLWithPath: except).lastPathComponent, pattern: regex)
        else { return [] }
        var groups: [String: (time: Int, exports: Set<String>, checksums: [String])] = [:]
        for name in names {
            guard let member = member(name, pattern: regex) else { continue }
            if member.isChecksum {
                groups[member.stem, default: (member.time, [], [])].checksums.append(name)
            } else {
                groups[member.stem, default: (member.time, [], [])].exports.insert(name)
            }
        }
        // The exports made before this one, newest first; orphaned checksum files are no export.
        let older = groups.filter {
            $0.key != written.stem && $0.value.time < written.time && !$0.value.exports.isEmpty
        }
        .sorted { ($0.value.time, $0.key) > ($1.value.time, $1.key) }
        var removed: [String] = []
        for (_, group) in older.dropFirst(max(0, keep - 1)) {
            let checksums = group.checksums.filter { group.exports.contains(String($0.dropLast(".sha256".count))) }
            for name in (Array(group.exports) + checksums).sorted() {
                let path = join(name)
                if unlink(path) == 0 { removed.append(path) }
            }
        }
        return removed
    }
}
