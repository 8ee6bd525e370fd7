import Foundation
import QuickBloxClient
import TextIndex

/// Where a crawl's endpoint and credentials come from: flags, then the environment, then a config file.
///
/// The names are the environment variables' (`QB_ENDPOINT`, `QB_APP_ID`, `QB_AUTH_KEY`,
/// `QB_AUTH_SECRET`, `QB_LOGIN`, `QB_PASSWORD`, `QB_API_KEY`); a config file holds the same names as
/// `KEY=VALUE` lines (`#` comments, optional quotes), like a systemd `EnvironmentFile`, so a
/// scheduled crawl keeps secrets out of its command line and process title.
public struct CrawlSettings: Sendable {
    /// Whose dialogs are crawled.
    public enum Scope: String, Sendable, CaseIterable {
        /// The authenticated user's dialogs (a user session).
        case user
        /// Every user's dialogs, through an API key acting `On-Behalf-Of` each user in turn.
        case app
    }

    public static let keys = [
        "QB_ENDPOINT", "QB_APP_ID", "QB_AUTH_KEY", "QB_AUTH_SECRET", "QB_LOGIN", "QB_PASSWORD", "QB_API_KEY",
        "QB_ARCHIVE",
    ]

    public var endpoint: String
    public var scope: Scope
    public var credentials: ClientConfiguration.Credentials

    /// Resolves settings; `flags` and `environment` use the `QB_*` names.
    ///
    /// - Throws: ``SettingsError`` naming what is missing or malformed and where it may be given.
    public static func resolve(
        scope: Scope, flags: [String: String], environment: [String: String], configFile: String?
    ) throws(SettingsError) -> CrawlSettings {
        var file: [String: String] = [:]
        if let configFile { file = try read(configFile) }
        func value(_ key: String) -> String? {
            for source in [flags, environment, file] {
                if let value = source[key], !value.isEmpty { return value }
            }
            return nil
        }
        func require(_ key: String) throws(SettingsError) -> String {
            guard let found = value(key) else { throw .missing(key: key, scope: scope) }
            return found
        }
        let endpoint = try require("QB_ENDPOINT")
        guard let url = URL(string: endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else { throw .invalid(key: "QB_ENDPOINT", reason: "`\(endpoint)` is not an http(s) URL") }
        let credentials: ClientConfiguration.Credentials
        switch scope {
        case .app:
            credentials = .apiKey(try require("QB_API_KEY"))
        case .user:
            let appID = try require("QB_APP_ID")
            guard let applicationID = Int(appID) else {
                throw .invalid(key: "QB_APP_ID", reason: "`\(appID)` is not a number")
            }
            credentials = .user(
                applicationID: applicationID, authKey: try require("QB_AUTH_KEY"),
                authSecret: try require("QB_AUTH_SECRET"), login: try require("QB_LOGIN"),
                password: try require("QB_PASSWORD"))
        }
        return CrawlSettings(endpoint: endpoint, scope: scope, credentials: credentials)
    }

    /// Reads `KEY=VALUE` lines (`QB_*` keys must be settings: a mistyped one is an error).
    public static func read(_ path: String) throws(SettingsError) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        var values: [String: String] = [:]
        // `isNewline` splits CRLF files too ("\r\n" is one Character, never equal to "\n").
        for (index, rawLine) in String(decoding: data, as: UTF8.self).split(
            omittingEmptySubsequences: false, whereSeparator: \.isNewline
        ).enumerated() {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            // A file written for a shell (`export QB_LOGIN=…`) is read as the variables it sets.
            if line.hasPrefix("export "), line.contains("=") {
                line = line.dropFirst("export ".count).trimmingCharacters(in: .whitespaces)
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .malformed(path: path, line: index + 1)
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            // A mistyped setting would otherwise be ignored and reported as missing; other variables (a shared
            // systemd EnvironmentFile) are left alone.
            if key.hasPrefix("QB_"), !keys.contains(key) {
                let nearest = keys.min { EditDistance.between(key, $0) < EditDistance.between(key, $1) }
                throw .unknownKey(path: path, line: index + 1, key: key, nearest: nearest ?? keys[0])
            }
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            values[key] = value
        }
        return values
    }
}

/// Why crawl settings could not be resolved. Never repeats a secret's value.
public enum SettingsError: Error, LocalizedError, Equatable {
    case missing(key: String, scope: CrawlSettings.Scope)
    case invalid(key: String, reason: String)
    case unreadable(path: String)
    case malformed(path: String, line: Int)
    case unknownKey(path: String, line: Int, key: String, nearest: String)

    public var errorDescription: String? {
        switch self {
        case .missing(let key, let scope):
            "\(key) is required for --scope \(scope.rawValue): give it as a flag, in the environment, or in --config FILE"
        case .invalid(let key, let reason):
            "\(key): \(reason)"
        case .unreadable(let path):
            "cannot read the config file \(path)"
        case .malformed(let path, let line):
            "\(path):\(line): expected KEY=VALUE (or export KEY=VALUE)"
        case .unknownKey(let path, let line, let key, let nearest):
            "\(path):\(line): \(key) is not a qbarchive setting — did you mean \(nearest)? "
                + "(the settings are \(CrawlSettings.keys.joined(separator: ", ")))"
        }
    }
}
