/// Durations on the command line: seconds, or a number with `s`, `m`, `h`, `d` or `w` (`90`, `15m`, `26h`, `7d`,
/// `26w`). Months and years are left out: their length depends on the calendar.
enum DurationText {
    /// `7d` → 604800 (seconds); `nil` for anything else, a negative number or an overflow.
    static func seconds(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let last = text.lowercased().last else { return nil }
        let (digits, unit) = units[last].map { (text.dropLast(), $0) } ?? (Substring(text), 1)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), value >= 0 else { return nil }
        let (seconds, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : seconds
    }
}
