import Foundation

/// A one-line progress display on standard error while an export runs on a terminal.
struct ExportProgress: Sendable {
    var enabled: Bool

    var update: @Sendable (Int) -> Void {
        let enabled = enabled
        return { count in
            guard enabled else { return }
            FileHandle.standardError.write(Data("\rexporting: \(count) messages…".utf8))
        }
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
