/// Sizes on the command line: a number of bytes, or with a K, M or G suffix (powers of 1024).
enum ByteSize {
    /// `700M` → 734003200; `nil` for anything else (or an overflow).
    static func parse(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        guard let last = text.uppercased().last else { return nil }
        if let unit = units[last] {
            return Int(text.dropLast()).flatMap { $0.multipliedReportingOverflow(by: unit).overflow ? nil : $0 * unit }
        }
        return Int(text)
    }
}
