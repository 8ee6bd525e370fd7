/// What a migration between archives copies row by row, column by column, outside ``ImportBatch``: the archive's
/// own records (runs, crawl state, the file list, the audit chain, holds, the erasure register, dialog hides)
/// and the marks of rows (erasure times, which an import does not carry; a dialog's hides and deletion evidence, which
/// it does — copied all the same, keeping what the destination has).
///
/// Column names are the same on every backend (docs/archive-schema.md). An ``Kind/insert`` table is copied with
/// its keys (`id`s included), keeping rows the destination has; an ``Kind/update`` one rewrites its columns on
/// rows the destination already holds (imported before).
public enum VerbatimTable: String, CaseIterable, Sendable {
    /// `attachment_files`, copied before the messages so the import's file index keeps the source's rows.
    case attachmentFiles = "attachment_files"
    case dialogHides = "dialog_hides"
    case crawlState = "crawl_state"
    case runs
    case auditLog = "audit_log"
    case holds
    case erasures
    /// `dialogs.hidden_for`, `deleted_evidence` and `erased_at`.
    case dialogMarks = "dialog_marks"
    /// `users.erased_at`.
    case userMarks = "user_marks"
    /// `messages.erased_at`.
    case messageMarks = "message_marks"

    /// How the destination takes the rows.
    public enum Kind: Sendable {
        /// `INSERT`, keeping a row the destination has (same key).
        case insert
        /// `UPDATE` of the columns after the key, on the row with that key.
        case update
    }

    public var kind: Kind {
        switch self {
        case .dialogMarks, .userMarks, .messageMarks: .update
        default: .insert
        }
    }

    /// The table the rows live in.
    public var table: String {
        switch self {
        case .dialogMarks: "dialogs"
        case .userMarks: "users"
        case .messageMarks: "messages"
        default: rawValue
        }
    }

    /// The ordering key (first columns of ``columns``): rows are read in its order, after the last key read.
    public var key: [String] {
        switch self {
        case .dialogHides: ["dialog_id", "user_id"]
        case .crawlState: ["dialog_id"]
        case .dialogMarks, .userMarks, .messageMarks: ["id"]
        default: ["id"]
        }
    }

    /// Whether the key is an identity column the destination must continue after (PostgreSQL's sequences).
    public var hasIdentity: Bool {
        switch self {
        case .attachmentFiles, .runs, .auditLog, .holds, .erasures: true
        default: false
        }
    }

    /// Every column copied, key first.
    public var columns: [String] {
        switch self {
        case .attachmentFiles:
            [
                "id", "key", "uid", "blob_id", "url", "name", "type", "declared_size", "declared_type", "status",
                "sha256", "size", "content_type", "source", "fetched_at", "attempts", "last_error",
                "last_attempt_at", "first_seen_at",
            ]
        case .dialogHides: ["dialog_id", "user_id", "observed_at"]
        case .crawlState:
            [
                "dialog_id", "watermark_date_sent", "watermark_ids", "checked_updated_at", "last_success_at",
                "last_error", "last_error_at", "changed_at", "server_count", "server_counted_at",
            ]
        case .runs:
            [
                "id", "scope", "started_at", "ended_at", "status", "dialogs", "messages_new", "messages_edited",
                "messages_deleted", "requests", "retries", "bytes", "error", "query",
            ]
        case .auditLog: ["id", "at", "action", "detail", "previous_hash", "hash"]
        case .holds: ["id", "kind", "target", "reason", "created_at", "released_at", "release_reason"]
        case .erasures:
            ["id", "at", "target_kind", "target_id", "reason", "messages", "revisions", "files", "purged_at"]
        case .dialogMarks: ["id", "hidden_for", "deleted_evidence", "erased_at"]
        case .userMarks, .messageMarks: ["id", "erased_at"]
        }
    }

    /// Which rows are read: every row, or for marks only those that carry one.
    public var filter: String? {
        switch self {
        case .dialogMarks: "(hidden_for IS NOT NULL OR deleted_evidence IS NOT NULL OR erased_at IS NOT NULL)"
        case .userMarks, .messageMarks: "erased_at IS NOT NULL"
        default: nil
        }
    }

    /// The order a migration copies them in: the file list before messages are imported, then the rest.
    public static let beforeRecords: [VerbatimTable] = [.attachmentFiles]
    /// After users, dialogs, memberships, messages and revisions (their foreign keys).
    public static let afterRecords: [VerbatimTable] = [
        .dialogHides, .crawlState, .runs, .auditLog, .holds, .erasures, .dialogMarks, .userMarks, .messageMarks,
    ]
}
