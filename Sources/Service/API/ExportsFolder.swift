import Foundation

/// The folder `POST /api/exports` writes into, and the rules that keep it bounded: a retention period,
/// a byte quota and a bundle count (``ServiceLimits``).
struct ExportsFolder {
    let path: String
    let limits: ServiceLimits

    /// The bundles and bytes (bundles, checksum files and unfinished files alike) the folder holds.
    func usage() -> (bundles: Int, bytes: Int) {
        var bundles = 0
        var bytes = 0
        for (name, status) in entries() {
            if ExportFileName.isBundle(name), !name.hasPrefix(".") { bundles += 1 }
            bytes += Int(status.st_size)
        }
        return (bundles, bytes)
    }

    /// Deletes the bundles the service made (and their checksum files) older than the retention period and
    /// returns their names; other files in the folder are counted in the quota but never deleted.
    func expire(now: Int) -> [String] {
        var removed: [String] = []
        for (name, status) in entries()
        where ExportFileName.isServiceMade(name) && Int(status.st_mtim.tv_sec) < now - limits.exportsRetention {
            if unlink(path + "/" + name) == 0 {
                unlink(path + "/" + name + ".sha256")
                removed.append(name)
            }
        }
        return removed.sorted()
    }

    /// Removes what exports of processes that no longer run left behind: staging directories
    /// (`.qbarchive-staging-PID-…`) and unfinished files (`.NAME.partial-PID`).
    func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names where name.hasPrefix(".") {
            let pid: Int32?
            if name.hasPrefix(".qbarchive-staging-") {
                pid = Int32(name.dropFirst(".qbarchive-staging-".count).prefix { $0.isNumber })
            } else if let range = name.range(of: ".partial-", options: .backwards) {
                pid = Int32(name[range.upperBound...])
            } else {
                pid = nil
            }
            guard let pid, pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: path + "/" + name)
        }
    }

    /// The regular files of the folder with their `lstat`, staging directories' contents included.
    private func entries() -> [(String, stat)] {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
        var result: [(String, stat)] = []
        while let name = enumerator.nextObject() as? String {
            var status = stat()
            guard lstat(path + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            result.append((name, status))
        }
        return result
    }
}
