import Foundation
import QuickBlox

extension QuickBloxClient {
    /// One page of `GET /users.json`.
    public func users(page: Int, perPage: Int = 100) async throws(QuickBloxClientError) -> UserPage {
        let json = try await send("GET", "/users.json", query: [("page", String(page)), ("per_page", String(perPage))])
        return try decode(UserPage.init(json:), json, "GET /users.json")
    }

    /// One page of `GET /chat/Dialog.json` with QuickBlox filter parameters.
    public func dialogs(_ parameters: [(String, String)], onBehalfOf user: Int? = nil)
        async throws(QuickBloxClientError)
        -> Page<Dialog>
    {
        let json = try await send("GET", "/chat/Dialog.json", query: parameters, onBehalfOf: user)
        return try decode(Page<Dialog>.init(json:), json, "GET /chat/Dialog.json")
    }

    /// `GET /chat/Dialog.json?count=1`.
    public func dialogCount(_ parameters: [(String, String)] = [], onBehalfOf user: Int? = nil)
        async throws(QuickBloxClientError) -> Int
    {
        let json = try await send("GET", "/chat/Dialog.json", query: parameters + [("count", "1")], onBehalfOf: user)
        return try decode(CountResponse.count(from:), json, "GET /chat/Dialog.json")
    }

    /// One page of `GET /chat/Message.json`, always with `mark_as_read=0`: archiving never marks
    /// anything read, whatever the caller passes.
    public func messages(dialogID: String, _ parameters: [(String, String)], onBehalfOf user: Int? = nil)
        async throws(QuickBloxClientError) -> Page<Message>
    {
        let json = try await send(
            "GET", "/chat/Message.json", query: Self.messageQuery(dialogID, parameters), onBehalfOf: user)
        return try decode(Page<Message>.init(json:), json, "GET /chat/Message.json")
    }

    /// `GET /chat/Message.json?count=1` (with `mark_as_read=0`).
    public func messageCount(dialogID: String, _ parameters: [(String, String)] = [], onBehalfOf user: Int? = nil)
        async throws(QuickBloxClientError) -> Int
    {
        let query = Self.messageQuery(dialogID, parameters + [("count", "1")])
        let json = try await send("GET", "/chat/Message.json", query: query, onBehalfOf: user)
        return try decode(CountResponse.count(from:), json, "GET /chat/Message.json")
    }

    static func messageQuery(_ dialogID: String, _ parameters: [(String, String)]) -> [(String, String)] {
        [("chat_dialog_id", dialogID)] + parameters.filter { $0.0 != "mark_as_read" && $0.0 != "chat_dialog_id" }
            + [("mark_as_read", "0")]
    }

    func decode<T>(
        _ reader: (JSONValue) throws(QuickBloxDecodingError) -> T, _ json: JSONValue, _ endpoint: String
    ) throws(QuickBloxClientError) -> T {
        do { return try reader(json) } catch {
            throw .invalidResponse(endpoint: endpoint, reason: error.localizedDescription)
        }
    }
}
