#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` with a UTF-8 character type locale on the current thread only.
///
/// libarchive converts entry names between the locale's character set and UTF-8 (pax `path`
/// records, the zip UTF-8 flag). A Swift process usually runs in the "C" locale, where any non-ASCII
/// name fails to convert, and libarchive 3.6.2's pax writer then even dereferences a NULL name.
/// `uselocale` changes only the calling thread, so other threads and the process locale are untouched.
func withUTF8Locale<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    guard let locale = utf8Locale.value, let previous = uselocale(locale) else { return try body() }
    defer { uselocale(previous) }
    return try body()
}

/// Whether a UTF-8 locale could be created; without one only ASCII names are safe.
var isUTF8LocaleAvailable: Bool { utf8Locale.value != nil }

/// A process-wide, never freed `locale_t` for "C.UTF-8" (or the first UTF-8 locale found).
private final class UTF8Locale: @unchecked Sendable {
    // Immutable after init; locale_t objects may be used by any thread.
    let value: locale_t?

    init() {
        var found: locale_t?
        for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8", "UTF-8"] {
            if let locale = newlocale(LC_CTYPE_MASK, name, nil) {
                found = locale
                break
            }
        }
        value = found
    }
}

private let utf8Locale = UTF8Locale()
