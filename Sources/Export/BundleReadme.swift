/// `README.txt`: what each file of a bundle is, for whoever opens it without the tool.
enum BundleReadme {
    /// How to unpack a container with common tools.
    static func unpack(_ container: ContainerFormat) -> String {
        switch container {
        case .tarGz: "mkdir b && tar -xzf BUNDLE -C b && cd b"
        case .tarZst: "mkdir b && tar --zstd -xf BUNDLE -C b && cd b"
        case .zip: "unzip BUNDLE -d b && cd b"
        }
    }

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
        dialogs.jsonl      the dialogs of those messages: type, name, occupants, raw record; hidden_for
                           (users who removed a dialog from their own list, and since when) and
                           deletion_evidence (the views behind a deleted dialog's tombstone).
        users.jsonl        the users who sent, received or were members: login, name, raw record.
        revisions.jsonl    earlier versions of edited messages, oldest first, with when each was seen
                           and their attachment_files.
        membership.jsonl   who was an occupant of each dialog, from when to when (as observed).
        deletions.jsonl    messages and dialogs the server no longer has, and since when (as observed).
        audit.jsonl        (when the archive recorded the export) the archive's audit entry of this
                           bundle's creation, `export_begin`: its number in the archive's hash-chained
                           audit log, time, request, and chain hashes (step 5).
        transcripts/       one readable conversation per dialog: names, times, attachments (with the
                           path of each file, or why it is absent), edits and deletions marked.
        attachments/       the attached files, each once, named after the SHA-256 of its bytes
                           (`sha256sum attachments/*` shows each name is its hash). Absent when the
                           bundle was made with --no-attachments (manifest.json: attachments.included).
                           The file's name and type are those of the attachment that names it.

        QuickBlox keeps no history: edit and deletion times are when the archive noticed them.

        Checking this bundle without qbarchive
        --------------------------------------

        1. The whole file, when its checksum file came with it (BUNDLE stands for the bundle's name):

             sha256sum -c BUNDLE.sha256

        2. Unpack it (\(unpack(container))) and check every file against SHA256SUMS, which lists each file
           but manifest.json, manifest.sig and itself:

             sha256sum -c SHA256SUMS

        3. Check the files against the manifest (SHA256SUMS is listed there too, with its SHA-256):

             python3 -c 'import json,hashlib; m=json.load(open("manifest.json")); bad=[f["path"] for f in m["files"] if hashlib.sha256(open(f["path"],"rb").read()).hexdigest()!=f["sha256"]]; print("manifest: all files match" if not bad else "manifest: MISMATCH " + " ".join(bad))'

        4. A signed bundle (manifest.sig): the Ed25519 signature covers the exact bytes of manifest.json,
           and so, through its SHA-256s, every file. With OpenSSL 3 and Python:

             python3 -c 'import json,base64; s=json.load(open("manifest.sig")); open("signature.bin","wb").write(base64.b64decode(s["signature"])); open("signer.der","wb").write(bytes.fromhex("302a300506032b6570032100")+base64.b64decode(s["public_key"])); print("signed by key", s["public_key"])'
             openssl pkeyutl -verify -pubin -keyform DER -inkey signer.der -rawin -in manifest.json -sigfile signature.bin

           OpenSSL answers "Signature Verified Successfully". Then compare the key printed with the one the
           exporter gave you (the second word of their .pub file): a signature proves who made the bundle
           only with a key obtained apart from it.

        5. The bundle's own creation: audit.jsonl's hash is SHA-256 over the previous entry's hash (its
           bytes) and "\\nTIME\\nACTION\\nDETAIL"; this recomputes it, and the archive's keeper can show
           the same entry, and the later `export` entry naming this bundle's SHA-256, with
           `qbarchive audit list`:

             python3 -c 'import json,hashlib; e=json.loads(open("audit.jsonl").readline()); h=hashlib.sha256(bytes.fromhex(e["previous_hash"] or "")+("\\n%d\\n%s\\n%s" % (e["time"],e["action"],e["detail"])).encode()).hexdigest(); print("audit entry", e["id"], "intact" if h==e["hash"] else "ALTERED")'

        manifest.json's selection.resolved gives the dates of the selection as UTC instants, whatever
        relative dates ("30d") the export was asked for. manifest.json's privacy, when present, says what
        was redacted (--redact: e-mail addresses, phone numbers, URLs, patterns, and how many of each) and,
        for a subject-access export (--subject), who the subject is: everyone else is participant-N.

        """
    }
}
