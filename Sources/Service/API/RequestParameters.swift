import Hummingbird

/// Reads and checks query-string parameters, naming the parameter and the accepted range when wrong.
struct RequestParameters {
    let parameters: Parameters

    init(_ request: Request) {
        parameters = request.uri.queryParameters
    }

    func string(_ name: String) -> String? {
        parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
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
