import ArgumentParser
import Export
import Foundation

/// `qbarchive keygen`: make an Ed25519 key pair for signing bundle manifests.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair for signing export bundles.",
        discussion: """
            Writes the private key to PATH (mode 0600) and the public key to PATH.pub, and prints the public \
            key's fingerprint. Never overwrites an existing file. Keep the private key with whoever makes \
            exports; give the .pub file to whoever verifies them (qbarchive verify --key PATH.pub).

            Exit codes: 0 done, 13 a file exists or cannot be written.

            Example:
              qbarchive keygen keys/compliance && qbarchive export --archive chat.sqlite --sign keys/compliance
            """
    )

    @Argument(help: "Where to write the private key; the public key goes to PATH.pub.") var path: String

    func run() throws {
        do {
            let fingerprint = try SigningKey.generate(at: path)
            print("wrote \(path) (private, keep it safe) and \(path).pub (public); fingerprint \(fingerprint)")
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(13))
        }
    }
}
