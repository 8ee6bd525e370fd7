/// `README.txt`: what each file of a bundle is, for whoever opens it without the tool.
enum BundleReadme {
    static func text(container: ContainerFormat) -> String {
        """
        qbarchive export bundle (\(container.rawValue))
        ==========================================

        A copy of QuickBlox chat history taken from a qbarchive archive. Every file below is listed in
        manifest.json with its size, SHA-256 and number of records; `qbarchive verify BUNDLE` checks
        them all (and the signature in manifest.sig, when there is one). Times are UTC (ISO 8601).

        manifest.json      what was exported (query, filters, time range, counts), by which tool, from
                           which archive; the SHA-256 of every other file; its own SHA-256.
        manifest.sig       (only in signed bundles) Ed25519 signature of manifest.json and public key.
        messages.jsonl     one message per line: ids, dialog and sender/recipient names, text,
                           attachments, custom parameters, edit count, deletion time, the server's raw
                           record, and when the archive first and last saw it.
        messages.csv       the same messages as RFC 4180 CSV with a header row (UTF-8).
        dialogs.jsonl      the dialogs of those messages: type, name, occupants, raw record.
        users.jsonl        the users who sent, received or were members: login, name, raw record.
        revisions.jsonl    earlier versions of edited messages, oldest first, with when each was seen.
        membership.jsonl   who was an occupant of each dialog, from when to when (as observed).
        deletions.jsonl    messages and dialogs the server no longer has, and since when (as observed).
        transcripts/       one readable conversation per dialog: names, times, attachments, edits and
                           deletions marked.

        QuickBlox keeps no history: edit and deletion times are when the archive noticed them.

        """
    }
}
