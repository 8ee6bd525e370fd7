#!/usr/bin/env python3
"""Compare a qbarchive archive with the emulator's truth dump (make chaos).

    compare.py --archive A.sqlite --truth truth.jsonl [--scope app | --scope user --user 100001]

Reads the archive read-only (PRAGMA integrity_check there), then checks a copy of it for the FTS5
indexes (their 'integrity-check' command writes). Prints one JSON object:

  visible     truth messages the crawl's scope can see (app: every dialog with an occupant, and
              public ones; user: the user's dialogs and public ones)
  lost        visible truth messages missing from the archive
  duplicated  extra archive rows for one message id, plus FTS5 index rows not matching messages
  stale       archived messages whose raw record or text column differs from the truth's current
              record (an edit not picked up), plus truth deletions the archive holds untombstoned
  extra       archived messages the truth never had (neither live nor deleted)
  wrongly_tombstoned  live, visible truth messages the archive marks deleted
  dialogs_lost, users_lost  visible truth dialogs / users missing from the archive
  integrity   'ok' or the first problem found (PRAGMA integrity_check, FTS5 integrity-check,
              edited = number of revisions)
  ok          true when every count above is 0 and integrity is 'ok'

Exit status 0 when ok, 1 otherwise, 2 on bad arguments or unreadable files.
"""
import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def load_truth(path):
    users, dialogs, messages = {}, {}, {}
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
            elif kind == "message":
                messages[record["_id"]] = record
            elif kind == "deletion":
                (deleted_dialogs if entry.get("type") == "dialog" else deleted_messages).add(entry["_id"])
    return users, dialogs, messages, deleted_messages, deleted_dialogs


def visible(dialog, scope, user):
    if dialog.get("type") == 1:
        return True
    occupants = dialog.get("occupants_ids") or []
    return user in occupants if scope == "user" else bool(occupants)


def fts_check(archive):
    """FTS5 'integrity-check' on a copy (the command needs a writable connection)."""
    work = tempfile.mkdtemp(prefix="chaos-fts-")
    try:
        copy = os.path.join(work, "copy.sqlite")
        source = sqlite3.connect(f"file:{archive}?mode=ro", uri=True)
        target = sqlite3.connect(copy)
        source.backup(target)
        source.close()
        problems = []
        for table in ("message_words", "message_trigrams"):
            try:
                target.execute(f"INSERT INTO {table}({table}, rank) VALUES('integrity-check', 1)")
            except sqlite3.DatabaseError as error:
                problems.append(f"{table}: {error}")
        target.close()
        return problems
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--archive", required=True)
    parser.add_argument("--truth", required=True)
    parser.add_argument("--scope", choices=("app", "user"), default="app")
    parser.add_argument("--user", type=int, default=100001)
    parser.add_argument("--no-fts", action="store_true", help="skip the FTS5 check on a copy")
    parser.add_argument("--summary", action="store_true", help="print one line for a report instead of JSON")
    args = parser.parse_args()
    if not os.path.exists(args.archive):
        print(f"archive missing: {args.archive}")
        return 2
    users, dialogs, messages, deleted_messages, deleted_dialogs = load_truth(args.truth)
    seen_dialogs = {d for d, record in dialogs.items() if visible(record, args.scope, args.user)}
    truth_visible = {m for m, record in messages.items() if record.get("chat_dialog_id") in seen_dialogs}

    db = sqlite3.connect(f"file:{args.archive}?mode=ro", uri=True)
    problems = []
    check = [row[0] for row in db.execute("PRAGMA integrity_check")]
    if check != ["ok"]:
        problems.append("integrity_check: " + "; ".join(check[:3]))
    rows = db.execute("SELECT id, raw, text, deleted_at FROM messages").fetchall()
    bad_edits = db.execute(
        "SELECT COUNT(*) FROM messages m WHERE m.edited != "
        "(SELECT COUNT(*) FROM message_revisions r WHERE r.message_id = m.id)").fetchone()[0]
    if bad_edits:
        problems.append(f"{bad_edits} messages whose edited count differs from their revisions")
    archived_dialogs = {row[0]: row[1] for row in db.execute("SELECT id, deleted_at FROM dialogs")}
    archived_users = {row[0] for row in db.execute("SELECT id FROM users")}
    db.close()
    if not args.no_fts:
        problems += fts_check(args.archive)

    counts, examples = {"lost": 0, "duplicated": 0, "stale": 0, "extra": 0, "wrongly_tombstoned": 0}, []
    by_id = {}
    for message_id, raw, text, deleted_at in rows:
        if message_id in by_id:
            counts["duplicated"] += 1
            examples.append(f"duplicated {message_id}")
            continue
        by_id[message_id] = (raw, text, deleted_at)
    for message_id in truth_visible:
        if message_id not in by_id:
            counts["lost"] += 1
            examples.append(f"lost {message_id}")
    for message_id, (raw, text, deleted_at) in by_id.items():
        record = messages.get(message_id)
        if record is None:
            if message_id in deleted_messages:
                if deleted_at is None:
                    counts["stale"] += 1
                    examples.append(f"deleted on the server, not tombstoned {message_id}")
            else:
                counts["extra"] += 1
                examples.append(f"extra {message_id}")
            continue
        # docs/archive-schema.md: a U+0000 in the text column is stored as U+FFFD (raw keeps it).
        expected_text = record.get("message")
        if isinstance(expected_text, str):
            expected_text = expected_text.replace("\x00", "\ufffd")
        if canonical(json.loads(raw)) != canonical(record) or text != expected_text:
            counts["stale"] += 1
            examples.append(f"stale {message_id}")
        if deleted_at is not None and message_id in truth_visible:
            counts["wrongly_tombstoned"] += 1
            examples.append(f"tombstoned but live {message_id}")
    dialogs_lost = sum(1 for d in seen_dialogs if d not in archived_dialogs)
    dialogs_lost += sum(1 for d in seen_dialogs if archived_dialogs.get(d) is not None)  # tombstoned but live
    dialogs_untombstoned = sum(1 for d in deleted_dialogs if d in archived_dialogs and archived_dialogs[d] is None)
    users_lost = sum(1 for u in users if u not in archived_users) if args.scope == "app" else 0
    result = {
        "visible": len(truth_visible),
        "archived": len(rows),
        "truth_deleted": len(deleted_messages),
        "tombstoned": sum(1 for _, _, d in by_id.values() if d is not None),
        **counts,
        "dialogs_lost": dialogs_lost,
        "dialogs_untombstoned": dialogs_untombstoned,
        "users_lost": users_lost,
        "integrity": "ok" if not problems else "; ".join(problems),
        "examples": examples[:5],
    }
    result["ok"] = (not problems and not any(counts.values()) and not dialogs_lost and not dialogs_untombstoned
                    and not users_lost)
    print(summary(result) if args.summary else json.dumps(result, ensure_ascii=False))
    return 0 if result["ok"] else 1


def summary(r):
    s = (f"{r['visible']} visible: lost {r['lost']}, duplicated {r['duplicated']}, stale {r['stale']}, "
         f"extra {r['extra']}")
    if r["tombstoned"] or r["truth_deleted"]:
        s += f"; {r['tombstoned']} tombstoned ({r['truth_deleted']} deleted on the server)"
    if r["wrongly_tombstoned"]:
        s += f"; {r['wrongly_tombstoned']} live ones tombstoned"
    if r["dialogs_lost"] or r["users_lost"] or r["dialogs_untombstoned"]:
        s += (f"; dialogs lost {r['dialogs_lost']}, dialogs not tombstoned {r['dialogs_untombstoned']}, "
              f"users lost {r['users_lost']}")
    s += f"; integrity {r['integrity']}"
    if r["examples"]:
        s += " (" + ", ".join(r["examples"][:3]) + ")"
    return s


if __name__ == "__main__":
    sys.exit(main())
