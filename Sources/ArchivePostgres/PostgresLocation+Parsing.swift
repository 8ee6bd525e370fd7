import Foundation

extension PostgresLocation {
    /// Parses `postgresql://user[:password]@host[:port]/database?parameters` (or `postgres://…`), libpq's URL
    /// form: `%XX` escapes in every part, an IPv6 address in brackets, and the parameters `host` (a path
    /// for a unix socket directory), `port`, `user`, `password`, `dbname`, `sslmode`, `application_name` and
    /// `connect_timeout`, which override the parts before them.
    ///
    /// Stricter than libpq where a guess could reach the wrong database: the user and the database must be
    /// named, and an unknown parameter or several hosts are refused rather than ignored.
    ///
    /// - Throws: a ``PostgresLocationError`` naming what is wrong and where; never the password.
    public init(parsing text: String) throws(PostgresLocationError) {
        guard let schemeEnd = text.range(of: "://") else { throw .notPostgres(scheme: nil) }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard Self.schemes.contains(scheme) else {
            let readable = !scheme.isEmpty && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            throw .notPostgres(scheme: readable ? scheme : nil)
        }
        var rest = text[schemeEnd.upperBound...]
        guard !rest.contains("#") else { throw .fragment }
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let slash = rest.firstIndex(of: "/")
        let authority = slash.map { rest[..<$0] } ?? rest
        let path = slash.map { rest[rest.index(after: $0)...] } ?? ""

        var user: String?
        var password: String?
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.decode(userInfo[..<colon], part: "user name")
                password = try Self.decode(userInfo[userInfo.index(after: colon)...], part: "password")
            } else {
                user = try Self.decode(userInfo, part: "user name")
            }
        }
        var (host, port) = try Self.hostAndPort(hostPort)
        var database = try Self.decode(path, part: "database name")
        var socketDirectory: String?
        var tls = TLSMode.prefer
        var applicationName: String?
        var connectTimeout: Int?

        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = item.firstIndex(of: "=") else {
                let name = try Self.decode(item, part: "query parameters")
                throw .badParameter(name: name, reason: "has no value (write NAME=VALUE)")
            }
            let name = try Self.decode(item[..<equals], part: "query parameters")
            let value = try Self.decode(item[item.index(after: equals)...], part: "parameter `\(name)`")
            switch name {
            case "host":
                if value.hasPrefix("/") {
                    socketDirectory = value
                } else {
                    host = value
                    socketDirectory = nil
                }
            case "port": port = try Self.port(value)
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .badParameter(name: name, reason: "is `\(value)`, not one of \(modes)")
                }
                tls = mode
            case "application_name": applicationName = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw .badParameter(name: name, reason: "is not a whole number of seconds above 0")
                }
                connectTimeout = seconds
            default: throw .unknownParameter(name)
            }
        }

        guard let user, !user.isEmpty else { throw .missingUser }
        guard !database.isEmpty else { throw .missingDatabase }
        let endpoint: Endpoint
        if let socketDirectory {
            endpoint = .socket(directory: socketDirectory, port: port ?? Self.defaultPort)
        } else if host.isEmpty {
            endpoint = .socket(directory: Self.defaultSocketDirectory, port: port ?? Self.defaultPort)
        } else {
            endpoint = .tcp(host: host, port: port ?? Self.defaultPort)
        }
        if case .socket(let directory, let port) = endpoint,
            Self.socketPath(directory: directory, port: port).utf8.count > 107
        {
            throw .socketPathTooLong(directory: directory)
        }
        self.init(
            endpoint: endpoint, user: user, password: password, database: database, tls: tls,
            applicationName: applicationName, connectTimeout: connectTimeout)
    }

    /// The host (without IPv6 brackets, decoded) and the port of `HOST[:PORT]`.
    private static func hostAndPort(_ text: Substring) throws(PostgresLocationError) -> (String, Int?) {
        guard !text.contains(",") else {
            throw .badHost(reason: "it names several hosts (a comma); qbarchive connects to one")
        }
        var hostText = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw .badHost(reason: "an IPv6 address opened with `[` is not closed with `]`")
            }
            hostText = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else {
                    throw .badHost(reason: "after an IPv6 address's `]` comes `:PORT`, `/` or nothing")
                }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        let host = try decode(hostText, part: "host")
        guard let portText else { return (host, nil) }
        return (host, try port(String(portText)))
    }

    private static func port(_ text: String) throws(PostgresLocationError) -> Int {
        guard text.utf8.count <= 5, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(text),
            (1...65535).contains(port)
        else { throw .badPort }
        return port
    }

    private static func decode(_ text: Substring, part: String) throws(PostgresLocationError) -> String {
        guard text.contains("%") else { return String(text) }
        guard let decoded = text.removingPercentEncoding else { throw .badEscape(part: part) }
        return decoded
    }
}
