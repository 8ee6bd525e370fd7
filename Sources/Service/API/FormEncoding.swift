import Foundation

/// `application/x-www-form-urlencoded` decoding, for query strings and the login form.
enum FormEncoding {
    /// The fields of `text` (`a=1&b=x+y`); a repeated name keeps its first value. `invalid` names the
    /// fields whose value is not percent-encoded UTF-8 (such a value is left out, never guessed at).
    static func fields(_ text: String) -> (fields: [String: String], invalid: [String]) {
        var fields: [String: String] = [:]
        var invalid: [String] = []
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { continue }
            guard let value = parts.count > 1 ? decode(parts[1]) : "" else {
                invalid.append(name)
                continue
            }
            if fields[name] == nil { fields[name] = value }
        }
        return (fields, invalid)
    }

    static func decode(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
