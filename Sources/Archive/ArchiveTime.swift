import Foundation

/// Time as the archive records it: unix seconds, in every table of every backend.
public enum ArchiveTime {
    /// The current time in unix seconds.
    public static func now() -> Int {
        Int(Date().timeIntervalSince1970)
    }
}
