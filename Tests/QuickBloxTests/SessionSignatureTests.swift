import QuickBlox
import Testing

/// Expected HMAC values were computed independently with
/// `printf '%s' 'MESSAGE' | openssl dgst -sha1 -hmac 'SECRET'`.
@Suite("SessionSignature")
struct SessionSignatureTests {
    static let secret = "9mC8xVdf3BzK7Qp"

    // The three example strings quoted from DOC-YAML (reference §1.1).
    static let appMessage = "application_id=22&auth_key=wJHd4cQSxpQGWx5&nonce=33432&timestamp=1326966962"
    static let userMessage =
        "application_id=22&auth_key=wJHd4cQSxpQGWx5&nonce=33432&timestamp=1326966962"
        + "&user[login]=amigo30&user[password]=amigo30pass"
    static let facebookMessage =
        "application_id=22&auth_key=wJHd4cQSxpQGWx5&keys[token]=AM46dx...&nonce=33432"
        + "&provider=facebook&timestamp=1326966962"

    static let appParameters = [
        ("application_id", "22"), ("auth_key", "wJHd4cQSxpQGWx5"), ("nonce", "33432"), ("timestamp", "1326966962"),
    ]
    static let userParameters = [
        ("user[password]", "amigo30pass"), ("timestamp", "1326966962"), ("user[login]", "amigo30"),
        ("nonce", "33432"), ("auth_key", "wJHd4cQSxpQGWx5"), ("application_id", "22"),
    ]
    static let facebookParameters = [
        ("provider", "facebook"), ("application_id", "22"), ("keys[token]", "AM46dx..."),
        ("timestamp", "1326966962"), ("auth_key", "wJHd4cQSxpQGWx5"), ("nonce", "33432"),
    ]

    // The JS-SDK wire example (reference §1.1): the SDK signs raw values and percent-encodes the body.
    static let jsRawMessage =
        "application_id=76730&auth_key=Hj7dPq2sWn4kT9x&nonce=7334&timestamp=1567349756"
        + "&user[login]=alice&user[password]=p@ss w&rd"
    static let jsRawSignature = "37d2b990a926a85e3813bdf2896096ae7940d267"
    /// HMAC over the still-encoded values (`p%40ss%20w%26rd`): what a client that signs the wrong string sends.
    static let jsEncodedSignature = "f614b1ec4f648f522873d93f65a6d499df657828"
    static let jsFormBody =
        "application_id=76730&auth_key=Hj7dPq2sWn4kT9x&nonce=7334&timestamp=1567349756"
        + "&user%5Blogin%5D=alice&user%5Bpassword%5D=p%40ss%20w%26rd"

    @Test func applicationExampleMessage() {
        #expect(SessionSignature.message(for: Self.appParameters) == Self.appMessage)
    }

    @Test func userExampleMessageIsSortedWhateverTheInputOrder() {
        #expect(SessionSignature.message(for: Self.userParameters) == Self.userMessage)
    }

    @Test func facebookExampleMessage() {
        #expect(SessionSignature.message(for: Self.facebookParameters) == Self.facebookMessage)
    }

    @Test func messageLeavesOutTheSignature() {
        let parameters = Self.appParameters + [("signature", "deadbeef")]
        #expect(SessionSignature.message(for: parameters) == Self.appMessage)
        #expect(SessionSignature.message(for: [("signature", "x")]) == "")
    }

    @Test func messageKeepsValuesRaw() {
        let message = SessionSignature.message(for: [("user[password]", "p@ss w&rd"), ("user[login]", "alice")])
        #expect(message == "user[login]=alice&user[password]=p@ss w&rd")
    }

    @Test(arguments: [
        (SessionSignatureTests.appParameters, "eba6415ae182b329f515b060ef3737a0865d9f40"),
        (SessionSignatureTests.userParameters, "28804374f4f4fa74ace90064da84a1360840cf18"),
        (SessionSignatureTests.facebookParameters, "491ce82e99db7b180d2713c3ba0f7926f7266ec7"),
    ])
    func signsTheExamples(_ parameters: [(String, String)], _ expected: String) {
        #expect(SessionSignature.sign(parameters, secret: Self.secret) == expected)
    }

    @Test func signatureIsFortyLowercaseHexCharacters() {
        let signature = SessionSignature.sign(Self.appParameters, secret: Self.secret)
        #expect(signature.count == 40)
        #expect(signature.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func signingIgnoresAnExistingSignatureParameter() {
        let signed = Self.appParameters + [("signature", "0000")]
        #expect(SessionSignature.sign(signed, secret: Self.secret) == "eba6415ae182b329f515b060ef3737a0865d9f40")
    }

    @Test func differentSecretGivesADifferentSignature() {
        #expect(
            SessionSignature.sign(Self.appParameters, secret: "other-secret")
                == "8f9b4bc6e197b9b3c44b4d6d23c58a8dab9b7f12")
    }

    @Test func verifiesACorrectSignature() {
        let parameters = Self.userParameters + [("signature", "28804374f4f4fa74ace90064da84a1360840cf18")]
        #expect(SessionSignature.verify(parameters, secret: Self.secret))
    }

    @Test func verifyAcceptsUpperCaseHex() {
        let parameters = Self.appParameters + [("signature", "EBA6415AE182B329F515B060EF3737A0865D9F40")]
        #expect(SessionSignature.verify(parameters, secret: Self.secret))
    }

    @Test func verifyRejectsAWrongSecret() {
        let parameters = Self.appParameters + [("signature", "eba6415ae182b329f515b060ef3737a0865d9f40")]
        #expect(!SessionSignature.verify(parameters, secret: "other-secret"))
        #expect(!SessionSignature.verify(parameters, secret: ""))
    }

    @Test func verifyRejectsAMissingSignature() {
        #expect(!SessionSignature.verify(Self.appParameters, secret: Self.secret))
        #expect(!SessionSignature.verify([], secret: Self.secret))
    }

    @Test(arguments: [
        "",
        "eba6415ae182b329f515b060ef3737a0865d9f4",
        "eba6415ae182b329f515b060ef3737a0865d9f400",
        "eba6415ae182b329f515b060ef3737a0865d9f41",
        "fba6415ae182b329f515b060ef3737a0865d9f40",
        "8f9b4bc6e197b9b3c44b4d6d23c58a8dab9b7f12",
    ])
    func verifyRejectsAWrongSignature(_ signature: String) {
        #expect(!SessionSignature.verify(Self.appParameters + [("signature", signature)], secret: Self.secret))
    }

    @Test func verifyRejectsATamperedParameter() {
        var parameters = Self.appParameters + [("signature", "eba6415ae182b329f515b060ef3737a0865d9f40")]
        parameters[2] = ("nonce", "33433")
        #expect(!SessionSignature.verify(parameters, secret: Self.secret))
        let extra =
            Self.appParameters + [
                ("user[login]", "amigo30"), ("signature", "eba6415ae182b329f515b060ef3737a0865d9f40"),
            ]
        #expect(!SessionSignature.verify(extra, secret: Self.secret))
    }

    // MARK: The JS-SDK wire example

    @Test func jsExampleRawMessage() {
        let parameters = QueryString.parse(Self.jsFormBody)
        #expect(SessionSignature.message(for: parameters) == Self.jsRawMessage)
        #expect(SessionSignature.sign(parameters, secret: Self.secret) == Self.jsRawSignature)
    }

    @Test func decodedFormBodyVerifies() {
        let body = Self.jsFormBody + "&signature=" + Self.jsRawSignature
        let parameters = QueryString.parse(body)
        #expect(parameters.first { $0.0 == "user[password]" }?.1 == "p@ss w&rd")
        #expect(SessionSignature.verify(parameters, secret: Self.secret))
    }

    @Test func signatureOverEncodedValuesDoesNotVerify() {
        // A client that signed `user[password]=p%40ss%20w%26rd` sends a signature the server must reject.
        let body = Self.jsFormBody + "&signature=" + Self.jsEncodedSignature
        #expect(!SessionSignature.verify(QueryString.parse(body), secret: Self.secret))
    }

    @Test func undecodedBodyDoesNotVerify() {
        // A server that forgot to URL-decode would see the encoded values and must not accept the raw signature.
        let undecoded = (Self.jsFormBody + "&signature=" + Self.jsRawSignature)
            .split(separator: "&").map { part -> (String, String) in
                let halves = part.split(separator: "=", maxSplits: 1)
                return (String(halves[0]), String(halves[1]))
            }
        #expect(SessionSignature.message(for: undecoded).hasSuffix("&user%5Bpassword%5D=p%40ss%20w%26rd"))
        #expect(SessionSignature.sign(undecoded, secret: Self.secret) == "c26749c3999bb2c73751776e1d8f57973c991803")
        #expect(!SessionSignature.verify(undecoded, secret: Self.secret))
    }
}

@Suite("SessionRequest")
struct SessionRequestTests {
    let secret = "9mC8xVdf3BzK7Qp"

    func flat(_ parameters: [(String, String)]) -> [[String]] { parameters.map { [$0.0, $0.1] } }

    @Test func applicationSessionParameters() {
        let request = SessionRequest(
            applicationID: 22, authKey: "wJHd4cQSxpQGWx5", credentials: .application, timestamp: 1_326_966_962,
            nonce: 33432)
        #expect(
            flat(request.parameters(signedWith: secret)) == [
                ["application_id", "22"], ["auth_key", "wJHd4cQSxpQGWx5"], ["nonce", "33432"],
                ["timestamp", "1326966962"], ["signature", "eba6415ae182b329f515b060ef3737a0865d9f40"],
            ])
    }

    @Test func loginSessionParameters() {
        let request = SessionRequest(
            applicationID: 22, authKey: "wJHd4cQSxpQGWx5", credentials: .login("amigo30", password: "amigo30pass"),
            timestamp: 1_326_966_962, nonce: 33432)
        let parameters = request.parameters(signedWith: secret)
        #expect(SessionSignature.message(for: parameters) == SessionSignatureTests.userMessage)
        #expect(parameters.last?.0 == "signature")
        #expect(parameters.last?.1 == "28804374f4f4fa74ace90064da84a1360840cf18")
        #expect(SessionSignature.verify(parameters, secret: secret))
    }

    @Test func emailSessionParameters() {
        let request = SessionRequest(
            applicationID: 22, authKey: "wJHd4cQSxpQGWx5",
            credentials: .email("amigo30@example.com", password: "amigo30pass"), timestamp: 1_326_966_962, nonce: 33432)
        let parameters = request.parameters(signedWith: secret)
        #expect(
            flat(parameters) == [
                ["application_id", "22"], ["auth_key", "wJHd4cQSxpQGWx5"], ["nonce", "33432"],
                ["timestamp", "1326966962"], ["user[email]", "amigo30@example.com"], ["user[password]", "amigo30pass"],
                ["signature", "ce9c3ebffe8f0ef23a0d3fe56b9895a8d02f210b"],
            ])
    }

    @Test func formBodyMatchesTheJSSDKWireExample() {
        let request = SessionRequest(
            applicationID: 76730, authKey: "Hj7dPq2sWn4kT9x", credentials: .login("alice", password: "p@ss w&rd"),
            timestamp: 1_567_349_756, nonce: 7334)
        let body = request.formBody(signedWith: secret)
        #expect(body == SessionSignatureTests.jsFormBody + "&signature=" + SessionSignatureTests.jsRawSignature)
        #expect(SessionSignature.verify(QueryString.parse(body), secret: secret))
        #expect(!SessionSignature.verify(QueryString.parse(body), secret: "wrong"))
    }
}
