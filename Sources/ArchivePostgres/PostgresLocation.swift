import Foundation
import PostgresNIO

/// Where a PostgreSQL archive is: a `postgresql://` (or `postgres://`) URL, parsed.
///
/// ```
/// postgresql://qbarchive:secret@db.example:5432/chat?sslmode=require
/// postgresql://qbarchive@/chat?host=/var/run/postgresql
/// ```
///
/// The connection is a unix socket when the `host` query parameter is a path (starts with `/`) or when the
/// URL has no host (Debian's socket directory, `/var/run/postgresql`), and TCP otherwise, with TLS as
/// `sslmode` says (libpq's default, `prefer`, when absent). ``description`` shows the URL with the password
/// replaced by `***`, so a location can be logged and printed; so do `debugDescription` and `dump`.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// How the server is reached.
    public enum Endpoint: Sendable, Hashable {
        /// A host name or address, and a TCP port.
        case tcp(host: String, port: Int)
        /// A unix socket in `directory` (its file is `.s.PGSQL.PORT`).
        case socket(directory: String, port: Int)
    }

    /// libpq's `sslmode` values: whether TLS is used, and what of the server's certificate is verified.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var endpoint: Endpoint
    public var user: String
    /// Never shown: ``description`` and every error print `***` or nothing in its place.
    public var password: String?
    public var database: String
    /// Ignored on a unix socket, which is never encrypted.
    public var tls: TLSMode
    /// `application_name`, shown in `pg_stat_activity`.
    public var applicationName: String?
    /// How long to wait for a connection (`connect_timeout`, seconds).
    public var connectTimeout: Int?

    public static let defaultPort = 5432
    /// Where Debian's PostgreSQL puts its socket.
    public static let defaultSocketDirectory = "/var/run/postgresql"

    public init(
        endpoint: Endpoint, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer,
        applicationName: String? = nil, connectTimeout: Int? = nil
    ) {
        self.endpoint = endpoint
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
    }

    /// Whether `location` is a PostgreSQL URL (and so not a SQLite path): it starts with `postgresql://` or
    /// `postgres://`, in any case. Says nothing of whether the rest is valid: ``init(parsing:)`` does.
    public static func isPostgres(_ location: String) -> Bool {
        let lowered = location.lowercased()
        return schemes.contains { lowered.hasPrefix($0 + "://") }
    }

    static let schemes = ["postgresql", "postgres"]

    /// The path of the unix socket file, for a socket endpoint.
    public var socketPath: String? {
        guard case .socket(let directory, let port) = endpoint else { return nil }
        return Self.socketPath(directory: directory, port: port)
    }

    static func socketPath(directory: String, port: Int) -> String {
        (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/.s.PGSQL.\(port)"
    }

    /// Settings every connection of qbarchive's starts with (sent with the startup message: no round trip).
    ///
    /// `jit = off`: PostgreSQL compiles a statement whose estimated cost passes `jit_above_cost` (a scan of every
    /// message does) on each new connection, and a `qbarchive` process's connections are all new: at a million
    /// messages, 80 ms of compilation for `NOT invoice` (560 → 400 ms without), `refund OR dialog_type:private`
    /// 650 → 470–600 ms, an export of every message 12.1–13.7 → 11.3–12.3 s; searches that read an index never
    /// reach the threshold (docs/postgres.md, "Settings of qbarchive's sessions").
    static let sessionSettings: [(String, String)] = [("jit", "off")]

    /// The configuration of a pooled postgres-nio client for this location.
    public func clientConfiguration() -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch endpoint {
        case .socket(let directory, let port):
            configuration = PostgresClient.Configuration(
                unixSocketPath: Self.socketPath(directory: directory, port: port), username: user,
                password: password, database: database)
        case .tcp(let host, let port):
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database,
                tls: clientTLS())
        }
        configuration.options.additionalStartupParameters = Self.sessionSettings
        if let applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        if let connectTimeout { configuration.options.connectTimeout = .seconds(connectTimeout) }
        return configuration
    }

    private func clientTLS() -> PostgresClient.Configuration.TLS {
        var settings = TLSConfiguration.makeClientConfiguration()
        switch tls {
        case .disable:
            return .disable
        case .allow, .prefer:
            settings.certificateVerification = .none
            return .prefer(settings)
        case .require:
            settings.certificateVerification = .none
            return .require(settings)
        case .verifyCA:
            settings.certificateVerification = .noHostnameVerification
            return .require(settings)
        case .verifyFull:
            settings.certificateVerification = .fullVerification
            return .require(settings)
        }
    }

    /// The URL, with `***` for the password.
    public var description: String {
        var text = "postgresql://" + Self.escape(user)
        if password != nil { text += ":***" }
        text += "@"
        var parameters: [String] = []
        switch endpoint {
        case .tcp(let host, let port):
            text += host.contains(":") ? "[\(host)]" : Self.escape(host)
            if port != Self.defaultPort { text += ":\(port)" }
            if tls != .prefer { parameters.append("sslmode=\(tls.rawValue)") }
        case .socket(let directory, let port):
            parameters.append("host=" + Self.escape(directory, keeping: "/"))
            if port != Self.defaultPort { parameters.append("port=\(port)") }
        }
        text += "/" + Self.escape(database)
        if let applicationName { parameters.append("application_name=" + Self.escape(applicationName)) }
        if let connectTimeout { parameters.append("connect_timeout=\(connectTimeout)") }
        return parameters.isEmpty ? text : text + "?" + parameters.joined(separator: "&")
    }

    public var debugDescription: String { description }

    /// What `dump` and test failures show: the fields, with `***` for the password.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "endpoint": endpoint, "user": user, "password": password.map { _ in "***" } as Any,
                "database": database, "tls": tls, "applicationName": applicationName as Any,
                "connectTimeout": connectTimeout as Any,
            ])
    }

    private static let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

    private static func escape(_ text: String, keeping extra: String = "") -> String {
        let allowed = CharacterSet(charactersIn: unreserved + extra)
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
