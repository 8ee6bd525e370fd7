#!/usr/bin/env python3
"""Compare a qbarchive archive with the emulator's truth dump (make chaos).

    compare.py --qbarchive BIN --archive A --truth truth.jsonl [--scope app | --scope user --user 100001]

Two parts, kept apart so the same oracle serves every storage backend:

1. Content: the archive is read only through the qbarchive binary. A whole-archive bundle
   (`qbarchive export --format bundle --bundle tar.gz --no-attachments`, docs/exports.md) is written
   to a temporary folder and read with tarfile: messages.jsonl (id, raw, text, deleted_at, edited),
   revisions.jsonl (message_id), dialogs.jsonl (id, deleted_at, hidden_for), users.jsonl (id) and deletions.jsonl.
   It works for any archive qbarchive can open: a SQLite file, or later a postgresql://... address.
2. Storage, only when the archive is a SQLite file (a backend-specific check): PRAGMA integrity_check
   on a read-only connection, edited = number of message_revisions rows in the tables themselves, and
   the FTS5 'integrity-check' of both indexes through `qbarchive check` on a copy (the indexes use
   qbarchive's own tokenizers, which Python's sqlite3 does not have; the check also finds index rows
   that match no message).

Prints one JSON object:

  visible     truth messages the crawl's scope can see (app: visible to someone — in a dialog someone
              still lists and not removed by everyone who does (the truth's visible_to); user: in the
              user's dialogs and public ones, and not removed for the user)
  archived    lines of the export's messages.jsonl
  lost        visible truth messages missing from the archive
  duplicated  extra exported messages with one message id
  stale       archived messages whose raw record or text differs from the truth's current record (an
              edit not picked up), plus truth deletions the archive holds untombstoned (user scope:
              not recorded hidden for the user — one view proves no deletion)
  hidden_wrong  archived messages recorded hidden for a user the truth says still sees them
  dialogs_hidden_wrong  (app scope) archived dialogs recorded hidden for an occupant the truth says never removed
              them: one still listing the dialog, or, for a dialog deleted for everyone, one its deletion line
              does not name in `hidden_for` (who had removed it before; occupants who left are not counted)
  unconfirmed   (not a failure) messages gone for everyone that the archive keeps live, recorded hidden for
              more users than `crawl --recheck-views` (16) + 1 asks in one reconcile: a group too large to
              prove the deletion with the default (docs/backups.md)
  extra       archived messages the truth never had (neither live nor deleted)
  wrongly_tombstoned  live, visible truth messages the archive marks deleted
  dialogs_lost, users_lost  visible truth dialogs / users missing from the archive (or, dialogs,
              tombstoned while live)
  dialogs_untombstoned  truth deletions of dialogs the archive holds untombstoned
  integrity   'ok' or the problems found: the export's own consistency (every message's edited equals
              its records in revisions.jsonl; deletions.jsonl lists exactly the tombstoned messages and
              dialogs) and, for a SQLite file, the storage checks of part 2
  ok          true when every count above is 0 and integrity is 'ok'

Exit status 0 when ok, 1 otherwise, 2 on bad arguments, an unreadable truth or a failed export.
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def load_truth(path):
    """Users, dialogs, messages, deletions, and who still sees each message or dialog (`visible_to`; absent:
    every occupant, docs/emulator.md)."""
    users, dialogs, messages, readers = {}, {}, {}, {}
    deleted_messages, deleted_dialogs = set(), set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            entry = json.loads(line)
            kind, record = entry["kind"], entry.get("record") or {}
            if kind == "user":
                users[record["id"]] = record
            elif kind == "dialog":
                dialogs[record["_id"]] = record
                if "visible_to" in entry:
                    record = dict(record, _visible_to=entry["visible_to"])
                    dialogs[record["_id"]] = record
            elif kind == "message":
                messages[record["_id"]] = record
                if "visible_to" in entry:
                    readers[record["_id"]] = set(entry["visible_to"])
            elif kind == "deletion":
                (deleted_dialogs if entry.get("type") == "dialog" else deleted_messages).add(entry["_id"])
    # The dialogs' records must not carry the helper key into the raw comparison.
    visible_to = {d: set(r.pop("_visible_to")) for d, r in dialogs.items() if "_visible_to" in r}
    return users, dialogs, messages, deleted_messages, deleted_dialogs, readers, visible_to


def load_dialog_hides(path):
    """For every dialog of the truth, live or deleted for everyone: its occupants (the last version) and the users
    who removed it for themselves (`hidden_for` of its dialog line, or of its deletion line: docs/emulator.md)."""
    hides = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            entry = json.loads(line)
            is_dialog = entry["kind"] == "dialog" or (entry["kind"] == "deletion" and entry.get("type") == "dialog")
            if not is_dialog:
                continue
            record = entry.get("record") or {}
            occupants = {int(u) for u in record.get("occupants_ids") or []}
            hidden = {int(u) for u in (entry.get("hidden_for") or {})}
            hides[record.get("_id") or entry.get("_id")] = (occupants, hidden)
    return hides


def visible(dialog, scope, user, all_users, visible_to):
    """Whether the scope's view(s) can list the dialog: someone (app) or the user (user scope)."""
    if dialog["_id"] in visible_to:
        readers = visible_to[dialog["_id"]]
    elif dialog.get("type") == 1:
        readers = all_users
    else:
        readers = set(dialog.get("occupants_ids") or [])
    return user in readers if scope == "user" else bool(readers)


# --- 1. Content, through `qbarchive export` (any backend) ----------------------------------------------

BUNDLE_FILES = ("messages.jsonl", "revisions.jsonl", "dialogs.jsonl", "users.jsonl", "deletions.jsonl")


class ExportFailed(Exception):
    pass


def export_records(qbarchive, archive):
    """The archive's records as {file name: [parsed lines]}, from a whole-archive bundle export."""
    work = tempfile.mkdtemp(prefix="chaos-compare-")
    try:
        bundle = os.path.join(work, "archive.tar.gz")
        command = [qbarchive, "export", "--archive", archive, "--format", "bundle", "--bundle", "tar.gz",
                   "--no-attachments", "--out", bundle]
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=300)
        if done.returncode != 0:
            said = next((line for line in done.stderr.splitlines() if line.strip()), "")
            raise ExportFailed(f"qbarchive export exit {done.returncode}: {said[:160]}")
        records = {}
        with tarfile.open(bundle, "r:gz") as tar:
            for name in BUNDLE_FILES:
                try:
                    member = tar.extractfile(name)
                except KeyError:
                    member = None
                if member is None:
                    raise ExportFailed(f"the bundle has no {name}")
                with member:  # lines end at b"\n" only: U+2028 or U+0085 may stand unescaped in a string
                    records[name] = [json.loads(line) for line in member if line.strip()]
        return records
    except subprocess.TimeoutExpired:
        raise ExportFailed("qbarchive export took more than 300 s") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def export_consistency(records):
    """Problems between the export's own files: edited against revisions, tombstones against deletions."""
    problems = []
    revisions = {}
    for revision in records["revisions.jsonl"]:
        revisions[revision["message_id"]] = revisions.get(revision["message_id"], 0) + 1
    bad_edits = sum(1 for m in records["messages.jsonl"] if m["edited"] != revisions.get(m["id"], 0))
    if bad_edits:
        problems.append(f"export: {bad_edits} messages whose edited count differs from their revisions.jsonl records")
    tombstones = {("message", m["id"]) for m in records["messages.jsonl"] if m["deleted_at"] is not None}
    tombstones |= {("dialog", d["id"]) for d in records["dialogs.jsonl"] if d["deleted_at"] is not None}
    listed = [(d["kind"], d["id"]) for d in records["deletions.jsonl"]]
    if len(listed) != len(set(listed)) or set(listed) != tombstones:
        problems.append(f"export: deletions.jsonl lists {len(listed)} tombstones, messages and dialogs carry "
                        f"{len(tombstones)} ({len(set(listed) ^ tombstones)} differ)")
    return problems


# --- 2. Storage: SQLite only --------------------------------------------------------------------------

def is_sqlite_file(archive):
    if "://" in archive or not os.path.isfile(archive):
        return False
    with open(archive, "rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def sqlite_checks(archive, fts, qbarchive):
    """PRAGMA integrity_check, edited = revisions rows, and (fts) the FTS5 indexes' own check."""
    problems = []
    db = sqlite3.connect(f"file:{archive}?mode=ro", uri=True)
    check = [row[0] for row in db.execute("PRAGMA integrity_check")]
    if check != ["ok"]:
        problems.append("integrity_check: " + "; ".join(check[:3]))
    bad_edits = db.execute(
        "SELECT COUNT(*) FROM messages m WHERE m.edited != "
        "(SELECT COUNT(*) FROM message_revisions r WHERE r.message_id = m.id)").fetchone()[0]
    if bad_edits:
        problems.append(f"{bad_edits} messages whose edited count differs from their revisions")
    db.close()
    if fts:
        problems += fts_check(archive, qbarchive)
    return problems


def fts_check(archive, qbarchive):
    """FTS5 'integrity-check' of both indexes through `qbarchive check`, on a copy (the check opens the
    archive for writing, and the original may be in use)."""
    work = tempfile.mkdtemp(prefix="chaos-fts-")
    try:
        copy = os.path.join(work, "copy.sqlite")
        source = sqlite3.connect(f"file:{archive}?mode=ro", uri=True)
        target = sqlite3.connect(copy)
        source.backup(target)
        source.close()
        target.close()
        done = subprocess.run([qbarchive, "check", "--archive", copy, "--json"], capture_output=True, text=True,
                              timeout=600)
        try:
            return json.loads(done.stdout)["problems"]
        except (ValueError, KeyError):
            return [f"qbarchive check exit {done.returncode}: {(done.stderr or done.stdout)[:160]}"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- the comparison --------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qbarchive", default=os.environ.get("QBARCHIVE", "qbarchive"),
                        help="the qbarchive binary that reads the archive (default: $QBARCHIVE, else PATH)")
    parser.add_argument("--archive", required=True, help="a SQLite file, or any address qbarchive --archive takes")
    parser.add_argument("--truth", required=True)
    parser.add_argument("--scope", choices=("app", "user"), default="app")
    parser.add_argument("--user", type=int, default=100001)
    parser.add_argument("--no-fts", action="store_true", help="skip the FTS5 check on a copy (SQLite)")
    parser.add_argument("--recheck-views", type=int, default=16, help="the crawl's --recheck-views")
    parser.add_argument("--summary", action="store_true", help="print one line for a report instead of JSON")
    args = parser.parse_args()
    if "://" not in args.archive and not os.path.exists(args.archive):
        print(f"archive missing: {args.archive}")
        return 2
    users, dialogs, messages, deleted_messages, deleted_dialogs, readers, dialog_readers = load_truth(args.truth)
    everyone = set(users)
    seen_dialogs = {d for d, record in dialogs.items() if visible(record, args.scope, args.user, everyone, dialog_readers)}

    def message_visible(message_id, record):
        if record.get("chat_dialog_id") not in seen_dialogs:
            return False
        if message_id not in readers:
            return True
        return args.user in readers[message_id] if args.scope == "user" else bool(readers[message_id])

    truth_visible = {m for m, record in messages.items() if message_visible(m, record)}

    try:
        records = export_records(args.qbarchive, args.archive)
    except (ExportFailed, OSError, ValueError, tarfile.TarError) as error:
        print(f"the archive could not be read through qbarchive export: {error}")
        return 2
    problems = export_consistency(records)
    if is_sqlite_file(args.archive):
        problems += sqlite_checks(args.archive, fts=not args.no_fts, qbarchive=args.qbarchive)

    rows = records["messages.jsonl"]
    archived_dialogs = {d["id"]: d["deleted_at"] for d in records["dialogs.jsonl"]}
    archived_users = {u["id"] for u in records["users.jsonl"]}

    counts = {"lost": 0, "duplicated": 0, "stale": 0, "extra": 0, "wrongly_tombstoned": 0, "hidden_wrong": 0}
    examples = []
    by_id, dialog_of, unconfirmed = {}, {}, set()
    for row in rows:
        message_id = row["id"]
        if message_id in by_id:
            counts["duplicated"] += 1
            examples.append(f"duplicated {message_id}")
            continue
        by_id[message_id] = (row["raw"], row["text"], row["deleted_at"])
        dialog_of[message_id] = row.get("dialog_id")
        hidden_for = {entry["user"] for entry in row.get("hidden_for") or []}
        if len(hidden_for) > args.recheck_views:
            unconfirmed.add(message_id)
        if message_id in readers and hidden_for & readers[message_id]:
            counts["hidden_wrong"] += 1
            examples.append(f"hidden for a reader {message_id}")
        if args.scope == "user" and message_id not in truth_visible and row["deleted_at"] is None \
                and row.get("dialog_id") in seen_dialogs and args.user not in hidden_for \
                and (message_id in deleted_messages or message_id in messages):
            counts["stale"] += 1
            examples.append(f"gone from the user's view, not recorded hidden {message_id}")
    for message_id in truth_visible:
        if message_id not in by_id:
            counts["lost"] += 1
            examples.append(f"lost {message_id}")
    for message_id, (raw, text, deleted_at) in by_id.items():
        record = messages.get(message_id)
        if record is None:
            if message_id in deleted_messages:
                # A dialog deleted for everyone takes the check of its messages with it: its tombstone covers them.
                if deleted_at is None and args.scope == "app" and message_id not in unconfirmed \
                        and archived_dialogs.get(dialog_of.get(message_id)) is None:
                    counts["stale"] += 1
                    examples.append(f"deleted on the server, not tombstoned {message_id}")
            elif dialog_of.get(message_id) not in deleted_dialogs:  # a dialog deleted for all takes its messages
                counts["extra"] += 1
                examples.append(f"extra {message_id}")
            continue
        # docs/archive-schema.md: a U+0000 in the text column is stored (and exported) as U+FFFD; raw keeps it.
        expected_text = record.get("message")
        if isinstance(expected_text, str):
            expected_text = expected_text.replace("\x00", "\ufffd")
        if canonical(raw) != canonical(record) or text != expected_text:
            counts["stale"] += 1
            examples.append(f"stale {message_id}")
        if deleted_at is not None and (message_id in truth_visible or args.scope == "user"):
            counts["wrongly_tombstoned"] += 1
            examples.append(f"tombstoned but live {message_id}")
        elif (args.scope == "app" and deleted_at is None and message_id not in truth_visible
              and archived_dialogs.get(record.get("chat_dialog_id")) is None and message_id not in unconfirmed):
            # In a dialog someone still lists, but removed by every one of them: no view shows it any more.
            counts["stale"] += 1
            examples.append(f"seen by no one, not tombstoned {message_id}")
    dialogs_lost = sum(1 for d in seen_dialogs if d not in archived_dialogs)
    dialogs_lost += sum(1 for d in seen_dialogs if archived_dialogs.get(d) is not None)  # tombstoned but live
    dialogs_untombstoned = sum(1 for d in deleted_dialogs if d in archived_dialogs and archived_dialogs[d] is None)
    if args.scope == "user":  # one view never proves a dialog deleted for everyone
        dialogs_untombstoned = sum(1 for d in archived_dialogs.values() if d is not None)
    users_lost = sum(1 for u in users if u not in archived_users) if args.scope == "app" else 0
    dialogs_hidden_wrong = 0
    if args.scope == "app":  # user scope records "hidden for me" for whatever left the one list it reads
        truth_hides = load_dialog_hides(args.truth)
        for d in records["dialogs.jsonl"]:
            occupants, hidden = truth_hides.get(d["id"], (set(), set()))
            for entry in d.get("hidden_for") or []:
                if entry["user"] in occupants and entry["user"] not in hidden:
                    dialogs_hidden_wrong += 1
                    examples.append(f"dialog {d['id']} hidden for {entry['user']}, who never removed it")
    result = {
        "visible": len(truth_visible),
        "archived": len(rows),
        "truth_deleted": len(deleted_messages),
        "tombstoned": sum(1 for _, _, d in by_id.values() if d is not None),
        **counts,
        "dialogs_lost": dialogs_lost,
        "dialogs_untombstoned": dialogs_untombstoned,
        "users_lost": users_lost,
        "dialogs_hidden_wrong": dialogs_hidden_wrong,
        "unconfirmed": len(unconfirmed - truth_visible),
        "integrity": "ok" if not problems else "; ".join(problems),
        "examples": examples[:5],
    }
    result["ok"] = (not problems and not any(counts.values()) and not dialogs_lost and not dialogs_untombstoned
                    and not users_lost and not dialogs_hidden_wrong)
    print(summary(result) if args.summary else json.dumps(result, ensure_ascii=False))
    return 0 if result["ok"] else 1


def summary(r):
    s = (f"{r['visible']} visible: lost {r['lost']}, duplicated {r['duplicated']}, stale {r['stale']}, "
         f"extra {r['extra']}")
    if r["tombstoned"] or r["truth_deleted"]:
        s += f"; {r['tombstoned']} tombstoned ({r['truth_deleted']} deleted on the server)"
    if r["wrongly_tombstoned"]:
        s += f"; {r['wrongly_tombstoned']} live ones tombstoned"
    if r["unconfirmed"]:
        s += f"; {r['unconfirmed']} gone for everyone, kept as unconfirmed (groups over --recheck-views)"
    if r["hidden_wrong"]:
        s += f"; {r['hidden_wrong']} recorded hidden for a reader"
    if r["dialogs_hidden_wrong"]:
        s += f"; {r['dialogs_hidden_wrong']} dialogs recorded hidden for an occupant who never removed them"
    if r["dialogs_lost"] or r["users_lost"] or r["dialogs_untombstoned"]:
        s += (f"; dialogs lost {r['dialogs_lost']}, dialogs not tombstoned {r['dialogs_untombstoned']}, "
              f"users lost {r['users_lost']}")
    s += f"; integrity {r['integrity']}"
    if r["examples"]:
        s += " (" + ", ".join(r["examples"][:3]) + ")"
    return s


if __name__ == "__main__":
    sys.exit(main())
