/// Numbers as a person reads them in reports and summaries.
public enum NumberText {
    /// `1234567` as `1,234,567` (the same in every locale: output is not localised).
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
