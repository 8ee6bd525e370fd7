import Foundation
import QueryLanguage

/// Everything that reads an archive — search, browse, stats, exports, status and the crawler's look-ups —
/// whatever backend holds it.
///
/// The seam between the features and storage, as GRDB's `DatabaseReader` is between GRDB's users and its
/// connections: feature modules (Crawler, Search, Stats, Export, Service) take an `any ArchiveReader` (or an
/// ``ArchiveWriter``) and never see SQL, a driver or a file format. A backend module implements it
/// (`ArchiveSQLite` today); the `qbarchive` command is the one place that picks a backend.
///
/// Every method is one consistent read unless it says otherwise; ``withSnapshot(_:)`` gives a view in which
/// many reads agree (an export's files). A backend may bound each read in time (the service's statement
/// timeout), failing with ``ArchiveError/timedOut(seconds:)``.
public protocol ArchiveReader: Sendable {
    /// Where the archive is, as the user named it (a path; never a password).
    var location: String { get }
    /// The content-addressed store of attachment files that belongs to this archive.
    var fileStore: FileStore { get }

    // MARK: The archive

    /// The archive's id and creation time.
    func identity() async throws -> ArchiveIdentity
    /// Row counts of the main tables.
    func counts() async throws -> ArchiveCounts
    /// About how many messages the archive holds, in constant time.
    func messageCountEstimate() async throws -> Int
    /// A value that changes whenever archived data may have, read in constant time (for caches).
    func changeMarker() async throws -> String
    /// The bytes the archive takes in its storage (a file and its journal), when the backend can tell.
    func storageBytes() async throws -> Int?

    // MARK: Search

    /// Messages matching a query, with dialog and sender names; tombstoned messages included.
    ///
    /// - Throws: ``QueryLanguage/QueryError`` when the query names a login no archived user has, or the
    ///   backend cannot run it (too complex): a positioned error, never an empty result.
    func search(_ query: Query, options: SearchOptions) async throws -> [SearchHit]
    /// How many messages match a query.
    func count(_ query: Query) async throws -> Int
    /// A page of results, how many match in all and how the query was understood, in one read (what
    /// `qbarchive search`, the API and the web UI show).
    func searchPage(_ query: Query, options: SearchOptions, zone: TimeZone) async throws -> SearchPage
    /// The statement ``search(_:options:)`` runs, with its arguments and the query's reading, for `--explain`.
    func explain(_ query: Query, options: SearchOptions, zone: TimeZone) async throws -> SearchPlan
    /// How the query was understood, in one line (``QueryLanguage/QuerySummary``), dates in `zone`, the users and
    /// dialogs it names as the archive resolved them.
    ///
    /// - Throws: the ``QueryLanguage/QueryError`` a search would throw for a name the archive does not have.
    func describe(_ query: Query, zone: TimeZone) async throws -> String
    /// The query's text with each login, person's name and dialog name replaced by the ids the archive resolves
    /// it to now (`from:alice` → `(sender_id in (100003))`): what a legal hold stores, so that it keeps what it
    /// kept when placed though names change. Throws the query's resolution errors (an unknown name).
    func pinningNames(_ query: Query) async throws -> String
    /// Up to `before` messages before and `after` after a message in its dialog, the message included.
    func context(of messageID: String, before: Int, after: Int) async throws -> [SearchHit]

    // MARK: Stats

    /// Every figure of `qbarchive stats`, aggregated in one consistent read.
    func statistics(_ request: StatisticsRequest) async throws -> ArchiveStatistics
    /// The figures of the whole-archive statistics that differ when read through the roll-ups and when read from
    /// every message (`users`, `volume`, `topSenders`, …; empty when they agree), both in one read: `qbarchive
    /// check`'s test of the roll-ups that `qbarchive stats` and the dashboard read. It reads every message once
    /// (at a million, about as long as `qbarchive stats --from-messages`).
    func statisticsRollupDisagreements() async throws -> [String]

    // MARK: Browse

    /// Dialogs newest activity first, with message counts and occupant names.
    func dialogSummaries(limit: Int, offset: Int) async throws -> [DialogSummary]
    /// How many dialogs the archive holds, tombstoned ones included.
    func dialogCount() async throws -> Int
    /// One dialog's summary, or `nil`.
    func dialogSummary(id: String) async throws -> DialogSummary?
    /// A page of a dialog's messages in transcript order (`date_sent`, then id), with names.
    func dialogMessages(dialogID: String, limit: Int, offset: Int) async throws -> [SearchHit]
    /// Where a message stands in its dialog's transcript order, or `nil` when the archive lacks it.
    func transcriptPosition(of messageID: String) async throws -> TranscriptPosition?
    /// One message with its dialog and sender names, or `nil`.
    func messageHit(id: String) async throws -> SearchHit?
    /// A message with its earlier versions, or `nil`.
    func messageHistory(id: String) async throws -> MessageHistory?

    // MARK: Messages and dialogs as stored

    /// A dialog's messages in `(date_sent, id)` order, tombstoned ones included.
    func messages(dialogID: String) async throws -> [ArchivedMessage]
    /// The ids of a dialog's messages not tombstoned, in `(date_sent, id)` order.
    func liveMessageIDs(dialogID: String) async throws -> [String]
    /// The ids of the dialogs not tombstoned, ordered.
    func liveDialogIDs() async throws -> [String]
    /// Ids of a dialog's messages not tombstoned and recorded hidden for `user`.
    func hiddenMessageIDs(dialogID: String, for user: Int) async throws -> [String]
    /// A dialog's membership history, oldest first.
    func membership(dialogID: String) async throws -> [MembershipPeriod]

    // MARK: Crawls

    /// A dialog's cursor and last outcome; `nil` before its first page.
    func crawlState(dialogID: String) async throws -> CrawlState?
    /// Every dialog's crawl state, by dialog id.
    func crawlStates() async throws -> [CrawlState]
    /// The most recent runs, newest first.
    func runs(limit: Int) async throws -> [RunRecord]
    /// The second from which a crawl of `scope` reads again the messages updated since (edits): the start of the
    /// latest complete run that covered everything such a crawl reads — or, while none has completed, of the
    /// first such run, since a run that ended partial or was stopped read its dialogs when it ran, and what changed
    /// after must be read again. `nil` before any such run.
    ///
    /// A run covers a crawl of `scope` when it had no `--where` query and was not limited to some dialogs
    /// (``RunScope``), and was an app-scope run or of the same scope: an app-scope crawl does not count a
    /// user-scope run, which read one user's dialogs only. A narrower run once moved the window of every
    /// dialog, and the next full crawl missed the edits made before it.
    func updatedSince(scope: String) async throws -> Int?

    // MARK: Files

    /// Files by status, and the stored ones' count and bytes.
    func fileCounts() async throws -> FileCounts
    /// The recorded files for these attachment keys (absent keys are not recorded).
    func files(keys: [String]) async throws -> [String: ArchivedFile]
    /// A stored file by its SHA-256, or `nil`.
    func storedFile(sha256: String) async throws -> ArchivedFile?
    /// Every file recorded as stored: SHA-256 and size.
    func storedFiles() async throws -> [StoredFile]
    /// Files listed but not stored or gone, after row `after`, in the order they were listed.
    func filesToFetch(after: Int64, limit: Int) async throws -> [FileToFetch]

    // MARK: Audit

    /// The audit log, oldest first.
    func auditEntries() async throws -> [AuditEntry]

    // MARK: Exports

    /// Runs `body` with a view in which every read sees the same archive, whatever is written meanwhile.
    func withSnapshot<T: Sendable>(_ body: @Sendable (any ArchiveSnapshot) async throws -> T) async throws -> T

    /// Every legal hold, in force or released, oldest first.
    func holds() async throws -> [LegalHold]
    /// The id of the archived user with this login, if any.
    func userID(login: String) async throws -> Int?
    /// Whether the archive knows the user `id`: as a user, or as the sender of an archived message.
    func knowsUser(id: Int) async throws -> Bool

    /// Copies the archive's database, consistent as of one instant, into a new archive at `target` while
    /// others read and write it, and checks the copy; an existing `target` is refused unless `replace`.
    /// (The attachment file store is copied by ``FileStore/copy(to:)``.)
    func backup(to target: String, replace: Bool) async throws -> ArchiveBackup
}

extension ArchiveReader {
    /// ``search(_:options:)`` with the default page: the 50 newest.
    public func search(_ query: Query) async throws -> [SearchHit] {
        try await search(query, options: SearchOptions())
    }

    /// ``explain(_:options:zone:)`` with the default page, in UTC.
    public func explain(_ query: Query) async throws -> SearchPlan {
        try await explain(query, options: SearchOptions(), zone: QueryDate.utc)
    }

    /// ``explain(_:options:zone:)`` in UTC.
    public func explain(_ query: Query, options: SearchOptions) async throws -> SearchPlan {
        try await explain(query, options: options, zone: QueryDate.utc)
    }

    /// The first 100 dialogs, newest activity first.
    public func dialogSummaries() async throws -> [DialogSummary] {
        try await dialogSummaries(limit: 100, offset: 0)
    }

    /// The 20 most recent runs.
    public func runs() async throws -> [RunRecord] {
        try await runs(limit: 20)
    }
}
