import Foundation

/// What is wrong in a `postgresql://` URL, and where in it.
///
/// No case carries the password, nor any text that could be it: an error is printed, logged and shown to
/// moderators, so it names the part of the URL that is wrong rather than repeating it.
public enum PostgresLocationError: Error, LocalizedError, Sendable, Hashable {
    /// The text does not start with `postgresql://` or `postgres://`; the scheme it has, when it has a
    /// readable one.
    case notPostgres(scheme: String?)
    /// A `#fragment`, which a database URL never has.
    case fragment
    /// A `%` escape that does not decode (not two hex digits, or not UTF-8), in the named part.
    case badEscape(part: String)
    /// The host part cannot be read; why.
    case badHost(reason: String)
    /// The port is not a number from 1 to 65535 (not repeated: in a URL missing its `@`, the "port" may be a
    /// password).
    case badPort
    /// Neither `USER@` before the host nor `?user=` names the user.
    case missingUser
    /// Neither `/DATABASE` after the host nor `?dbname=` names the database.
    case missingDatabase
    /// A query parameter's value is not one it can take; why.
    case badParameter(name: String, reason: String)
    /// A query parameter this program does not know.
    case unknownParameter(String)
    /// The unix socket's path would be longer than the system allows (107 bytes).
    case socketPathTooLong(directory: String)

    public var errorDescription: String? {
        let shape = "write postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
        switch self {
        case .notPostgres(let scheme?):
            return "Not a PostgreSQL URL: its scheme is `\(scheme)`, not postgresql:// or postgres://; \(shape)."
        case .notPostgres(nil):
            return "Not a PostgreSQL URL: it does not start with postgresql:// or postgres://; \(shape)."
        case .fragment:
            return
                "The PostgreSQL URL has a `#` fragment, which a database URL never has; remove it (or write # as %23)."
        case .badEscape(let part):
            return "The PostgreSQL URL's \(part) has a `%` escape that does not decode: write %XX with two hex digits."
        case .badHost(let reason):
            return "The PostgreSQL URL's host part cannot be read: \(reason)."
        case .badPort:
            return "The PostgreSQL URL's port (after the host's `:`, or ?port=) is not a number from 1 to 65535."
        case .missingUser:
            return "The PostgreSQL URL names no user: \(shape), or add ?user=USER."
        case .missingDatabase:
            return "The PostgreSQL URL names no database: \(shape) (the database after the host's `/`)."
        case .badParameter(let name, let reason):
            return "The PostgreSQL URL's parameter `\(name)` \(reason)."
        case .unknownParameter(let name):
            return "The PostgreSQL URL's parameter `\(name)` is not one qbarchive reads "
                + "(host, port, user, password, dbname, sslmode, application_name, connect_timeout)."
        case .socketPathTooLong(let directory):
            return "The PostgreSQL URL's socket directory \(directory) is too long for a unix socket path "
                + "(107 bytes at most, with /.s.PGSQL.PORT): use a shorter directory."
        }
    }
}
