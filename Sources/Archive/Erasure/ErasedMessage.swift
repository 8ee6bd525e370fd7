import QuickBlox

/// What an erased message keeps, the same on every backend.
public enum ErasedMessage {
    /// The raw record an erased message keeps: what its skeleton columns hold, nothing else.
    public static func skeleton(id: String, dialogID: String, dateSent: Int, senderID: Int?, recipientID: Int?)
        -> String
    {
        var object: [String: JSONValue] = [
            "_id": .string(id), "chat_dialog_id": .string(dialogID), "date_sent": .int(dateSent), "erased": .bool(true),
        ]
        if let senderID { object["sender_id"] = .int(senderID) }
        if let recipientID { object["recipient_id"] = .int(recipientID) }
        return JSONValue.object(object).jsonString
    }
}
