import Archive
import ArchiveSQLite
import Foundation
import QueryLanguage
import QuickBlox

/// A seeded random archive for search tests: users, dialogs and messages (some edited, some
/// tombstoned), kept in memory too so that a reference evaluator can answer the same queries.
package struct SearchCorpus {
    /// The `score` custom parameter, by message number: numbers and numeric strings, and values that are no number.
    static let scores: [JSONValue?] = [
        .int(3), .string("3"), .string(" 2.5 "), .string("high"), .string("3abc"), .bool(true), .double(-1.5),
        .string(""), nil, .string("1e1"), .int(-2),
    ]
    package struct Entry {
        package var message: Message
        package var dialog: Dialog
        package var edited: Bool
        package var deleted: Bool
        /// Users the message is recorded hidden for ("delete for me").
        package var hiddenFor: Set<Int> = []
    }

    package static let vocabulary = [
        "refund", "Refunds", "money", "back", "café", "CAFE", "naïve", "hello", "world", "bit.ly/x", "call",
        "me", "at", "+1-555-0100", "scam", "pay", "now", "C++", "vs.", "ok", "Zoë", "e-mail", "x@y.com", "\"quoted\"",
    ]
    /// Words and sentences in many scripts and spellings, for the multilingual differential test: runs of
    /// scripts written without spaces, the same word in other cases, accents, NFC and NFD, Arabic and Hebrew
    /// words with and without their prefixes, emoji with skin tones and variation selectors.
    package static let multilingualVocabulary = [
        "我们明天在北京见面", "北京", "明天见", "东京タワー", "タワー", "こんにちは", "お元気ですか", "ｶﾞｷ", "ガキ",
        "서울에서", "서울", "만나요", "ภาษาไทย", "ไทย", "สวัสดีครับ", "น้ำ", "ສະບາຍດີ", "ខ្មែរ", "မြန်မာ",
        "Ελλάδα", "ΕΛΛΆΔΑ", "ελλάδας", "Καλημέρα", "Ёлка", "елка", "ПРИВЕТ", "привет", "İSTANBUL", "istanbul",
        "ırmak", "Straße", "STRASSE", "Cảm ơn", "đường", "ﬁle", "file", "café", "cafe\u{301}", "CAFÉ",
        "والكتاب", "الكتاب", "كتاب", "بالكتاب", "كِتَابٌ", "كتـاب", "للطالب", "طالب", "والطالب", "והספר", "ספר",
        "שָׁלוֹם", "שלום", "٢٠٢٤", "2024", "🎉", "🎉🎉", "👍🏽", "👍", "❤️", "€", "100€", "refund", "Refunds", "hello",
        "C++", "john.doe@mail.com", "नमस्ते", "हिंदी",
    ]
    package static let attachmentTypes = ["image", "audio", "video", "file"]
    package static let baseTime = 1_709_294_400  // 2024-03-01T12:00:00Z

    package let directory: String
    package let archive: any ArchiveWriter
    package let users: [User]
    package let dialogs: [Dialog]
    package let entries: [Entry]

    package static func objectID(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 24 - hex.count) + hex
    }

    /// Builds an archive of `count` messages from `seed`.
    ///
    /// Message texts are one to six entries of `vocabulary`, each joined to the next by one of `separators`.
    package static func make(
        seed: UInt64, count: Int, backend: TestBackend = .sqlite, vocabulary: [String] = vocabulary,
        separators: [String] = [" "]
    ) async throws -> SearchCorpus {
        var random = SeededRandom(seed: seed)
        let directory = NSTemporaryDirectory() + "qbarchive-search-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let archive = try await backend.create(directory, baseTime)
        let users = (1...6).map { User(id: $0, login: "user\($0)", fullName: "User \($0)", createdAt: 0, updatedAt: 0) }
        try await archive.storeUsers(rawItems: users.map(\.json), at: baseTime)
        let types: [DialogType] = [.private, .group, .publicGroup]
        let dialogs = (0..<5).map { index in
            Dialog(
                id: objectID(0xD00 + index), type: types[index % 3], name: index % 3 == 0 ? nil : "Room \(index) café",
                userID: 1, occupantIDs: Array(Set((0..<3).map { _ in 1 + Int(random.next() % 6) })).sorted(),
                createdAt: baseTime - 86_400, updatedAt: baseTime)
        }
        try await archive.storeDialogs(rawItems: dialogs.map(\.json), at: baseTime)

        var entries: [Entry] = []
        for number in 0..<count {
            let dialog = dialogs[Int(random.next() % UInt64(dialogs.count))]
            var text = ""
            for index in 0..<(1 + Int(random.next() % 6)) {
                if index > 0 {
                    text +=
                        separators.count == 1
                        ? separators[0] : separators[Int(random.next() % UInt64(separators.count))]
                }
                text += vocabulary[Int(random.next() % UInt64(vocabulary.count))]
            }
            let attachments = (0..<Int(random.next() % 3 == 0 ? 1 + random.next() % 2 : 0)).map { _ in
                Attachment(type: attachmentTypes[Int(random.next() % 4)], id: "f\(number)")
            }
            var custom: [String: JSONValue] = [:]
            if random.next() % 3 == 0 { custom["priority"] = .int(Int(random.next() % 5)) }
            if random.next() % 4 == 0 { custom["label"] = .string(random.next() % 2 == 0 ? "urgent" : "Later") }
            // Numbers as clients send them, and texts that are none (chosen by the message's number, so the
            // random stream, and with it the rest of the corpus, stays as it was).
            custom["score"] = Self.scores[number % Self.scores.count]
            let dateSent = baseTime + Int(random.next() % (60 * 86_400)) - 30 * 86_400
            let message = Message(
                id: objectID(number + 1), chatDialogID: dialog.id,
                text: random.next() % 15 == 0 ? nil : text, dateSent: dateSent,
                senderID: random.next() % 20 == 0 ? nil : 1 + Int(random.next() % 6),
                recipientID: dialog.type == .private ? 1 + Int(random.next() % 6) : nil, attachments: attachments,
                readIDs: Array(Set((0..<Int(random.next() % 4)).map { _ in 1 + Int(random.next() % 6) })).sorted(),
                createdAt: dateSent, updatedAt: dateSent + Int(random.next() % 1000), extra: custom)
            entries.append(Entry(message: message, dialog: dialog, edited: false, deleted: false))
        }
        for dialog in dialogs {
            let page = entries.filter { $0.dialog.id == dialog.id }.map(\.message).sorted { $0.dateSent < $1.dateSent }
            try await archive.storeMessages(dialogID: dialog.id, rawItems: page.map(\.json), cursor: nil, at: baseTime)
        }
        // Edit some messages (a revision each) and tombstone others.
        for index in entries.indices where random.next() % 10 == 0 {
            entries[index].message.text = "edited " + (entries[index].message.text ?? "") + " refund"
            entries[index].message.updatedAt = (entries[index].message.updatedAt ?? 0) + 5000
            entries[index].edited = true
            try await archive.storeMessages(
                dialogID: entries[index].dialog.id, rawItems: [entries[index].message.json], cursor: nil,
                at: baseTime + 10)
        }
        let deleted = entries.indices.filter { _ in random.next() % 12 == 0 }
        for index in deleted { entries[index].deleted = true }
        _ = try await archive.tombstoneMessages(ids: deleted.map { entries[$0].message.id }, at: baseTime + 20)
        // Hide some live messages for one or two users (drawn after everything above, so the rest of the
        // corpus is what it was before hides existed).
        for index in entries.indices where !entries[index].deleted && random.next() % 9 == 0 {
            for _ in 0..<(1 + Int(random.next() % 2)) {
                let user = 1 + Int(random.next() % 6)
                entries[index].hiddenFor.insert(user)
                _ = try await archive.recordHidden(
                    messageIDs: [entries[index].message.id], for: user, at: baseTime + 30)
            }
        }
        return SearchCorpus(directory: directory, archive: archive, users: users, dialogs: dialogs, entries: entries)
    }

    package func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
