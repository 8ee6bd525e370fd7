import Foundation

/// A moderation review kept as a file: `queries/NAME.qbq`, a comment header and the query.
///
/// ```
/// # title: Links in private dialogs
/// # purpose: Spot spam and phishing sent one-to-one.
/// # owner: trust-and-safety
/// dialog_type:private (message ctn "http://" or message ctn "https://")
/// ```
///
/// Header lines are `# key: value`; other `#` lines are comments. Every other line is part of the
/// query, joined with spaces, so a long review can span lines.
///
/// A query names a saved query as `@NAME`. Names are ``isValidName(_:)`` only — letters, digits, `_`
/// and `-` — and are looked up among the regular `*.qbq` files the directory lists, never joined to it
/// as a path: `@../keys/signer` or `@/etc/passwd` is refused as a name, so no query text can make qbarchive
/// read a file outside the queries folder, and no error quotes a file's content.
public struct SavedQuery: Sendable, Hashable {
    public var name: String
    public var title: String?
    public var purpose: String?
    public var owner: String?
    public var query: String
    /// The file the query was read from.
    public var path: String

    /// The longest saved-query file read (a query is capped at a few KB; the rest is its header).
    public static let maximumFileSize = 64 * 1024

    /// Reads one saved query file.
    public init(contentsOf path: String) throws(SavedQueryError) {
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        guard let handle = FileHandle(forReadingAtPath: path),
            let data = try? handle.read(upToCount: Self.maximumFileSize + 1)
        else { throw .unreadable(name: name) }
        try? handle.close()
        guard data.count <= Self.maximumFileSize else { throw .tooLarge(name: name) }
        guard let text = String(data: data, encoding: .utf8) else { throw .unreadable(name: name) }
        self.path = path
        self.name = name
        var lines: [String] = []
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard line.hasPrefix("#") else {
                // A tab inside a line is the file's layout, not part of the query.
                if !line.isEmpty { lines.append(line.replacingOccurrences(of: "\t", with: " ")) }
                continue
            }
            let header = line.dropFirst().trimmingCharacters(in: .whitespaces)
            guard let colon = header.firstIndex(of: ":") else { continue }
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch header[..<colon].lowercased() {
            case "title": title = value
            case "purpose": purpose = value
            case "owner": owner = value
            default: break
            }
        }
        query = lines.joined(separator: " ")
        guard !query.isEmpty else { throw .empty(name: name) }
    }

    /// Whether `name` can name a saved query: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), isNameByte(bytes[0], first: true) else { return false }
        return bytes.dropFirst().allSatisfy { isNameByte($0, first: false) }
    }

    private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "_"), UInt8(ascii: "-"): return !first
        default: return false
        }
    }

    /// The names of the saved queries in `directory`: its regular files `NAME.qbq` whose `NAME` is valid.
    ///
    /// Symbolic links, directories and files with other names are not saved queries.
    public static func names(in directory: String) throws(SavedQueryError) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw .noDirectory(path: directory)
        }
        return entries.compactMap { entry -> String? in
            guard entry.hasSuffix(".qbq") else { return nil }
            let name = String(entry.dropLast(4))
            guard isValidName(name) else { return nil }
            var status = stat()
            guard lstat((directory as NSString).appendingPathComponent(entry), &status) == 0,
                status.st_mode & S_IFMT == S_IFREG
            else { return nil }
            return name
        }.sorted()
    }

    /// Every saved query of a directory, by name.
    public static func all(in directory: String) throws(SavedQueryError) -> [SavedQuery] {
        var queries: [SavedQuery] = []
        for name in try names(in: directory) {
            queries.append(try SavedQuery(contentsOf: (directory as NSString).appendingPathComponent(name + ".qbq")))
        }
        return queries
    }

    /// The saved query `name` (with or without a leading `@`) from `directory`, found among ``names(in:)``.
    public static func named(_ name: String, in directory: String) throws(SavedQueryError) -> SavedQuery {
        let bare = name.hasPrefix("@") ? String(name.dropFirst()) : name
        guard isValidName(bare) else { throw .invalidName(bare) }
        let known = try names(in: directory)
        guard let listed = known.first(where: { $0 == bare }) else {
            throw .unknown(name: bare, known: known.map { "@" + $0 })
        }
        return try SavedQuery(contentsOf: (directory as NSString).appendingPathComponent(listed + ".qbq"))
    }

    /// The query text `text` stands for: a saved query's for `@NAME` (surrounding spaces ignored), else `text`.
    public static func resolve(_ text: String, in directory: String) throws(SavedQueryError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("@") else { return text }
        return try named(trimmed, in: directory).query
    }
}

/// A saved query that could not be found or read.
///
/// Messages name the saved query, never the directory's path or a file's content: they reach the web
/// UI and the JSON API, where a visitor must not learn either.
public enum SavedQueryError: Error, LocalizedError, Hashable, Sendable {
    case invalidName(String)
    case unknown(name: String, known: [String])
    case unreadable(name: String)
    case tooLarge(name: String)
    case empty(name: String)
    case noDirectory(path: String)

    public var errorDescription: String? {
        switch self {
        case .invalidName(let name):
            return "`@\(Self.shown(name))` is not a saved-query name: a name is a letter or digit followed by up to 63 "
                + "letters, digits, `_` or `-` (`qbarchive queries` lists them)"
        case .unknown(let name, let known):
            let list = known.isEmpty ? "none" : known.joined(separator: ", ")
            return "no saved query `@\(name)` (saved queries: \(list)); `qbarchive queries` lists them; to search "
                + "for the text @\(name), put it in quotes: \"@\(name)\""
        case .unreadable(let name): return "the saved query `@\(name)` cannot be read (unreadable or not UTF-8)"
        case .tooLarge(let name):
            return "the saved query `@\(name)` is larger than \(SavedQuery.maximumFileSize / 1024) KB"
        case .empty(let name): return "the saved query `@\(name)` has a header but no query line"
        case .noDirectory: return "the saved-query directory cannot be read; pass --queries DIR"
        }
    }

    /// A name as typed, at most 64 characters, with control characters shown as `\u{…}` escapes.
    private static func shown(_ name: String) -> String {
        let short = name.count > 64 ? String(name.prefix(63)) + "…" : name
        return short.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
        }.joined()
    }
}
