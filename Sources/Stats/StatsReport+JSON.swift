import QuickBlox

extension StatsReport {
    /// The report as one line of JSON with snake_case keys in sorted order, so equal reports print
    /// equal bytes (diffable, cacheable); `JSONDecoder` with `.convertFromSnakeCase` reads it back.
    ///
    /// Written through the project's `JSONValue` serializer rather than `JSONEncoder`, whose key order
    /// is not stable on Linux. Absent values are `null`, never missing keys.
    public func json() -> String {
        jsonValue.jsonString
    }

    /// The report as a `JSONValue` tree (what ``json()`` prints), for embedding in a larger document.
    public var jsonValue: JSONValue {
        [
            "query": query.map(JSONValue.string) ?? .null,
            "period": .string(period.rawValue),
            "totals": totals.jsonValue,
            "volume": .array(volume.map(\.jsonValue)),
            "hour_of_week": .array(hourOfWeek.map { .array($0.map(JSONValue.int)) }),
            "daily_active_senders": .array(
                dailyActiveSenders.map { ["date": .string($0.date), "senders": .int($0.senders)] }),
            "top_senders": .array(topSenders.map(\.jsonValue)),
            "top_dialogs": .array(topDialogs.map(\.jsonValue)),
            "first_reply": [
                "replies": .int(firstReply.replies), "median_seconds": Self.optional(firstReply.medianSeconds),
                "p90_seconds": Self.optional(firstReply.p90Seconds),
            ],
            "coverage": coverage.jsonValue,
        ]
    }

    static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}

extension StatsReport.Totals {
    var jsonValue: JSONValue {
        [
            "users": .int(users), "senders": .int(senders),
            "dialogs": [
                "total": .int(dialogs.total), "public": .int(dialogs.public), "group": .int(dialogs.group),
                "private": .int(dialogs.private), "other": .int(dialogs.other), "deleted": .int(dialogs.deleted),
            ],
            "messages": .int(messages), "deleted_messages": .int(deletedMessages),
            "edited_messages": .int(editedMessages), "edits": .int(edits),
            "messages_with_attachments": .int(messagesWithAttachments), "attachments": .int(attachments),
            "attachments_by_type": .array(
                attachmentsByType.map { ["type": .string($0.type), "attachments": .int($0.attachments)] }),
        ]
    }
}

extension StatsReport.VolumeBucket {
    var jsonValue: JSONValue {
        [
            "label": .string(label), "start": .string(start), "messages": .int(messages), "deleted": .int(deleted),
            "senders": .int(senders),
        ]
    }
}

extension StatsReport.Sender {
    var jsonValue: JSONValue {
        [
            "id": .int(id), "login": StatsReport.optional(login), "full_name": StatsReport.optional(fullName),
            "label": .string(label), "messages": .int(messages),
        ]
    }
}

extension StatsReport.DialogEntry {
    var jsonValue: JSONValue {
        [
            "id": .string(id), "name": StatsReport.optional(name), "type": .string(type),
            "participants": .array(participants.map(JSONValue.string)), "label": .string(label),
            "messages": .int(messages),
        ]
    }
}

extension StatsReport.Coverage {
    var jsonValue: JSONValue {
        [
            "dialogs": .int(dialogs), "complete": .int(complete), "behind": .int(behind), "ahead": .int(ahead),
            "not_reconciled": .int(notReconciled), "missing": .int(missing),
            "entries": .array(
                entries.map { entry in
                    [
                        "id": .string(entry.id), "name": StatsReport.optional(entry.name), "type": .string(entry.type),
                        "dialog_deleted": .bool(entry.dialogDeleted),
                        "server_count": StatsReport.optional(entry.serverCount),
                        "counted_at": StatsReport.optional(entry.countedAt),
                        "archived_at_count": StatsReport.optional(entry.archivedAtCount),
                        "archived": .int(entry.archived), "deleted": .int(entry.deleted),
                        "status": .string(entry.status),
                    ]
                }),
        ]
    }
}
