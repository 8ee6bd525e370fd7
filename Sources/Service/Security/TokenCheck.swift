import Crypto
import Foundation

/// Compares a presented secret with the configured token without leaking, through timing, how much
/// of it matched: both are hashed (fixed length) and the digests compared byte by byte without an
/// early exit.
struct TokenCheck: Sendable {
    private let expected: [UInt8]

    init(token: String) {
        expected = Array(SHA256.hash(data: Data(token.utf8)))
    }

    func accepts(_ presented: some StringProtocol) -> Bool {
        let digest = Array(SHA256.hash(data: Data(presented.utf8)))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, expected) { difference |= a ^ b }
        return difference == 0
    }
}
