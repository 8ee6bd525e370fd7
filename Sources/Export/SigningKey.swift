import Crypto
import Foundation

/// Ed25519 key files for signing bundle manifests (swift-crypto).
///
/// A private key file holds one line, `qbarchive-ed25519-private BASE64`, and is created with mode 0600;
/// the public key file beside it (`NAME.pub`) holds `qbarchive-ed25519-public BASE64`. Plain text so that
/// an auditor can read, compare and pass the public key on by e-mail.
public enum SigningKey {
    static let privateTag = "qbarchive-ed25519-private"
    static let publicTag = "qbarchive-ed25519-public"

    /// Writes a new key pair to `path` and `path.pub` (creating the directory, mode 0700, when missing);
    /// refuses to overwrite either file.
    /// - Returns: the public key's fingerprint.
    public static func generate(at path: String) throws(ExportError) -> String {
        let key = Curve25519.Signing.PrivateKey()
        for existing in [path, path + ".pub"] where FileManager.default.fileExists(atPath: existing) {
            throw ExportError.cannotWrite(path: existing, reason: "it already exists; keys are never overwritten")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ExportError.cannotWrite(path: directory, reason: error.localizedDescription)
        }
        try write(path, "\(privateTag) \(key.rawRepresentation.base64EncodedString())\n", mode: 0o600)
        try write(path + ".pub", "\(publicTag) \(key.publicKey.rawRepresentation.base64EncodedString())\n", mode: 0o644)
        return fingerprint(key.publicKey)
    }

    /// Reads a private key file.
    public static func loadPrivate(_ path: String) throws(ExportError) -> Curve25519.Signing.PrivateKey {
        let bytes = try field(path, tag: privateTag)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) else {
            throw ExportError.badKey(path: path, reason: "not a 32-byte Ed25519 private key")
        }
        return key
    }

    /// Reads a public key file.
    public static func loadPublic(_ path: String) throws(ExportError) -> Curve25519.Signing.PublicKey {
        let bytes = try field(path, tag: publicTag)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: bytes) else {
            throw ExportError.badKey(path: path, reason: "not a 32-byte Ed25519 public key")
        }
        return key
    }

    /// The first 16 hex digits of the SHA-256 of the public key: what people compare.
    public static func fingerprint(_ key: Curve25519.Signing.PublicKey) -> String {
        SHA256.hash(data: key.rawRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    private static func field(_ path: String, tag: String) throws(ExportError) -> Data {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ExportError.badKey(path: path, reason: "it cannot be read")
        }
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard parts.count == 2, parts[0] == tag, let bytes = Data(base64Encoded: String(parts[1])) else {
            throw ExportError.badKey(path: path, reason: "it is not a `\(tag)` key file")
        }
        return bytes
    }

    private static func write(_ path: String, _ text: String, mode: mode_t) throws(ExportError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Foundation.write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
