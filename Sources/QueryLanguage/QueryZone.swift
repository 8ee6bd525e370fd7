import Foundation

/// The time zone a search reads dates in and writes them in (`--tz`, `tz=` in the API).
///
/// UTC unless asked: a saved query, a cron job and a colleague on another continent then mean the same
/// messages by `on:2024-03-01`. `local` is the machine's zone (`TZ`); an IANA name (`Europe/Berlin`) follows
/// that place's daylight saving time; a fixed offset (`+02:00`, `-0530`, `+5`) never changes.
public enum QueryZone {
    /// The zone `text` names, or `nil` when it names none.
    public static func named(_ text: String) -> TimeZone? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "utc", "z", "gmt", "": return QueryDate.utc
        case "local": return TimeZone.current
        default: break
        }
        if let first = trimmed.first, first == "+" || first == "-" {
            let digits = trimmed.dropFirst().filter { $0 != ":" }
            guard (1...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                trimmed.dropFirst().filter({ $0 == ":" }).count <= 1
            else { return nil }
            let hourDigits = digits.count <= 2 ? digits : String(digits.prefix(digits.count - 2))
            let hours = Int(hourDigits) ?? 99
            let minutes = digits.count <= 2 ? 0 : Int(String(digits.suffix(2))) ?? 99
            guard hours <= 14, minutes < 60 else { return nil }
            let seconds = (hours * 3_600 + minutes * 60) * (first == "-" ? -1 : 1)
            return TimeZone(secondsFromGMT: seconds)
        }
        guard trimmed.contains("/") || trimmed.allSatisfy({ $0.isLetter }) else { return nil }
        return TimeZone(identifier: trimmed)
    }

    /// What a zone may be, for an error's hint.
    public static let hint = "give UTC, local, an IANA name such as Europe/Berlin, or an offset such as +02:00"

    /// The zone's name as a person reads it: `UTC`, `Europe/Berlin`, `+02:00`.
    public static func name(_ zone: TimeZone) -> String {
        if zone == QueryDate.utc || ["UTC", "GMT"].contains(zone.identifier) { return "UTC" }
        return zone.identifier
    }
}
