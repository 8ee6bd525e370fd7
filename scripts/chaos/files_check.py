"""Checks an archive's attachment store against the emulator's truth, for `make chaos`.

    python3 files_check.py ARCHIVE TRUTH.jsonl [--final]

Always: every file under ARCHIVE.files/sha256/ hashes to its own name (a kill -9 never leaves a file
under a wrong name), and every `ok` row names a stored file whose digest is the truth's for that uid.
With --final also: every blob of the truth is `ok`, and ARCHIVE.files/tmp/ is empty.
Prints a one-line summary; exits 1 when a check fails.
"""
import hashlib
import json
import os
import sqlite3
import sys


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def main():
    archive, truth_path = sys.argv[1], sys.argv[2]
    final = "--final" in sys.argv[3:]
    truth = {}
    with open(truth_path) as f:
        for line in f:
            record = json.loads(line)
            if record.get("kind") == "blob":
                truth[record["record"]["uid"]] = record["sha256"]
    store = archive + ".files"
    problems = []
    stored = 0
    for root, _, names in os.walk(os.path.join(store, "sha256")):
        for name in names:
            expected = os.path.basename(root) + name
            if digest(os.path.join(root, name)) != expected:
                problems.append(f"{expected[:12]}… does not hash to its name")
            stored += 1
    db = sqlite3.connect(f"file:{archive}?mode=ro", uri=True)
    rows = db.execute("SELECT key, status, sha256 FROM attachment_files WHERE key LIKE 'uid:%'").fetchall()
    status = {}
    for key, state, sha in rows:
        status[state] = status.get(state, 0) + 1
        uid = key[4:]
        if state == "ok":
            if sha != truth.get(uid):
                problems.append(f"{uid[:12]}… recorded with another digest than the server's")
            elif not os.path.exists(os.path.join(store, "sha256", sha[:2], sha[2:])):
                problems.append(f"{uid[:12]}… recorded ok but missing from the store")
    if final:
        ok = {key[4:] for key, state, _ in rows if state == "ok"}
        missing = [uid for uid in truth if uid not in ok]
        if missing:
            problems.append(f"{len(missing)} of {len(truth)} server files not ok")
        tmp = os.path.join(store, "tmp")
        litter = os.listdir(tmp) if os.path.isdir(tmp) else []
        if litter:
            problems.append(f"{len(litter)} temporary files left")
    states = ", ".join(f"{k} {v}" for k, v in sorted(status.items())) or "no rows"
    print(f"{len(truth)} server files; rows: {states}; {stored} stored files re-hashed"
          + (f"; PROBLEMS: {'; '.join(problems[:5])}" if problems else "; all match"))
    sys.exit(1 if problems else 0)


main()
