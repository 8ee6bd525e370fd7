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
public struct SavedQuery: Sendable, Hashable {
    public var name: String
    public var title: String?
    public var purpose: String?
    public var owner: String?
    public var query: String
    /// The file the query was read from.
    public var path: String

    /// Reads one saved query file.
    public init(contentsOf path: String) throws(SavedQueryError) {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw .unreadable(path: path) }
        self.path = path
        name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        var lines: [String] = []
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard line.hasPrefix("#") else {
                if !line.isEmpty { lines.append(line) }
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
        guard !query.isEmpty else { throw .empty(path: path) }
    }

    /// Every `*.qbq` file of a directory, by name.
    public static func all(in directory: String) throws(SavedQueryError) -> [SavedQuery] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw .noDirectory(path: directory)
        }
        var queries: [SavedQuery] = []
        for name in names.sorted() where name.hasSuffix(".qbq") {
            queries.append(try SavedQuery(contentsOf: (directory as NSString).appendingPathComponent(name)))
        }
        return queries
    }

    /// The saved query `name` (with or without a leading `@`) from `directory`.
    public static func named(_ name: String, in directory: String) throws(SavedQueryError) -> SavedQuery {
        let bare = name.hasPrefix("@") ? String(name.dropFirst()) : name
        let path = (directory as NSString).appendingPathComponent(bare + ".qbq")
        guard FileManager.default.fileExists(atPath: path) else {
            let known = (try? all(in: directory))?.map { "@" + $0.name } ?? []
            throw .unknown(name: bare, directory: directory, known: known)
        }
        return try SavedQuery(contentsOf: path)
    }
}

/// A saved query that could not be found or read.
public enum SavedQueryError: Error, LocalizedError, Hashable, Sendable {
    case unknown(name: String, directory: String, known: [String])
    case unreadable(path: String)
    case empty(path: String)
    case noDirectory(path: String)

    public var errorDescription: String? {
        switch self {
        case .unknown(let name, let directory, let known):
            let list = known.isEmpty ? "none" : known.joined(separator: ", ")
            return "no saved query `@\(name)` in \(directory) (saved queries: \(list)); `qbarchive queries` lists them"
        case .unreadable(let path): return "cannot read the saved query \(path) (missing, unreadable or not UTF-8)"
        case .empty(let path): return "the saved query \(path) has a header but no query line"
        case .noDirectory(let path): return "no saved-query directory at \(path); pass --queries DIR"
        }
    }
}
