import Archive
import Foundation
import Logging
import QuickBlox
import QuickBloxClient

extension Crawl {
    /// Crawls one dialog and records how it went in its crawl state (`last_success_at`, or the error), so
    /// `status` can show which dialogs lag. A targeted crawl (`--where`) fetches only part of a dialog and
    /// records no success; a run cut short (cancelled, authentication lost) records nothing for the dialog.
    ///
    /// In app scope a dialog is read as the first user whose list showed it. When that user can no longer read
    /// it — they left the group (403) or removed the dialog from their own list (404) after the listing — the
    /// dialog is read as the next user who listed it, from the cursor the pages stored so far have moved, as a
    /// later run would (``readerLost(_:)``; reported as ``CrawlEvent/readerChanged(id:from:to:reason:)``), up to
    /// ``readersTried`` users. Only when they have all lost it (deleted for everyone meanwhile, most likely) does
    /// the dialog fail, and the run end partial. What the dialog's pages stored is counted either way
    /// (``PageTally``).
    ///
    /// When every reader tried answered 404, the dialog was most likely deleted for everyone while the users'
    /// lists were read: the lists read after the deletion lack it, and the merge recorded it hidden for those
    /// users (``mergeListings(of:runStart:into:_:)``), though none of them hid it. Those hides are withdrawn
    /// (``DialogOutcome/hidesWithdrawn``); a later run with `--reconcile` tombstones the dialog once no list
    /// shows it.
    func outcome(of target: Target, since: Int?, runStart: Int, slots: WalkSlots? = nil) async -> DialogOutcome {
        let id = target.dialog.id
        var target = target
        var others = target.listers.filter { $0 != target.reader }.prefix(Self.readersTried - 1)
        var everyReaderNotFound = true
        while true {
            do {
                try await crawlDialog(target, since: since, runStart: runStart, slots: slots)
                if options.query == nil {
                    try await archive.recordCrawlOutcome(dialogID: id, error: nil, at: ArchiveTime.now())
                }
                return DialogOutcome(dialogID: id, counts: target.tally.total)
            } catch let error where Self.readerLost(error) && !others.isEmpty && !Task.isCancelled {
                everyReaderNotFound = everyReaderNotFound && Self.notFound(error)
                let next = others.removeFirst()
                logger.notice(
                    "dialog read as another occupant",
                    metadata: [
                        "dialog": "\(id)", "from": "\(target.reader.map(String.init) ?? "-")", "to": "\(next)",
                        "error": "\(error.localizedDescription)",
                    ])
                events(.readerChanged(id: id, from: target.reader, to: next, reason: error.localizedDescription))
                target.reader = next
            } catch {
                var outcome = DialogOutcome(dialogID: id, counts: target.tally.total, error: error)
                if !Self.endsRun(error), !Task.isCancelled {
                    try? await archive.recordCrawlOutcome(
                        dialogID: id, error: error.localizedDescription, at: ArchiveTime.now())
                    if options.scope == .app, everyReaderNotFound, Self.notFound(error) {
                        outcome.hidesWithdrawn = await withdrawHides(of: id, recordedAt: runStart)
                    }
                }
                return outcome
            }
        }
    }

    /// How many users a dialog is read through at most in one run, its reader included, when each in turn loses
    /// it: every user lists a public dialog, and one deleted for everyone answers 404 to them all — one request
    /// (with the server's latency) each.
    static let readersTried = 4

    /// Withdraws the hides the listing of the run that started at `runStart` recorded for a dialog no reader
    /// found any more; returns how many. A failure to withdraw is logged: the dialog has failed already.
    private func withdrawHides(of id: String, recordedAt runStart: Int) async -> Int {
        do {
            let withdrawn = try await archive.forgetDialogHides(id: id, recordedAt: runStart)
            if withdrawn > 0 {
                logger.notice(
                    "dialog hides withdrawn: every reader found the dialog gone",
                    metadata: ["dialog": "\(id)", "hides": "\(withdrawn)"])
            }
            return withdrawn
        } catch {
            logger.error(
                "dialog hides could not be withdrawn",
                metadata: ["dialog": "\(id)", "error": "\(error.localizedDescription)"])
            return 0
        }
    }

    /// Whether `error` is QuickBlox's 404: the dialog is not in the reader's view.
    static func notFound(_ error: any Error) -> Bool {
        (error as? QuickBloxClientError)?.status == 404
    }

    /// Whether `error` says the reader may no longer read the dialog: 403 (not an occupant: they left the group)
    /// or 404 (not in their view: they removed it from their own list, or it was deleted for everyone) — QuickBlox
    /// reference, `GET /chat/Message.json`.
    static func readerLost(_ error: any Error) -> Bool {
        guard let error = error as? QuickBloxClientError else { return false }
        return error.status == 403 || error.status == 404
    }

    /// Stores a page of `target`'s dialog and adds what it stored to the dialog's tally: the one count of what a
    /// dialog's walks stored, which outlasts a walk that fails and a change of reader.
    func store(
        _ messages: [Message], _ raw: [JSONValue], of target: Target, cursor: CrawlCursor?, at runStart: Int
    ) async throws {
        let stored = try await archive.storeMessages(
            Array(zip(messages, raw)), dialogID: target.dialog.id, cursor: cursor, observedAt: runStart,
            indexFiles: indexFiles)
        target.tally.add(stored)
    }
}
