import QuickBlox

/// The operators people know from Slack, Gmail and Discord search, written `name:value`, each read as a
/// predicate of the language (docs/query-language.md, "Search operators from other tools").
///
/// `from:`, `to:` and `in:` are aliases of fields (sender, recipient, dialog); these are the ones whose value
/// chooses the field or the comparison.
enum QueryShortcut: String, CaseIterable {
    /// `before:DATE`: sent before the period starts (`date_sent < DATE`).
    case before
    /// `after:DATE`: sent after the period ends (`date_sent > DATE`).
    case after
    /// `on:DATE`: sent during the period (`date_sent in DATE`), usually a day.
    case on
    /// `during:DATE`: sent during the period, usually a month or a year.
    case during
    /// `has:attachment`, `has:image`, `has:video`, `has:audio`, `has:file`, `has:location`, `has:link`.
    case has
    /// `is:edited`, `is:deleted`, `is:hidden`, `is:private`, `is:group`, `is:public`.
    case `is`

    static let names = allCases.map(\.rawValue)

    init?(name: String) {
        self.init(rawValue: name.lowercased())
    }

    var isDate: Bool { [.before, .after, .on, .during].contains(self) }

    /// The comparison a date shortcut makes.
    var dateOperator: FilterOperator {
        switch self {
        case .before: .lessThan
        case .after: .greaterThan
        default: .in
        }
    }

    /// What `has:` takes: the field, and the values it compares with (`=` one, `in` several). `image` also finds
    /// `photo`, the type QuickBlox's Android SDK gives image attachments (`QBAttachment.PHOTO_TYPE`).
    static let hasValues: [String: (QueryField, [QueryValue])] = {
        let images: [QueryValue] = [.string("image"), .string("photo")]
        return [
            "attachment": (.hasAttachment, [.bool(true)]), "attachments": (.hasAttachment, [.bool(true)]),
            "image": (.attachmentType, images), "images": (.attachmentType, images),
            "photo": (.attachmentType, images), "photos": (.attachmentType, images),
            "video": (.attachmentType, [.string("video")]), "videos": (.attachmentType, [.string("video")]),
            "audio": (.attachmentType, [.string("audio")]), "file": (.attachmentType, [.string("file")]),
            "files": (.attachmentType, [.string("file")]), "location": (.attachmentType, [.string("location")]),
            "link": (.hasLink, [.bool(true)]), "links": (.hasLink, [.bool(true)]), "url": (.hasLink, [.bool(true)]),
        ]
    }()

    /// What `is:` takes.
    static let isValues: [String: (QueryField, QueryValue)] = [
        "edited": (.edited, .bool(true)), "deleted": (.deleted, .bool(true)), "hidden": (.hidden, .bool(true)),
        "private": (.dialogType, .int(3)), "group": (.dialogType, .int(2)), "public": (.dialogType, .int(1)),
    ]

    static let hasHint = "use has:attachment, has:image, has:video, has:audio, has:file, has:location or has:link"
    static let isHint = "use is:edited, is:deleted, is:hidden, is:private, is:group or is:public"
}
