import QuickBlox
import Testing

@Suite("Page")
struct PageTests {
    @Test func dialogListEnvelope() throws {
        let page = try Page<Dialog>(json: Fixture.json("dialog_list"))
        #expect(page.totalEntries == 6)
        #expect(page.skip == 0)
        #expect(page.limit == 2)
        #expect(page.items.map(\.id) == ["5d75393ba28f9a17e1cb0f9e"])
        #expect(page.rawItems == [try Fixture.item("dialog_list", 0)])
        #expect(page.json == (try Fixture.json("dialog_list")))
    }

    @Test func messageListHasNoTotalEntries() throws {
        let json = try Fixture.json("message_list")
        let page = try Page<Message>(json: json)
        #expect(page.totalEntries == nil)
        #expect(page.skip == 0)
        #expect(page.limit == 100)
        #expect(page.items.count == 2)
        #expect(page.items[1].extra["age"] == "25")
        #expect(page.json == json)
        #expect(page.json.keys == ["skip", "limit", "items"])
    }

    @Test func rawItemsAreKeptExactlyAsSent() throws {
        let item: JSONValue = [
            "_id": "a", "chat_dialog_id": "d", "date_sent": "1567971414.5", "created_at": "2019-09-08T19:36:54+00:00",
        ]
        let page = try Page<Message>(json: ["skip": 0, "limit": 100, "items": [item]])
        #expect(page.rawItems == [item])
        #expect(page.items[0].dateSent == 1_567_971_414)
    }

    @Test func missingSkipAndLimitDefault() throws {
        let page = try Page<Dialog>(json: ["items": [["_id": "a", "type": 3], ["_id": "b", "type": 2]]])
        #expect(page.skip == 0)
        #expect(page.limit == 2)
        #expect(page.totalEntries == nil)
    }

    @Test func echoedLimitIsTrusted() throws {
        let page = try Page<Dialog>(json: ["skip": "100", "limit": 100, "items": [], "total_entries": "250"])
        #expect(page.skip == 100)
        #expect(page.limit == 100)
        #expect(page.totalEntries == 250)
        #expect(page.items.isEmpty)
    }

    static let withoutItems: [JSONValue] = [["skip": 0], ["items": nil], ["items": ["count": 3]], ["items": "x"]]

    @Test(arguments: PageTests.withoutItems)
    func missingItemsIsNamed(_ json: JSONValue) throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try Page<Message>(json: json) }
        #expect(error?.kind == "message list")
        #expect(error?.field == "items")
    }

    @Test func nonObjectEnvelope() throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try Page<Dialog>(json: []) }
        #expect(error?.kind == "dialog list")
    }

    @Test func badItemErrorNamesTheItemField() throws {
        let json: JSONValue = ["items": [["_id": "a", "chat_dialog_id": "d", "date_sent": 1], ["_id": "b"]]]
        let error = #expect(throws: QuickBloxDecodingError.self) { try Page<Message>(json: json) }
        #expect(error?.kind == "message")
        #expect(error?.field == "chat_dialog_id")
    }

    @Test func memberwiseInitializer() throws {
        let dialog = try Dialog(json: Fixture.item("dialog_list", 0))
        let page = Page(totalEntries: 6, skip: 0, limit: 2, items: [dialog])
        #expect(page.rawItems == [dialog.json])
        #expect(page.json == (try Fixture.json("dialog_list")))
        #expect(Page<Message>(skip: 0, limit: 100, items: []).json.jsonString == #"{"items":[],"limit":100,"skip":0}"#)
    }
}

@Suite("UserPage")
struct UserPageTests {
    static let json: JSONValue = [
        "current_page": 1, "per_page": 10, "total_entries": 2,
        "items": [
            ["user": ["id": 1, "login": "alice", "full_name": nil, "created_at": "2019-09-01T14:55:56Z"]],
            ["user": ["id": 2, "login": "bob", "full_name": "Bob", "created_at": nil, "blob_id": 5]],
        ],
    ]

    @Test func decodesWrappedUsers() throws {
        let page = try UserPage(json: Self.json)
        #expect(page.currentPage == 1)
        #expect(page.perPage == 10)
        #expect(page.totalEntries == 2)
        #expect(page.items.map(\.login) == ["alice", "bob"])
        #expect(page.items[0].createdAt == 1_567_349_756)
        #expect(page.items[1].extra == ["blob_id": 5])
        #expect(page.rawItems == Self.json["items"]?.arrayValue?.compactMap { $0["user"] })
        #expect(page.json == Self.json)
    }

    @Test func defaultsWhenTheEnvelopeIsSparse() throws {
        let page = try UserPage(json: ["items": [["id": 7, "login": "x"]]])
        #expect(page.currentPage == 1)
        #expect(page.perPage == 1)
        #expect(page.totalEntries == 1)
        #expect(page.items.map(\.id) == [7])
        #expect(page.json["items"] == [["user": ["id": 7, "login": "x"]]])
    }

    @Test func missingItemsIsNamed() throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try UserPage(json: ["current_page": 1]) }
        #expect(error?.kind == "user list")
        #expect(error?.field == "items")
    }

    @Test func memberwiseInitializer() throws {
        let user = User(id: 1, login: "alice", fullName: nil, createdAt: nil, updatedAt: nil)
        let page = UserPage(currentPage: 2, perPage: 50, totalEntries: 51, items: [user])
        #expect(page.json["items"] == [["user": user.json]])
        #expect(try UserPage(json: page.json) == page)
    }
}

@Suite("CountResponse")
struct CountResponseTests {
    @Test func documentedForm() throws {
        #expect(try CountResponse.count(from: Fixture.json("count_messages")) == 42)
    }

    static let forms: [(JSONValue, Int)] = [
        (["items": ["count": 0]], 0),
        (["items": ["count": "17"]], 17),
        (["count": 5], 5),
        (["count": "6"], 6),
        (["total_entries": 7, "skip": 0, "limit": 100, "items": []], 7),
        (["items": ["count": 3], "count": 99], 3),
    ]

    @Test(arguments: CountResponseTests.forms)
    func acceptedForms(_ json: JSONValue, _ expected: Int) throws {
        #expect(try CountResponse.count(from: json) == expected)
    }

    static let otherShapes: [JSONValue] = [[:], ["items": []], ["items": ["count": nil]], ["count": "many"], "42"]

    @Test(arguments: CountResponseTests.otherShapes)
    func otherShapesThrow(_ json: JSONValue) throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try CountResponse.count(from: json) }
        #expect(error?.kind == "count")
    }

    @Test func writesTheDocumentedForm() throws {
        #expect(CountResponse.json(count: 42).jsonString == (try Fixture.text("count_messages")))
        #expect(try CountResponse.count(from: CountResponse.json(count: 0)) == 0)
    }
}
