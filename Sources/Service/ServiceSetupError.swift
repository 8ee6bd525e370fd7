import Foundation

/// Why the service refuses to start: each case says what to change.
public enum ServiceSetupError: Error, LocalizedError, Sendable, Hashable {
    /// Binding beyond loopback without a token would publish the archive to the network.
    case tokenRequired(host: String)
    case tokenTooShort(length: Int)
    case invalidPort(Int)
    /// A limit (timeout, concurrency, quota) that cannot work.
    case invalidLimit(String)
    /// The archive could not be opened for the audit trail (read-only file or directory).
    case auditUnavailable(path: String, reason: String)
    /// The read replica (`--read-url`) could not be opened: unreachable, or no complete archive there.
    case replicaUnavailable(location: String, reason: String)
    /// The read replica holds another archive than `--archive`: searches would not show what is audited.
    case replicaMismatch(archive: String, replica: String)

    public var errorDescription: String? {
        switch self {
        case .tokenRequired(let host):
            return """
                refusing to listen on \(host) without --token: anyone who can reach it could read the archive. \
                Use --host 127.0.0.1 (the default) behind a reverse proxy, or pass --token (at least \
                \(ServiceConfiguration.minimumTokenLength) characters; QBARCHIVE_TOKEN in the environment keeps it \
                out of the process list)
                """
        case .tokenTooShort(let length):
            return "the token is \(length) characters; use at least \(ServiceConfiguration.minimumTokenLength) "
                + "(for example: openssl rand -hex 24)"
        case .invalidPort(let port):
            return "--port must be 0...65535 (got \(port))"
        case .invalidLimit(let message):
            return message
        case .auditUnavailable(let path, let reason):
            return "cannot write the audit trail in \(path): \(reason). The service records every search, view "
                + "and export; give it write access to the archive file and its directory (WAL)"
        case .replicaUnavailable(let location, let reason):
            return "cannot read the archive from the replica \(location) (--read-url): \(reason)"
        case .replicaMismatch(let archive, let replica):
            return "--read-url \(replica) holds another archive than --archive \(archive) (their archive ids "
                + "differ); give the URL of a replica of --archive's database, or leave --read-url out"
        }
    }
}
