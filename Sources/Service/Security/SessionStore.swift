import Crypto
import Foundation

/// Login sessions of the web UI: a random id in an `HttpOnly`, `SameSite=Strict` cookie, mapped to
/// the name given at login. Kept in memory: a restart asks people to log in again, which is fine for
/// a moderation tool and keeps no credential on disk.
actor SessionStore {
    private struct Session {
        var name: String
        var expires: Int
    }

    private var sessions: [String: Session] = [:]
    private let lifetime: Int

    init(lifetime: Int) {
        self.lifetime = lifetime
    }

    /// Starts a session for `name` and returns its id (256 random bits, hex).
    func open(name: String, now: Int) -> String {
        sessions = sessions.filter { $0.value.expires > now }
        let id = SymmetricKey(size: .bits256).withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        sessions[id] = Session(name: name, expires: now + lifetime)
        return id
    }

    /// The name of a live session, or `nil` when the id is unknown or expired.
    func name(of id: String, now: Int) -> String? {
        guard let session = sessions[id] else { return nil }
        guard session.expires > now else {
            sessions[id] = nil
            return nil
        }
        return session.name
    }

    func close(_ id: String) {
        sessions[id] = nil
    }
}
