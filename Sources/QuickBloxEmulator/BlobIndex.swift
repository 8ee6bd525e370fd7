import Foundation
import QuickBlox

/// The Content module's files, by uid and by id: one blob for every attachment that names a
/// file (an `id` or a `uid`), registered as its message is created.
///
/// The first attachment to name a uid defines its blob; later ones with the same uid share it.
/// An attachment `id` that is not a positive integer, or that another uid already holds, gets
/// a fresh id from ``nextID`` (so `GET /blobs/{id}.json` may not resolve it); an attachment
/// without a uid gets one derived from its id.
struct BlobIndex: Sendable {
    /// How blobs made from attachments are set up.
    struct Policy: Sendable {
        var seed: UInt64
        /// Fraction of seeded and live blobs that are public.
        var publicRate: Double
    }

    private(set) var byUID: [String: Blob] = [:]
    private(set) var uidByID: [Int: String] = [:]
    /// Ids handed to attachments that carry none usable.
    private var nextID = 90_000_001

    var count: Int { byUID.count }

    func blob(uid: String) -> Blob? { byUID[uid] }

    func blob(id: Int) -> Blob? { uidByID[id].flatMap { byUID[$0] } }

    /// Every blob, by id.
    var sorted: [Blob] { byUID.values.sorted { $0.id < $1.id } }

    /// Adds a blob as it is (a fixture's `blob` line); an existing uid or id is left alone.
    mutating func insert(_ blob: Blob) {
        guard byUID[blob.uid] == nil, uidByID[blob.id] == nil else { return }
        byUID[blob.uid] = blob
        uidByID[blob.id] = blob.uid
        nextID = max(nextID, blob.id + 1)
    }

    /// Registers the files `message` attaches. `seeded` blobs (generated or live) are public at
    /// the policy's rate; blobs of posted messages are private, as QuickBlox's default.
    mutating func register(_ message: Message, policy: Policy, seeded: Bool) {
        for attachment in message.attachments {
            register(attachment, at: message.createdAt ?? message.dateSent, policy: policy, seeded: seeded)
        }
    }

    private mutating func register(_ attachment: Attachment, at time: Int, policy: Policy, seeded: Bool) {
        let numericID = attachment.id.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap {
            $0 > 0 ? $0 : nil
        }
        guard attachment.uid?.isEmpty == false || numericID != nil || attachment.id?.isEmpty == false else { return }
        let uid =
            attachment.uid.flatMap { $0.isEmpty ? nil : $0 } ?? Self.uid(for: attachment.id ?? "", seed: policy.seed)
        guard byUID[uid] == nil else { return }
        var id: Int
        if let numericID, uidByID[numericID] == nil {
            id = numericID
        } else {
            while uidByID[nextID] != nil { nextID += 1 }
            id = nextID
            nextID += 1
        }
        let contentType =
            attachment.extra["content-type"]?.stringValue ?? attachment.extra["content_type"]?.stringValue
            ?? Self.contentType(forType: attachment.type)
        let blob = Blob(
            id: id, uid: uid, name: attachment.name ?? "\(attachment.type ?? "file")_\(uid.prefix(6))",
            contentType: contentType,
            size: attachment.size.flatMap { $0 >= 0 ? $0 : nil }
                ?? BlobContent.defaultSize(seed: policy.seed, uid: uid),
            isPublic: seeded && BlobContent.isPublic(seed: policy.seed, uid: uid, rate: policy.publicRate),
            createdAt: time, updatedAt: time, setCompletedAt: time)
        byUID[uid] = blob
        uidByID[id] = uid
    }

    /// A QuickBlox-style uid (32 hex digits and `00`) for an attachment that gave only an id.
    static func uid(for id: String, seed: UInt64) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for salt: UInt64 in [5, 6] {
            let word = BlobContent.key(seed: seed, uid: "id:" + id, salt: salt)
            for shift in stride(from: 60, through: 0, by: -4) { out.append(hex[Int((word >> UInt64(shift)) & 0xF)]) }
        }
        return String(decoding: out, as: UTF8.self) + "00"
    }

    /// The content type for an attachment without a `content-type` key.
    static func contentType(forType type: String?) -> String {
        switch type {
        case "image": "image/jpeg"
        case "video": "video/mp4"
        case "audio": "audio/mpeg"
        default: "application/octet-stream"
        }
    }
}
