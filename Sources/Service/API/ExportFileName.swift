import Export
import Foundation
import QuickBlox

/// Names of service-made bundles: `export-20240301T101500Z-1a2b3c4d.tar.gz`, and the check that a
/// requested name is one (no path separators, no leading dot), so a download cannot leave the directory.
enum ExportFileName {
    static func make(at time: Int, container: ContainerFormat) -> String {
        let stamp = ISO8601.format(time).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        let suffix = UUID().uuidString.lowercased().prefix(8)
        return "export-\(stamp)-\(suffix).\(container.fileExtension)"
    }

    /// Whether `name` is a bundle (not its `.sha256` checksum file or a stray file).
    static func isBundle(_ name: String) -> Bool {
        ContainerFormat.allCases.contains { name.hasSuffix("." + $0.fileExtension) }
    }

    /// Whether `name` may be downloaded: a bundle, or a bundle's `.sha256` checksum file — never another file
    /// that happens to sit in the folder (an archive, its `-wal`, a signing key, notes).
    static func isDownloadable(_ name: String) -> Bool {
        guard isValid(name) else { return false }
        return isBundle(name) || (name.hasSuffix(".sha256") && isBundle(String(name.dropLast(".sha256".count))))
    }

    /// Whether a regular file (not a symbolic link, a folder or a device) is at `path`.
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// Whether `name` is one ``make(at:container:)`` makes: only those are deleted when they expire, never a
    /// bundle someone else put in the folder.
    static func isServiceMade(_ name: String) -> Bool {
        guard isValid(name), isBundle(name), name.hasPrefix("export-") else { return false }
        let parts = name.dropFirst("export-".count).split(separator: ".", maxSplits: 1)
        guard parts.count == 2 else { return false }
        let stem = parts[0].split(separator: "-")
        return stem.count == 2 && stem[0].count == 16 && stem[0].hasSuffix("Z") && stem[1].count == 8
    }

    static func isValid(_ name: String) -> Bool {
        guard let first = name.first, first != ".", name.count <= 200 else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }
    }
}
