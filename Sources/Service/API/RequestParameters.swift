import Hummingbird

/// Reads and checks query-string parameters, naming the parameter and the accepted range when wrong.
///
/// Decoded here as `application/x-www-form-urlencoded` (`+` is a space), which is what browsers send
/// when the search form is submitted; Hummingbird's `queryParameters` keeps `+` as is.
struct RequestParameters {
    let fields: [String: String]

    init(_ request: Request) {
        fields = FormEncoding.fields(request.uri.query ?? "")
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
