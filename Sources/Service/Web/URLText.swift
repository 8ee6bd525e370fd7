import Foundation

/// Percent-encoding for values put into URLs: everything but RFC 3986's unreserved characters, so
/// `&`, `=`, `+`, `#` and `/` in a query or an id can never change the URL's structure.
enum URLText {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
