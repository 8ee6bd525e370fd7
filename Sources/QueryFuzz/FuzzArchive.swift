import Archive
import Foundation
import QuickBlox

/// A small archive in many scripts for the fuzzed queries to run against: users, dialogs and messages.
enum FuzzArchive {
    static func fill(_ archive: any ArchiveWriter) async throws {
        let time = 1_709_294_400
        let users = (1...6).map { User(id: $0, login: "user\($0)", fullName: "User \($0)", createdAt: 0, updatedAt: 0) }
        _ = try await archive.storeUsers(users.map { ($0, $0.json) }, observedAt: time)
        let dialogs = (0..<3).map { index in
            Dialog(
                id: "00000000000000000000d00\(index)", type: [.private, .group, .publicGroup][index],
                name: index == 0 ? nil : "Room \(index)", userID: 1, occupantIDs: [1, 2, 3], createdAt: time,
                updatedAt: time)
        }
        _ = try await archive.storeDialogs(dialogs.map { ($0, $0.json) }, observedAt: time)
        let texts = [
            "refund please", "我们明天在北京见面", "ΕΛΛΆΔΑ", "والكتاب", "party 🎉", "see https://x.io", "C++ vs C#",
            "İSTANBUL", "Straße", "money back", nil,
        ]
        for (index, dialog) in dialogs.enumerated() {
            let messages = (0..<40).map { number in
                Message(
                    id: String(format: "%024x", index * 100 + number + 1), chatDialogID: dialog.id,
                    text: texts[number % texts.count], dateSent: time + number * 3_600 - index * 86_400,
                    senderID: 1 + number % 6, recipientID: index == 0 ? 2 : nil,
                    attachments: number % 5 == 0 ? [Attachment(type: "image", id: "f\(number)")] : [],
                    readIDs: [1], createdAt: time, updatedAt: time)
            }
            _ = try await archive.storeMessages(
                messages.map { ($0, $0.json) }, dialogID: dialog.id, cursor: nil, observedAt: time, indexFiles: true)
        }
    }
}
