import Crypto
import Foundation
import QuickBlox

/// Signs and checks the short-lived storage URLs a download redirects to, as S3 presigned URLs
/// are: `/_storage/{uid}?expires=T&signature=S`, where `S` is HMAC-SHA256 (hex) over
/// `"{uid}\n{T}"` with a key derived from the seed and the auth secret.
struct StorageSigner: Sendable {
    /// Why a storage URL is refused.
    enum Refusal: Equatable {
        /// No signature or expiry, or a signature that does not match (S3: `SignatureDoesNotMatch`).
        case badSignature
        /// A genuine URL past its expiry (S3: `AccessDenied`, "Request has expired").
        case expired
    }

    static let pathPrefix = "/_storage/"

    /// The HMAC key's bytes (`SymmetricKey` is not `Sendable`).
    private let key: [UInt8]
    /// How long a URL stays valid, seconds.
    let lifetime: Double

    init(configuration: EmulatorConfiguration) {
        key = Array(SHA256.hash(data: Array("\(configuration.seed):\(configuration.authSecret):storage".utf8)))
        lifetime = configuration.storageURLTTL
    }

    func signature(uid: String, expires: Int) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Array("\(uid)\n\(expires)".utf8), using: SymmetricKey(data: key))
        return code.map { byte in
            let hex = Array("0123456789abcdef".utf8)
            return String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
    }

    /// The path and query of a storage URL for `uid`, valid until `now + lifetime` (whole seconds,
    /// rounded down, so a lifetime of 0 is already expired).
    func path(uid: String, now: Double) -> String {
        let expires = Int((now + lifetime).rounded(.down))
        let encoded = uid.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? uid
        return "\(Self.pathPrefix)\(encoded)?expires=\(expires)&signature=\(signature(uid: uid, expires: expires))"
    }

    /// Checks a storage request's `expires` and `signature` for `uid`: the signature first, then
    /// the expiry (a URL whose expiry was edited fails its signature).
    ///
    /// - Returns: why the URL is refused, or `nil` when it is good.
    func refusal(uid: String, expires: String?, signature given: String?, now: Double) -> Refusal? {
        guard let expires, let seconds = Int(expires), let given else { return .badSignature }
        let expected = signature(uid: uid, expires: seconds)
        // Compare in full, whatever the first difference, as a signature check should.
        guard given.utf8.count == expected.utf8.count,
            zip(given.utf8, expected.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
        else { return .badSignature }
        return now < Double(seconds) ? nil : .expired
    }
}
