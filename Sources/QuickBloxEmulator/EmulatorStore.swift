import Foundation
import QuickBlox

/// Who a request acts as, once authenticated.
struct Principal: Sendable {
    /// `nil` for an application session or an API key without `On-Behalf-Of`.
    var userID: Int?
    /// The session token, when the request used one.
    var token: String?
    /// When the (sliding) session now expires, unix seconds.
    var expiresAt: Double?
}

/// The emulator's data and sessions: the one place its mutable state lives.
///
/// An actor so that pages, writes and live changes interleave safely; reads hand back value
/// copies, and JSON is written outside the actor.
actor EmulatorStore {
    let configuration: EmulatorConfiguration
    var state: EmulatorState
    var sessions: [String: (session: Session, expiresAt: Double)] = [:]
    var usedNonces: Set<String> = []
    var nextSessionID = 1_000_000
    var ids: ObjectIDGenerator
    /// Draws live changes; seeded apart from the data so the same seed gives the same sequence.
    var liveGenerator: DataGenerator
    let blobPolicy: BlobIndex.Policy

    init(configuration: EmulatorConfiguration, state: EmulatorState) {
        self.configuration = configuration
        blobPolicy = BlobIndex.Policy(seed: configuration.seed, publicRate: configuration.publicBlobRate)
        var state = state
        Self.indexBlobs(&state, policy: blobPolicy)
        self.state = state
        ids = ObjectIDGenerator(random: SeededRandom(seed: configuration.seed, stream: 3))
        liveGenerator = DataGenerator(configuration: configuration)
        liveGenerator.random = SeededRandom(seed: configuration.seed, stream: 4)
    }

    /// Registers the blobs of every message already in `state` (generated or loaded), in dump
    /// order so that ids handed out are the same in every run; a fixture's `blob` lines, already
    /// in the index, keep their fields.
    static func indexBlobs(_ state: inout EmulatorState, policy: BlobIndex.Policy) {
        for dialog in state.sortedDialogs {
            for message in state.messages[dialog.id] ?? MessageList(dialogID: dialog.id)
            where !message.attachments.isEmpty {
                state.blobs.register(message, policy: policy, seeded: true)
            }
        }
        for deletion in state.deletions where deletion.kind == "message" {
            if let message = try? Message(json: deletion.record), !message.attachments.isEmpty {
                state.blobs.register(message, policy: policy, seeded: true)
            }
        }
    }

    /// The blob with this uid.
    func blob(uid: String) -> Blob? { state.blobs.blob(uid: uid) }

    /// The blob with this id.
    func blob(id: Int) -> Blob? { state.blobs.blob(id: id) }

    /// A copy of the whole state, for truth dumps (copy-on-write makes it cheap).
    func snapshot() -> EmulatorState { state }

    // MARK: Sessions

    /// `POST /session.json`: checks the signature, timestamp, nonce and credentials, then opens a session.
    func createSession(_ parameters: RequestParameters, now: Double) throws(EmulatorError) -> (Session, Double) {
        for required in ["application_id", "auth_key", "timestamp", "nonce", "signature"]
        where (parameters.string(required) ?? "").isEmpty {
            throw EmulatorError.validation(required, "can't be blank")
        }
        guard parameters.string("application_id") == String(configuration.applicationID),
            parameters.string("auth_key") == configuration.authKey,
            SessionSignature.verify(parameters.pairs, secret: configuration.authSecret)
        else { throw EmulatorError.unexpectedSignature }
        guard let timestamp = parameters.string("timestamp").flatMap({ Int($0) }),
            abs(Double(timestamp) - now) <= Double(configuration.timestampWindow)
        else { throw EmulatorError.badTimestamp }
        guard let nonce = parameters.string("nonce").flatMap({ Int($0) }) else {
            throw EmulatorError.validation("nonce", "is not a number")
        }
        guard usedNonces.insert("\(timestamp):\(nonce)").inserted else { throw EmulatorError.unexpectedNonce }

        var userID = 0
        if let login = parameters.string("user[login]") ?? parameters.string("user[email]") {
            userID = try authenticate(login: login, password: parameters.string("user[password]") ?? "").id
        }
        nextSessionID += 1
        let created = Int(now)
        let session = Session(
            id: nextSessionID, applicationID: configuration.applicationID, userID: userID, token: Self.makeToken(),
            nonce: nonce, ts: timestamp, createdAt: created, updatedAt: created,
            extra: ["_id": .string(String(nextSessionID))])
        let expiresAt = now + configuration.tokenTTL
        sessions[session.token] = (session, expiresAt)
        return (session, expiresAt)
    }

    /// The user with this login or e-mail and password, or 401.
    func authenticate(login: String, password: String) throws(EmulatorError) -> User {
        guard let stored = state.users.values.first(where: { $0.user.login == login || $0.user.email == login }),
            stored.password == password
        else { throw EmulatorError.unauthorized }
        return stored.user
    }

    /// Resolves a token and slides its expiry; unknown or expired tokens are 401.
    func principal(token: String, now: Double) throws(EmulatorError) -> Principal {
        guard let entry = sessions[token], entry.expiresAt > now else {
            sessions[token] = nil
            throw EmulatorError.sessionDoesNotExist
        }
        let expiresAt = now + configuration.tokenTTL
        sessions[token] = (entry.session, expiresAt)
        return Principal(
            userID: entry.session.isUserSession ? entry.session.userID : nil, token: token, expiresAt: expiresAt)
    }

    func session(token: String) -> Session? { sessions[token]?.session }

    func deleteSession(token: String) { sessions[token] = nil }

    /// `POST /login.json`: turns an application session into a user session.
    func login(token: String, login: String, password: String) throws(EmulatorError) -> User {
        let user = try authenticate(login: login, password: password)
        guard var entry = sessions[token] else { throw EmulatorError.sessionDoesNotExist }
        entry.session.userID = user.id
        sessions[token] = entry
        return user
    }

    /// Expires every session at once (the `/_emulator/expire-tokens` test hook).
    func expireAllSessions() -> Int {
        let count = sessions.count
        sessions.removeAll()
        return count
    }

    func userExists(_ id: Int) -> Bool { state.users[id] != nil }

    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<5).map { _ in String(generator.next() as UInt64, radix: 16) }.joined().padding(
            toLength: 40, withPad: "0", startingAt: 0)
    }

    // MARK: Users

    func users(page: Int, perPage: Int) -> UserPage {
        let ids = state.sortedUserIDs
        let start = min(ids.count, (page - 1) * perPage)
        let slice = ids[start..<min(ids.count, start + perPage)]
        return UserPage(
            currentPage: page, perPage: perPage, totalEntries: ids.count,
            items: slice.compactMap { state.users[$0]?.user })
    }

    func user(id: Int) -> User? { state.users[id]?.user }
}
