import QuickBlox

/// Everything that changes an archive: crawls, imports, the audit log, file fetches, tombstones.
///
/// One name per act, typed models in: the crawler hands over what it decoded (with the raw JSON it came
/// from, which the archive keeps verbatim) and never goes through a second decoding or an adapter. Every
/// method is atomic: a page of messages is stored with the cursor that follows it, so a crawl killed at
/// any instant resumes from the last stored page.
public protocol ArchiveWriter: ArchiveReader {
    /// Stores users (insert or update) as received.
    func storeUsers(_ users: [(User, JSONValue)], observedAt: Int) async throws -> UpsertCounts
    /// Stores dialogs (insert or update), recording occupant changes as membership history.
    func storeDialogs(_ dialogs: [(Dialog, JSONValue)], observedAt: Int) async throws -> UpsertCounts
    /// Stores one page of a dialog's messages and, in the same transaction, the dialog's new cursor (when
    /// given) and the files their attachments name (unless `indexFiles` is false: `--attachments none`).
    ///
    /// - Throws: ``ArchiveError/messageOutsideDialog(messageID:messageDialogID:pageDialogID:)`` before anything
    ///   is written when an item belongs to another dialog.
    func storeMessages(
        _ messages: [(Message, JSONValue)], dialogID: String, cursor: CrawlCursor?, observedAt: Int, indexFiles: Bool
    ) async throws -> PageCounts

    /// Records a run's start (status `running`); returns its id.
    func beginRun(scope: String?, query: String?, at time: Int) async throws -> Int64
    /// Lets the storage engine read and plan the archive as it is after a bulk change (an import, a migration;
    /// a crawl's ``finishRun(_:status:counts:error:at:)`` does it itself). Both backends bring the statistics
    /// roll-ups up to date (the dialogs the change marked stale; it throws when that write fails); PostgreSQL then
    /// vacuums and analyzes the tables the change left unsettled (best effort: logged, never thrown); SQLite
    /// merges its word index's segments when the change cut it into several of comparable size (it has no
    /// visibility to settle, and the query compiler steers its plans, without `sqlite_stat1`). It changes no
    /// answer, only how fast one comes.
    func settleAfterBulkChange() async throws
    /// Recomputes every statistics roll-up from the messages (`qbarchive stats --rebuild`), for roll-ups that
    /// ``ArchiveReader/statisticsRollupDisagreements()`` found wrong; returns how many dialogs it read.
    func rebuildStatistics() async throws -> Int
    /// Records how a run ended, with its tallies.
    func finishRun(_ id: Int64, status: RunStatus, counts: RunCounts, error: String?, at time: Int) async throws
    /// Erases a message, a person or a dialog for good: content out of every table, index and file-store
    /// file, skeletons kept and marked, a register entry and an audit entry written; with `dryRun`, counts
    /// what would go and changes nothing. `holdsSeen` is the newest legal hold id the caller checked the target
    /// against: a hold placed since makes it ``ArchiveError/holdPlacedMeanwhile(_:)`` inside the erasure's own
    /// transaction, so no hold goes unseen.
    func erase(_ target: ErasureTarget, reason: String?, dryRun: Bool, holdsSeen: Int64?, at time: Int) async throws
        -> ErasureReport
    /// Finishes an erasure whose bytes may still be in storage (an erasure interrupted after its transaction);
    /// `false` when there was nothing to do.
    @discardableResult func purgeErased() async throws -> Bool
    /// Erases again, as the erasure register says, records that came back (an import of a bundle made before
    /// an erasure); retention entries skip `keeping` (held messages). Returns how many messages.
    func reapplyErasures(keeping: Set<String>, at time: Int) async throws -> Int
    /// Places a legal hold (audited).
    func addHold(kind: LegalHold.Kind, target: String, reason: String, at time: Int) async throws -> LegalHold
    /// Releases a hold in force (audited); `nil` when there is none with that id.
    func releaseHold(id: Int64, reason: String, at time: Int) async throws -> LegalHold?
    /// Marks every run still `running` as `interrupted`, with `reason`: called by a crawl that holds the
    /// archive's lock, so those runs' processes died before they could record their end. Returns how many.
    func closeAbandonedRuns(reason: String, at time: Int) async throws -> Int
    /// Records the end of a dialog's crawl: success clears its last error, failure records it.
    func recordCrawlOutcome(dialogID: String, error: String?, at time: Int) async throws
    /// Records the message count the server reported for a dialog at a reconcile.
    func recordServerCount(dialogID: String, count: Int, at time: Int) async throws
    /// Tombstones messages deleted for everyone (their content stays), with the views that saw them gone;
    /// returns how many were newly marked.
    func tombstoneMessages(ids: [String], evidence: DeletionEvidence?, at time: Int) async throws -> Int
    /// Tombstones a dialog deleted for everyone (its messages stay); `false` when it already was.
    func tombstoneDialog(id: String, evidence: DeletionEvidence?, at time: Int) async throws -> Bool
    /// What the storage finds wrong with itself — for SQLite, `PRAGMA integrity_check` and both full-text
    /// indexes' own check against the messages; an empty list when all is well. Changes nothing.
    func integrityProblems() async throws -> [String]
    /// Records that messages disappeared from `user`'s view while they are not deleted for everyone
    /// (kept, searchable with `is:hidden`); returns how many were newly recorded. A tombstoned message is
    /// not touched.
    func recordHidden(messageIDs: [String], for user: Int, at time: Int) async throws -> Int
    /// Removes hide records for messages `user`'s view lists again (a record made from a page that had
    /// lost them).
    func forgetHidden(messageIDs: [String], for user: Int) async throws
    /// Records that a dialog left `user`'s dialog list while it is not deleted for everyone; `false` when
    /// already recorded.
    func recordDialogHidden(id: String, for user: Int, at time: Int) async throws -> Bool
    /// Withdraws the hides of a dialog recorded at `time` — by the run that started then, from users' lists that
    /// lacked it — when that run found it deleted for everyone: the lists were read on both sides of the
    /// deletion, and the later ones' lack of it proves no user hid it. Returns how many were withdrawn.
    func forgetDialogHides(id: String, recordedAt time: Int) async throws -> Int

    /// Records that pages are being stored without their files listed (`--attachments none`).
    func markFilesUnindexed() async throws
    /// Lists the files of pages stored unlisted, when any were; returns how many messages it read.
    func indexFilesIfNeeded(at time: Int) async throws -> Int?
    /// Records what fetching a file came to.
    func recordFetch(key: String, outcome: FetchOutcome, at time: Int) async throws
    /// Marks stored files (missing or corrupt in the store) to be fetched again; returns how many.
    func requeueFiles(sha256: [String]) async throws -> Int

    /// Appends an entry to the hash-chained audit log and returns it (its number, chain hashes and the
    /// detail's exact text).
    @discardableResult func appendAudit(action: String, detail: JSONValue, at time: Int) async throws -> AuditEntry

    /// Gives a new, empty archive the identity of the archive a bundle came from.
    ///
    /// - Throws: ``ArchiveError/notEmpty(path:)`` when the archive already holds messages or dialogs.
    func adoptIdentity(_ identity: ArchiveIdentity) async throws
    /// Restores records read from an export bundle in one transaction, keeping what the archive has;
    /// returns how many were new, and which held records the batch's copies are newer than (``NotMerged``).
    func importRecords(_ batch: ImportBatch) async throws -> ImportOutcome
    /// Runs `body` with an ``ImportSession`` that stores a restore's batches one after another, and returns once
    /// every batch `body` stored is committed — also when `body` throws: the batches it stored stay. A backend may
    /// hold several batches in one transaction (SQLite does: the indexes a batch touches are then written once for
    /// many batches), so a process killed during a restore, or a batch the database refuses, undoes the batches
    /// since the last commit; importing them again restores them, as importing adds nothing twice. `body` must
    /// not write to the archive by other means meanwhile. The default stores each batch in a transaction of its
    /// own.
    func importing<R: Sendable>(_ body: (any ImportSession) async throws -> R) async throws -> R
}

extension ArchiveWriter {
    /// Each batch in a transaction of its own.
    public func importing<R: Sendable>(_ body: (any ImportSession) async throws -> R) async throws -> R {
        try await body(BatchByBatchImport(archive: self))
    }

    /// ``beginRun(scope:query:at:)`` now.
    public func beginRun(scope: String? = nil, query: String? = nil) async throws -> Int64 {
        try await beginRun(scope: scope, query: query, at: ArchiveTime.now())
    }

    /// ``finishRun(_:status:counts:error:at:)`` now.
    public func finishRun(_ id: Int64, status: RunStatus, counts: RunCounts, error: String? = nil) async throws {
        try await finishRun(id, status: status, counts: counts, error: error, at: ArchiveTime.now())
    }

    /// ``erase(_:reason:dryRun:holdsSeen:at:)`` without a hold check (the caller has none to make).
    public func erase(_ target: ErasureTarget, reason: String?, dryRun: Bool, at time: Int) async throws
        -> ErasureReport
    {
        try await erase(target, reason: reason, dryRun: dryRun, holdsSeen: nil, at: time)
    }

    /// ``appendAudit(action:detail:at:)`` now.
    @discardableResult
    public func appendAudit(action: String, detail: JSONValue) async throws -> AuditEntry {
        try await appendAudit(action: action, detail: detail, at: ArchiveTime.now())
    }

    /// ``recordFetch(key:outcome:at:)`` now.
    public func recordFetch(key: String, outcome: FetchOutcome) async throws {
        try await recordFetch(key: key, outcome: outcome, at: ArchiveTime.now())
    }

    /// ``recordCrawlOutcome(dialogID:error:at:)`` now.
    public func recordCrawlOutcome(dialogID: String, error: String?) async throws {
        try await recordCrawlOutcome(dialogID: dialogID, error: error, at: ArchiveTime.now())
    }

    /// ``recordServerCount(dialogID:count:at:)`` now.
    public func recordServerCount(dialogID: String, count: Int) async throws {
        try await recordServerCount(dialogID: dialogID, count: count, at: ArchiveTime.now())
    }

    /// ``tombstoneMessages(ids:evidence:at:)`` now.
    @discardableResult
    public func tombstoneMessages(ids: [String], evidence: DeletionEvidence? = nil) async throws -> Int {
        try await tombstoneMessages(ids: ids, evidence: evidence, at: ArchiveTime.now())
    }

    /// ``tombstoneMessages(ids:evidence:at:)`` without recorded evidence (tests, tools).
    @discardableResult
    public func tombstoneMessages(ids: [String], at time: Int) async throws -> Int {
        try await tombstoneMessages(ids: ids, evidence: nil, at: time)
    }

    /// ``tombstoneDialog(id:evidence:at:)`` without recorded evidence (tests, tools).
    @discardableResult
    public func tombstoneDialog(id: String, at time: Int) async throws -> Bool {
        try await tombstoneDialog(id: id, evidence: nil, at: time)
    }

    /// ``tombstoneDialog(id:evidence:at:)`` now.
    @discardableResult
    public func tombstoneDialog(id: String, evidence: DeletionEvidence? = nil) async throws -> Bool {
        try await tombstoneDialog(id: id, evidence: evidence, at: ArchiveTime.now())
    }

    /// ``indexFilesIfNeeded(at:)`` now.
    @discardableResult
    public func indexFilesIfNeeded() async throws -> Int? {
        try await indexFilesIfNeeded(at: ArchiveTime.now())
    }
}
