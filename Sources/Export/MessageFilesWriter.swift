import Archive
import Foundation
import QuickBlox
import Search

/// Writes a bundle's `messages.jsonl` and `messages.csv` on a thread of its own, while the staging loop of
/// ``BundleExport`` goes on with the transcripts and the rest.
///
/// Staging a bundle of 1M messages took one core: the loop's thread was busy from the first batch to the last,
/// and the thread reading the archive idle half of the time — and the JSON Lines and CSV records, with their
/// SHA-256 and writes, were about half of the loop's work (docs/performance.md, Export). The loop keeps all that
/// depends on order and state (the privacy pass, its pseudonyms and redaction counts; the files' references;
/// the transcripts) and hands each batch's messages, ready to write, over in order through a queue of at most
/// ``maxQueuedBatches``, so memory stays bounded. The files belong to this writer's thread from ``init`` until
/// ``finish()`` returns. Written by hand for the reason ``ContainerRebuild`` is: a bounded hand-off from a
/// blocking thread to another is not what `AsyncStream` offers.
final class MessageFilesWriter: @unchecked Sendable {
    /// A message as both files write it: the hit after the privacy pass, its files as JSON (redacted) and as
    /// references.
    struct Record {
        var hit: SearchHit
        var filesJSON: JSONValue
        var references: [FileReference]
    }

    /// How many batches may wait for the writer.
    let maxQueuedBatches: Int

    private let condition = NSCondition()
    private var batches: [[Record]] = []
    private var ending = false
    private var abandoned = false
    /// Set when the thread's loop ends: success once it wrote everything handed over, else its first error.
    private var outcome: Result<Void, ExportError>?
    private let json: StagedFile
    private let csv: StagedFile
    /// Signalled once the thread holds no reference to this writer (nor its files) any more.
    private let exited = DispatchSemaphore(value: 0)

    /// Starts the writer's thread; `json` and `csv` are written only by it from now on.
    init(json: StagedFile, csv: StagedFile, maxQueuedBatches: Int = 4) {
        self.json = json
        self.csv = csv
        self.maxQueuedBatches = maxQueuedBatches
        // Weak: the thread lets go of the writer before it signals, so the files are released (and their partial
        // copies unlinked) on the caller's thread, never while the staging directory is being removed.
        let thread = Thread { [weak self, exited] in
            self?.run()
            exited.signal()
        }
        thread.name = "qbarchive-records"
        thread.start()
    }

    /// Hands a batch over, in order; waits while ``maxQueuedBatches`` wait already.
    /// - Throws: The writer's first error, once it has failed.
    func write(_ records: [Record]) throws(ExportError) {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= maxQueuedBatches, outcome == nil { condition.wait() }
        if case .failure(let error)? = outcome { throw error }
        batches.append(records)
        condition.broadcast()
    }

    /// Waits until every batch handed over is written; the files are the caller's again after it.
    /// - Throws: The writer's first error.
    func finish() throws(ExportError) {
        condition.lock()
        ending = true
        condition.broadcast()
        condition.unlock()
        waitForThread()
        condition.lock()
        defer { condition.unlock() }
        try outcome?.get()
    }

    /// Stops the writer, dropping what is queued (the export failed elsewhere), and waits until its thread has
    /// ended: nothing is written to the staging directory after this returns, so it can be removed. Safe after
    /// ``finish()``.
    func abandon() {
        condition.lock()
        abandoned = true
        condition.broadcast()
        condition.unlock()
        waitForThread()
    }

    /// Waits until the thread has ended; again and again (the semaphore is given back each time).
    private func waitForThread() {
        exited.wait()
        exited.signal()
    }

    /// The next batch; `nil` once every batch is written and no more will come, or the export was abandoned.
    private func next() -> [Record]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty, !ending, !abandoned { condition.wait() }
        guard !abandoned, !batches.isEmpty else { return nil }
        let batch = batches.removeFirst()
        condition.broadcast()
        return batch
    }

    private func run() {
        var result: Result<Void, ExportError> = .success(())
        var line: [UInt8] = []
        line.reserveCapacity(4096)
        do throws(ExportError) {
            while let batch = next() {
                for record in batch {
                    line.removeAll(keepingCapacity: true)
                    MessageRecord.writeJSON(record.hit, raw: true, files: record.filesJSON, into: &line)
                    try json.append(record: line)
                    line.removeAll(keepingCapacity: true)
                    ExportRecord.writeCSV(record.hit, files: record.references, into: &line)
                    try csv.append(record: line)
                }
            }
        } catch {
            result = .failure(error)
        }
        condition.lock()
        outcome = result
        batches.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
