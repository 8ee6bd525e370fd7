import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// Renders the web UI's pages from the Mustache templates compiled into the binary.
///
/// Every value goes through `{{ }}`, which HTML-escapes it: message text, names and queries are
/// hostile input. The only unescaped insertions are the page body into the layout and the SVG charts,
/// both produced by this program from escaped parts.
struct PageRenderer: Sendable {
    let library: MustacheLibrary
    let version: String
    let loginRequired: Bool

    static let templates: [(String, [UInt8])] = [
        ("layout", PackageResources.layout_mustache), ("search", PackageResources.search_mustache),
        ("transcript", PackageResources.transcript_mustache), ("dialogs", PackageResources.dialogs_mustache),
        ("dashboard", PackageResources.dashboard_mustache), ("login", PackageResources.login_mustache),
        ("error", PackageResources.error_mustache), ("message", PackageResources.message_mustache),
        // One rendering of a message's text and attachments, shared by search, transcripts and history.
        ("message-text", PackageResources.message_text_mustache),
        ("message-attachments", PackageResources.message_attachments_mustache),
    ]

    static let stylesheet = PackageResources.app_css

    init(version: String, loginRequired: Bool) throws {
        var library = MustacheLibrary()
        for (name, bytes) in Self.templates {
            try library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        self.library = library
        self.version = version
        self.loginRequired = loginRequired
    }

    /// The layout around a page.
    private struct Layout {
        var title: String
        var body: String
        var version: String
        var nav: [NavItem]
        var showLogout: Bool
        var actor: String?
    }

    private struct NavItem {
        var href: String
        var label: String
        var current: Bool
    }

    /// A whole HTML page: `template` rendered with `view`, inside the layout.
    func page(
        _ template: String, title: String, view: Any, section: String, actor: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        let body = library.render(view, withTemplate: template) ?? ""
        let nav = [("/search", "Search"), ("/dialogs", "Dialogs"), ("/dashboard", "Dashboard")].map {
            NavItem(href: $0.0, label: $0.1, current: $0.0 == section)
        }
        // A <title> cannot hold markup to isolate a name, so bidirectional controls are dropped from it.
        let title = String(
            String.UnicodeScalarView(
                title.unicodeScalars.filter {
                    !(0x202A...0x202E).contains($0.value) && !(0x2066...0x2069).contains($0.value)
                }
            ))
        let layout = Layout(
            title: title, body: body, version: version, nav: section == "/login" ? [] : nav,
            showLogout: loginRequired && section != "/login", actor: loginRequired ? actor : nil)
        let html = library.render(layout, withTemplate: "layout") ?? ""
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    private struct ErrorView {
        var status: Int
        var reason: String
        var message: String
        var link: String?
    }

    /// An error page for a failed HTML request, with a link to follow when there is one.
    func error(_ error: ServiceError, actor: String?, link: String? = nil) -> Response {
        var response = page(
            "error", title: "\(error.status.code) \(error.status.reasonPhrase)",
            view: ErrorView(
                status: error.status.code, reason: error.status.reasonPhrase, message: error.message, link: link),
            section: "", actor: actor, status: error.status)
        response.headers.append(contentsOf: error.headers)
        return response
    }
}
