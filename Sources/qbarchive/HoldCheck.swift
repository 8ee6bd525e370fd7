import Archive
import ArgumentParser
import Foundation
import QueryLanguage

/// Which archived messages the legal holds in force keep: what `erase` refuses and `retain` skips.
enum HoldCheck {
    /// The newest hold's id (released ones too; 0 for none): what an erasure checked against
    /// (``Archive/ArchiveWriter/erase(_:reason:dryRun:holdsSeen:at:)`` refuses if a newer one appears).
    static func newest(_ store: any ArchiveReader) async throws -> Int64 {
        try await store.holds().map(\.id).max() ?? 0
    }

    /// The holds in force and, for each, the ids of the messages it keeps now.
    /// - Throws: ``unresolvable(_:_:)`` naming a hold whose query no longer resolves.
    static func held(_ store: any ArchiveReader) async throws -> [(hold: LegalHold, ids: Set<String>)] {
        var result: [(LegalHold, Set<String>)] = []
        for hold in try await store.holds() where hold.isActive {
            do {
                result.append((hold, try await ids(kept: hold, in: store)))
            } catch let error as QueryError {
                throw unresolvable(hold, error)
            }
        }
        return result
    }

    /// A hold that cannot say what it keeps (placed before names were pinned, and a name it gave is gone or
    /// moved): nothing may be erased while it stands, and the message names it.
    static func unresolvable(_ hold: LegalHold, _ error: QueryError) -> CommandFailure {
        CommandFailure(
            "hold #\(hold.id) (\(hold.kind.rawValue) \(hold.target)) cannot say what it keeps: "
                + "\(error.message). Nothing is erased while it stands; to keep what it meant, place a hold with "
                + "the ids it names (qbarchive hold add --query …), then release #\(hold.id).",
            code: ExitCode(15))
    }

    /// A hold's query with its names pinned to ids (``Archive/ArchiveReader/pinningNames(_:)``), checked to keep
    /// exactly what the query as typed keeps now (else the text as typed), and the ids it keeps.
    static func pinned(_ text: String, in store: any ArchiveReader, now: Int) async throws
        -> (text: String, kept: Set<String>)
    {
        let typed = try await ids(matching: text, in: store, now: now)
        let pinned = try await store.pinningNames(try QueryParser(now: now).parse(text))
        guard pinned != text, (try? await ids(matching: pinned, in: store, now: now)) == typed else {
            return (text, typed)
        }
        return (pinned, typed)
    }

    /// The ids of the messages `hold` keeps. A query hold's relative dates (`date > 30d`, `after:yesterday`) are
    /// read from the moment it was placed, not from now: what it kept when placed it keeps while in force (read
    /// from now, `date > 30d` let go of each message a month after it was placed, and `erase` destroyed it).
    static func ids(kept hold: LegalHold, in store: any ArchiveReader) async throws -> Set<String> {
        try await ids(matching: hold.queryText, in: store, now: hold.createdAt)
    }

    /// The ids of the messages a query matches (streamed from one snapshot), its relative dates read from `now`.
    static func ids(matching text: String, in store: any ArchiveReader, now: Int = ArchiveTime.now()) async throws
        -> Set<String>
    {
        let query = try QueryParser(now: now).parse(text)
        return try await store.withSnapshot { snapshot in
            var ids: Set<String> = []
            for try await batch in snapshot.messages(matching: query, raw: false) {
                for hit in batch.items { ids.insert(hit.message.id) }
            }
            return ids
        }
    }

    /// The first hold in force that keeps part of what `target` would erase, if any. A target the archive does
    /// not hold has nothing held (the erasure then says it is unknown).
    static func blocking(_ target: ErasureTarget, in store: any ArchiveReader) async throws -> LegalHold? {
        let held = try await held(store)
        guard !held.isEmpty else { return nil }
        let targetIDs: Set<String>
        switch target {
        case .message(let id): targetIDs = [id]
        case .sentBefore: return nil
        case .user(let text):
            guard let id = try await UserReference(text: text).resolve(in: store).map(String.init) else { return nil }
            if let hold = held.first(where: { $0.hold.kind == .user && $0.hold.target == id }) { return hold.hold }
            targetIDs = try await ids(matching: "sender_id = \(id)", in: store)
        case .dialog(let id):
            guard (try? await store.dialogSummary(id: id)) != nil else { return nil }
            targetIDs = try await ids(matching: "dialog = \"\(id)\"", in: store)
        }
        return held.first { !$0.ids.isDisjoint(with: targetIDs) }?.hold
    }
}
