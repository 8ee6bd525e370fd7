import Foundation
import Search
import Testing

/// `@NAME` is a name, never a path: it is checked against a strict pattern and looked up among the regular
/// files the queries folder lists.
@Suite("Saved queries: names and lookup")
struct SavedQueryTests {
    @Test(arguments: [
        "a", "Z", "0", "refunds", "payment-scams", "links_in_private", "A1-b_2", String(repeating: "x", count: 64),
    ])
    func validNames(name: String) {
        #expect(SavedQuery.isValidName(name))
    }

    @Test(arguments: [
        "", "-a", "_a", "a.b", "a/b", "../a", "..", ".", "a b", "a\u{0}", "\u{0}", "a\\b", "/etc/passwd", "é",
        "a%2F", "ａ", "a\n", "a:b", "a@b", String(repeating: "x", count: 65), "a\u{301}", "@a",
    ])
    func invalidNames(name: String) {
        #expect(!SavedQuery.isValidName(name))
    }

    /// Random strings over the characters that matter: a name is valid exactly when the pattern says so.
    @Test func theNamePatternAgreesWithARegularExpression() throws {
        let pattern = try Regex("^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
        let alphabet = Array("aZ09_-./\\%\u{0} é@") + ["\u{301}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...70, using: &generator)
            let name = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(
                SavedQuery.isValidName(name) == (try pattern.wholeMatch(in: name) != nil), "\(name.debugDescription)")
        }
    }

    @Test func onlyListedRegularFilesAreSavedQueries() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("saved-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let folder = root + "/queries"
        try FileManager.default.createDirectory(atPath: folder + "/sub.qbq", withIntermediateDirectories: true)
        try "refund\n".write(toFile: folder + "/good.qbq", atomically: true, encoding: .utf8)
        try "SECRET\n".write(toFile: root + "/outside.qbq", atomically: true, encoding: .utf8)
        try "x\n".write(toFile: folder + "/bad name.qbq", atomically: true, encoding: .utf8)
        try "x\n".write(toFile: folder + "/.hidden.qbq", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/link.qbq", withDestinationPath: root + "/outside.qbq")
        try Data(count: SavedQuery.maximumFileSize + 1).write(to: URL(fileURLWithPath: folder + "/huge.qbq"))
        try "# title: t\n\trefund\tmoney\n".write(toFile: folder + "/tabs.qbq", atomically: true, encoding: .utf8)

        #expect(try SavedQuery.names(in: folder) == ["good", "huge", "tabs"])
        #expect(try SavedQuery.named("@good", in: folder).query == "refund")
        #expect(try SavedQuery.named("tabs", in: folder).query == "refund money")
        #expect(throws: SavedQueryError.unknown(name: "link", known: ["@good", "@huge", "@tabs"])) {
            try SavedQuery.named("@link", in: folder)
        }
        #expect(throws: SavedQueryError.invalidName("../outside")) { try SavedQuery.named("@../outside", in: folder) }
        #expect(throws: SavedQueryError.tooLarge(name: "huge")) { try SavedQuery.named("huge", in: folder) }
        #expect(try SavedQuery.resolve("  @good ", in: folder) == "refund")
        #expect(try SavedQuery.resolve("refund @good", in: folder) == "refund @good")
        for error: SavedQueryError in [
            .invalidName("../x"), .unknown(name: "x", known: []), .unreadable(name: "x"), .tooLarge(name: "x"),
            .empty(name: "x"), .noDirectory(path: folder),
        ] {
            #expect(!(error.errorDescription ?? "").contains(root), "\(error)")
        }
    }
}
