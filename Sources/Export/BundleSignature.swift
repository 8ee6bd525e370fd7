import Crypto
import Foundation
import QuickBlox

/// `manifest.sig`: an Ed25519 signature of the exact bytes of `manifest.json`, with the public key.
///
/// The manifest holds the SHA-256 of every other file, so the signature vouches for the whole bundle.
/// The public key travels inside for convenience; trust comes from comparing its fingerprint (or passing
/// `verify --key`), not from its presence.
enum BundleSignature {
    static func sign(_ manifest: [UInt8], with key: Curve25519.Signing.PrivateKey) throws -> [UInt8] {
        let signature = try key.signature(for: manifest)
        let object = JSONValue.object([
            "algorithm": .string("ed25519"),
            "public_key": .string(key.publicKey.rawRepresentation.base64EncodedString()),
            "signature": .string(signature.base64EncodedString()),
        ])
        return object.serialized() + [10]
    }

    /// Checks a signature file against the manifest bytes; returns the signer's public key.
    static func check(_ signature: [UInt8], manifest: [UInt8]) throws(BundleProblem) -> Curve25519.Signing.PublicKey {
        guard let value = try? JSONValue(parsing: signature), value.serialized() + [10] == signature,
            case .object(let fields) = value, case .string("ed25519")? = fields["algorithm"],
            case .string(let keyText)? = fields["public_key"], let keyBytes = Data(base64Encoded: keyText),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: keyBytes),
            case .string(let signatureText)? = fields["signature"],
            let signatureBytes = Data(base64Encoded: signatureText)
        else { throw BundleProblem(file: "manifest.sig", reason: "is not a qbarchive Ed25519 signature") }
        guard key.isValidSignature(signatureBytes, for: manifest) else {
            throw BundleProblem(file: "manifest.sig", reason: "does not match manifest.json: the manifest was changed")
        }
        return key
    }
}
