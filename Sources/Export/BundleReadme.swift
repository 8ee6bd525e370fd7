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
                           record, and when the archive first and last saw it. attachment_files says,
                           for each file an attachment names, where it is in this bundle
                           ("path": "attachments/SHA256"), or why it is not ("status" and "note":
                           not downloaded, too large, gone from the server, left out, ...).
        messages.csv       the same messages as RFC 4180 CSV with a header row (UTF-8); the last
                           column, attachment_files, lists the files' paths (else their status).
        dialogs.jsonl      the dialogs of those messages: type, name, occupants, raw record.
        users.jsonl        the users who sent, received or were members: login, name, raw record.
        revisions.jsonl    earlier versions of edited messages, oldest first, with when each was seen
                           and their attachment_files.
        membership.jsonl   who was an occupant of each dialog, from when to when (as observed).
        deletions.jsonl    messages and dialogs the server no longer has, and since when (as observed).
        transcripts/       one readable conversation per dialog: names, times, attachments (with the
                           path of each file, or why it is absent), edits and deletions marked.
        attachments/       the attached files, each once, named after the SHA-256 of its bytes
                           (`sha256sum attachments/*` shows each name is its hash). Absent when the
                           bundle was made with --no-attachments (manifest.json: attachments.included).
                           The file's name and type are those of the attachment that names it.

        QuickBlox keeps no history: edit and deletion times are when the archive noticed them.

        """
    }
}
