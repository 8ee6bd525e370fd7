import Foundation
import QuickBlox

/// The emulator's full current state as JSON Lines: the ground truth tests compare archives with.
///
/// One object per line, in a fixed order (users by id; dialogs by creation; messages by dialog,
/// then `date_sent` and `_id`; revisions; deletions), each record in QuickBlox's own JSON shape:
///
/// ```
/// {"kind":"user","record":{...user...}}
/// {"kind":"dialog","record":{...dialog, last_message fields, unread 0...}}
/// {"kind":"message","record":{...message...}}
/// {"kind":"revision","superseded_at":T,"record":{...the message as it was before an edit...}}
/// {"kind":"deletion","type":"message"|"dialog","_id":ID,"deleted_at":T,"record":{...last version...}}
/// ```
///
/// The same format loads back with `--fixture`.
public enum TruthDump {
    /// Every line of the dump, in order, each without its trailing newline.
    static func lines(of state: EmulatorState) -> some Sequence<[UInt8]> {
        let users = state.sortedUserIDs.compactMap { state.users[$0] }.lazy.map { stored -> [UInt8] in
            line(["kind": "user", "record": stored.user.json])
        }
        let dialogs = state.sortedDialogs
        let dialogLines = dialogs.lazy.map { dialog -> [UInt8] in
            line(["kind": "dialog", "record": state.presented(state.dialogs[dialog.id]!, for: nil).json])
        }
        let messages = dialogs.lazy.flatMap { state.messages[$0.id] ?? [] }.map { message -> [UInt8] in
            // Same bytes as line(["kind": "message", "record": message.json]), written directly.
            var out = Array(#"{"kind":"message","record":"#.utf8)
            message.writeJSON(into: &out)
            out.append(UInt8(ascii: "}"))
            return out
        }
        let revisions = state.revisions.lazy.map { revision -> [UInt8] in
            line(["kind": "revision", "superseded_at": .int(revision.supersededAt), "record": revision.message.json])
        }
        let deletions = state.deletions.lazy.map { deletion -> [UInt8] in
            line([
                "kind": "deletion", "type": .string(deletion.kind), "_id": .string(deletion.id),
                "deleted_at": .int(deletion.deletedAt), "record": deletion.record,
            ])
        }
        return [
            AnySequence(users), AnySequence(dialogLines), AnySequence(messages), AnySequence(revisions),
            AnySequence(deletions),
        ]
        .joined()
    }

    private static func line(_ value: JSONValue) -> [UInt8] { value.serialized() }

    /// Writes the dump to `path` atomically (a temporary file renamed into place).
    static func write(_ state: EmulatorState, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary)
        else { throw EmulatorSetupError.cannotWrite(path) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        for line in lines(of: state) {
            buffer.append(contentsOf: line)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
        try handle.synchronize()
        try handle.close()
        if rename(temporary, path) != 0 { throw EmulatorSetupError.cannotWrite(path) }
    }

    /// Reads a dump back into a state (`--fixture`). Users get the seeded password pattern
    /// unless their record carries a `password` key.
    static func load(path: String) throws -> EmulatorState {
        guard let data = FileManager.default.contents(atPath: path) else { throw EmulatorSetupError.cannotRead(path) }
        var state = EmulatorState()
        var messages: [Message] = []
        for (number, rawLine) in data.split(separator: 0x0A).enumerated() where !rawLine.isEmpty {
            let place = "\(path):\(number + 1)"
            do {
                let line = try JSONValue(parsing: Data(rawLine))
                guard let record = line["record"] else { throw EmulatorSetupError.badFixture(place, "no `record`") }
                switch line["kind"]?.stringValue {
                case "user":
                    var user = try User(json: record)
                    let password =
                        user.extra.removeValue(forKey: "password")?.lenientString
                        ?? EmulatorConfiguration.password(forLogin: user.login ?? "")
                    state.users[user.id] = .init(user: user, password: password)
                case "dialog":
                    var dialog = try Dialog(json: record)
                    (dialog.lastMessage, dialog.lastMessageDateSent, dialog.lastMessageID, dialog.lastMessageUserID) = (
                        nil, nil, nil, nil
                    )
                    state.dialogs[dialog.id] = .init(dialog: dialog)
                    state.messages[dialog.id] = state.messages[dialog.id] ?? []
                case "message": messages.append(try Message(json: record))
                case "revision":
                    state.revisions.append(
                        .init(message: try Message(json: record), supersededAt: line["superseded_at"]?.lenientInt ?? 0))
                case "deletion":
                    state.deletions.append(
                        .init(
                            kind: line["type"]?.stringValue ?? "message", id: line["_id"]?.stringValue ?? "",
                            record: record, deletedAt: line["deleted_at"]?.lenientInt ?? 0))
                default: throw EmulatorSetupError.badFixture(place, "unknown `kind`")
                }
            } catch let error as EmulatorSetupError {
                throw error
            } catch {
                throw EmulatorSetupError.badFixture(place, error.localizedDescription)
            }
        }
        for message in messages {
            guard state.dialogs[message.chatDialogID] != nil else {
                throw EmulatorSetupError.badFixture(
                    path, "message \(message.id) names unknown dialog \(message.chatDialogID)")
            }
            state.insert(message)
        }
        return state
    }
}

/// Why the emulator could not start or write its truth.
public enum EmulatorSetupError: Error, LocalizedError {
    case cannotRead(String)
    case cannotWrite(String)
    case badFixture(String, String)
    case invalidConfiguration(String)

    public var errorDescription: String? {
        switch self {
        case .cannotRead(let path): "cannot read \(path): check that the file exists and is readable"
        case .cannotWrite(let path): "cannot write \(path): check that its folder exists and is writable"
        case .badFixture(let place, let reason): "fixture \(place): \(reason)"
        case .invalidConfiguration(let reason): reason
        }
    }
}
