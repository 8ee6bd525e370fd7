import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

@Suite("Sessions and authentication")
struct SessionTests {
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    @Test("An application session: 201, user_id 0, and the expiry header two hours ahead")
    func applicationSession() async throws {
        try await EmulatorHarness.run { harness in
            let before = Int(Date().timeIntervalSince1970)
            let response = try await harness.request(
                .post, "/session.json", headers: Self.form, body: harness.sessionBody(credentials: .application))
            #expect(response.status == .created)
            let session = try Session(json: response.json)
            #expect(session.userID == 0)
            #expect(session.applicationID == 1)
            #expect(session.token.count == 40)
            #expect(try response.json["session"]?["_id"] != nil)
            let header = try #require(response.headers[HTTPField.Name("QB-Token-ExpirationDate")!])
            #expect(header.hasSuffix(" UTC"))
            let after = Int(Date().timeIntervalSince1970)
            let expires = try #require(ISO8601.parse(header))
            #expect((before + 7200...after + 7200).contains(expires))
        }
    }

    @Test("A user session from a JSON body with a nested user object")
    func userSessionFromJSON() async throws {
        try await EmulatorHarness.run { harness in
            let timestamp = Int(Date().timeIntervalSince1970)
            let request = SessionRequest(
                applicationID: 1, authKey: "emulator-auth-key", credentials: .login("user3", password: "password3"),
                timestamp: timestamp, nonce: 991)
            let signature = request.parameters(signedWith: "emulator-auth-secret").last!.1
            let body = """
                {"application_id":1,"auth_key":"emulator-auth-key","timestamp":\(timestamp),"nonce":991,\
                "signature":"\(signature)","user":{"login":"user3","password":"password3"}}
                """
            let response = try await harness.request(
                .post, "/session", headers: [.contentType: "application/json"], body: body)
            #expect(response.status == .created, "\(response.text)")
            #expect(try Session(json: response.json).userID == 100_003)
        }
    }

    @Test("Raw brackets and e-mail credentials are accepted")
    func rawBracketsAndEmail() async throws {
        try await EmulatorHarness.run { harness in
            let timestamp = Int(Date().timeIntervalSince1970)
            let request = SessionRequest(
                applicationID: 1, authKey: "emulator-auth-key",
                credentials: .email("user2@example.test", password: "password2"), timestamp: timestamp, nonce: 5)
            let raw = request.parameters(signedWith: "emulator-auth-secret").map { "\($0.0)=\($0.1)" }.joined(
                separator: "&")
            #expect(raw.contains("user[email]="))
            let response = try await harness.request(.post, "/session.json", headers: Self.form, body: raw)
            #expect(response.status == .created, "\(response.text)")
            #expect(try Session(json: response.json).userID == 100_002)
        }
    }

    @Test(
        "Session creation errors have QuickBlox's status and body",
        arguments: [
            ("bad signature", 422, #"{"errors":{"base":["Unexpected signature"]}}"#),
            ("bad timestamp", 422, #"{"errors":{"base":["Bad timestamp"]}}"#),
            ("wrong password", 401, #"{"errors":["Unauthorized"]}"#),
            ("unknown login", 401, #"{"errors":["Unauthorized"]}"#),
        ])
    func sessionErrors(case name: String, status: Int, body: String) async throws {
        try await EmulatorHarness.run { harness in
            let now = Int(Date().timeIntervalSince1970)
            let form: String
            switch name {
            case "bad signature": form = harness.sessionBody(secret: "not-the-secret")
            case "bad timestamp": form = harness.sessionBody(timestamp: now - 3 * 3600)
            case "wrong password": form = harness.sessionBody(credentials: .login("user1", password: "nope"))
            default: form = harness.sessionBody(credentials: .login("nobody", password: "password1"))
            }
            let response = try await harness.request(.post, "/session.json", headers: Self.form, body: form)
            #expect(response.status.code == status)
            #expect(response.text == body)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        }
    }

    @Test("A (timestamp, nonce) pair cannot be used twice")
    func nonceReplay() async throws {
        try await EmulatorHarness.run { harness in
            let body = harness.sessionBody(nonce: 4242)
            let first = try await harness.request(.post, "/session.json", headers: Self.form, body: body)
            let replay = try await harness.request(.post, "/session.json", headers: Self.form, body: body)
            #expect(first.status == .created)
            #expect(replay.status == .unprocessableContent)
            #expect(replay.text == #"{"errors":{"base":["Unexpected nonce"]}}"#)
        }
    }

    @Test("GET shows the session with +00:00 dates; DELETE ends it")
    func getAndDeleteSession() async throws {
        try await EmulatorHarness.run { harness in
            let token = try await harness.token()
            let headers: HTTPFields = [HTTPField.Name("QB-Token")!: token]
            let shown = try await harness.request(.get, "/session.json", headers: headers)
            #expect(shown.status == .ok)
            let created = try #require(try shown.json["session"]?["created_at"]?.stringValue)
            #expect(created.hasSuffix("+00:00"))
            #expect(try Session(json: shown.json).userID == 100_001)
            let deleted = try await harness.request(.delete, "/session.json", headers: headers)
            #expect(deleted.status == .ok)
            #expect(deleted.body.readableBytes == 0)
            let after = try await harness.request(.get, "/chat/Dialog.json", headers: headers)
            #expect(after.status == .unauthorized)
            #expect(after.text == #"{"errors":{"base":["Required session does not exist"]}}"#)
            #expect(after.headers[.wwwAuthenticate] != nil)
        }
    }

    @Test("Chat refuses an application session until POST /login.json makes it a user session")
    func applicationSessionNeedsUser() async throws {
        try await EmulatorHarness.run { harness in
            let token = try await harness.token(.application)
            let headers: HTTPFields = [HTTPField.Name("QB-Token")!: token]
            let refused = try await harness.request(.get, "/chat/Dialog.json", headers: headers)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text == #"{"errors":{"base":["Forbidden. Need user."]}}"#)
            // Application sessions may read users.
            #expect(try await harness.request(.get, "/users.json", headers: headers).status == .ok)
            var loginHeaders = headers
            loginHeaders[.contentType] = "application/x-www-form-urlencoded"
            let login = try await harness.request(
                .post, "/login.json", headers: loginHeaders, body: "login=user4&password=password4")
            #expect(login.status == .accepted)
            #expect(try User(json: login.json).id == 100_004)
            #expect(try await harness.request(.get, "/chat/Dialog.json", headers: headers).status == .ok)
        }
    }

    @Test("The token may come as a `token` parameter")
    func tokenParameter() async throws {
        try await EmulatorHarness.run { harness in
            let token = try await harness.token()
            let response = try await harness.request(.get, "/chat/Dialog.json?token=\(token)")
            #expect(response.status == .ok)
        }
    }

    @Test("Every request slides the session's expiry forward")
    func tokenExpirySlides() async throws {
        try await EmulatorHarness.run({ $0.tokenTTL = 600 }) { harness in
            let token = try await harness.token()
            let headers: HTTPFields = [HTTPField.Name("QB-Token")!: token]
            let expiry = HTTPField.Name("QB-Token-ExpirationDate")!
            let first = try await harness.request(.get, "/chat/Dialog.json", headers: headers)
            try await Task.sleep(for: .milliseconds(1100))
            let second = try await harness.request(.get, "/chat/Dialog.json", headers: headers)
            let before = try #require(first.headers[expiry].flatMap(ISO8601.parse))
            let after = try #require(second.headers[expiry].flatMap(ISO8601.parse))
            #expect(after > before)
        }
    }

    @Test("A session unused for longer than the TTL no longer exists")
    func tokenExpiry() async throws {
        try await EmulatorHarness.run({ $0.tokenTTL = 1 }) { harness in
            let token = try await harness.token()
            try await Task.sleep(for: .seconds(2))
            let expired = try await harness.request(
                .get, "/chat/Dialog.json", headers: [HTTPField.Name("QB-Token")!: token])
            #expect(expired.status == .unauthorized)
            #expect(expired.text == #"{"errors":{"base":["Required session does not exist"]}}"#)
        }
    }

    @Test("The expire-tokens hook ends every session")
    func expireTokensHook() async throws {
        try await EmulatorHarness.run { harness in
            let token = try await harness.token()
            let expire = try await harness.request(.post, "/_emulator/expire-tokens")
            #expect(try expire.json["expired"] == 1)
            let after = try await harness.request(
                .get, "/chat/Dialog.json", headers: [HTTPField.Name("QB-Token")!: token])
            #expect(after.status == .unauthorized)
        }
    }

    @Test("API keys: a wrong key is 401; no On-Behalf-Of is an application on chat; an unknown user is 422")
    func apiKeys() async throws {
        try await EmulatorHarness.run { harness in
            let wrong = try await harness.request(.get, "/chat/Dialog.json", headers: [.authorization: "ApiKey nope"])
            #expect(wrong.status == .unauthorized)
            let noUser = try await harness.request(
                .get, "/chat/Dialog.json", headers: [.authorization: "ApiKey \(EmulatorHarness.apiKey)"])
            #expect(noUser.status == .unprocessableContent)
            #expect(noUser.text == #"{"errors":{"base":["Forbidden. Need user."]}}"#)
            let unknown = try await harness.request(.get, "/chat/Dialog.json", headers: EmulatorHarness.asUser(999))
            #expect(unknown.status == .unprocessableContent)
            let users = try await harness.request(
                .get, "/users.json", headers: [.authorization: "ApiKey \(EmulatorHarness.apiKey)"])
            #expect(users.status == .ok)
        }
    }

    @Test("Without --api-key, API-key requests are refused")
    func apiKeyDisabled() async throws {
        try await EmulatorHarness.run({ $0.apiKey = nil }) { harness in
            let response = try await harness.request(.get, "/users.json", headers: EmulatorHarness.asUser(100_001))
            #expect(response.status == .unauthorized)
        }
    }
}
