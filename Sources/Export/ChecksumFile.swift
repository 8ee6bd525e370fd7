import Foundation

/// The checksum file written beside a bundle (`BUNDLE.sha256`), in the line format of GNU `sha256sum`, so that
/// `sha256sum -c BUNDLE.sha256` checks the bundle without qbarchive.
///
/// One line: 64 hexadecimal digits, two spaces (or a space and `*`, binary mode), the file's name. As in
/// `sha256sum`, a name holding a backslash or a line break is written with `\\`, `\n` and `\r` and the line
/// starts with a backslash. Written by hand: the format is one line, and no library we use reads it.
public struct ChecksumFile: Equatable, Sendable {
    /// The SHA-256 the file gives, in lowercase hexadecimal.
    public var sha256: String
    /// The name of the file it describes, as `sha256sum -c` would look it up.
    public var name: String

    public init(sha256: String, name: String) {
        self.sha256 = sha256
        self.name = name
    }

    /// The file's text: one line, ending with a line break.
    public var text: String {
        let escaped = name.contains(where: { $0 == "\\" || $0 == "\n" || $0 == "\r" })
        guard escaped else { return "\(sha256)  \(name)\n" }
        var name = ""
        for character in self.name.unicodeScalars {
            switch character {
            case "\\": name += "\\\\"
            case "\n": name += "\\n"
            case "\r": name += "\\r"
            default: name.unicodeScalars.append(character)
            }
        }
        return "\\\(sha256)  \(name)\n"
    }

    /// Reads a checksum file's text.
    /// - Throws: a reason a user can act on, when the text is not exactly one `sha256sum` line.
    public init(parsing text: String) throws(Malformed) {
        var line = Substring(text)
        if line.hasSuffix("\n") { line.removeLast() }
        guard !line.isEmpty else { throw Malformed("is empty") }
        guard !line.contains(where: { $0 == "\n" || $0 == "\r" }) else {
            throw Malformed("holds more than one line; it must name only the bundle beside it")
        }
        let escaped = line.hasPrefix("\\")
        if escaped { line.removeFirst() }
        let digits = line.prefix(64)
        guard digits.count == 64, digits.allSatisfy(\.isHexDigit), digits.allSatisfy(\.isASCII) else {
            throw Malformed("does not start with a SHA-256 (64 hexadecimal digits)")
        }
        let rest = line.dropFirst(64)
        guard rest.hasPrefix("  ") || rest.hasPrefix(" *"), rest.count > 2 else {
            throw Malformed("does not name a file after its SHA-256 (the sha256sum format: DIGEST, two spaces, NAME)")
        }
        var name = String(rest.dropFirst(2))
        if escaped {
            var unescaped = ""
            var scalars = name.unicodeScalars.makeIterator()
            while let scalar = scalars.next() {
                guard scalar == "\\" else {
                    unescaped.unicodeScalars.append(scalar)
                    continue
                }
                switch scalars.next() {
                case "\\": unescaped += "\\"
                case "n": unescaped += "\n"
                case "r": unescaped += "\r"
                default: throw Malformed("escapes its file name with an unknown sequence")
                }
            }
            name = unescaped
        }
        self.init(sha256: digits.lowercased(), name: name)
    }

    /// Why a checksum file could not be read.
    public struct Malformed: Error, Equatable, Sendable {
        public var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
