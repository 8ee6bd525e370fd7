import Hummingbird

/// Reads and checks query-string parameters, naming the parameter and the accepted range when wrong.
///
/// Decoded here as `application/x-www-form-urlencoded` (`+` is a space), which is what browsers send
/// when the search form is submitted; Hummingbird's `queryParameters` keeps `+` as is.
struct RequestParameters {
    let fields: [String: String]

    /// - Throws: a 400 naming the parameter whose value is not percent-encoded UTF-8: searching for
    ///   replacement characters instead would be a wrong answer that looks like "no results".
    init(_ request: Request) throws {
        let parsed = FormEncoding.fields(request.uri.query ?? "")
        if let name = parsed.invalid.first {
            throw ServiceError.badRequest("\(name) is not valid UTF-8 (percent-encode the UTF-8 bytes of the text)")
        }
        fields = parsed.fields
    }

    func string(_ name: String) -> String? {
        fields[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    func int(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = string(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw ServiceError.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \(text))")
        }
        return number
    }
}
