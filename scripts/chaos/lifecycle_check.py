#!/usr/bin/env python3
"""Plans and judges the "lifecycle" section of make chaos: kill -9 during `erase` and `retain --apply`.

    lifecycle_check.py plan-erase  --archive A --truth T --count N --seed S --out PLAN.json
    lifecycle_check.py plan-retain --archive A --truth T --seed S --out PLAN.json
    lifecycle_check.py judge --qbarchive BIN --archive COPY --plan PLAN.json --target I [--final]
    lifecycle_check.py leftovers --archive COPY --plan PLAN.json --target I
    lifecycle_check.py snapshot --archive BACKUP
    lifecycle_check.py args --plan PLAN.json --target I     # the erase or retain flags for a target

plan-erase picks N erasure targets in a converged archive (people and dialogs with many messages, single
messages; seeded) and, for each, marker texts: substrings (12 bytes or more) of its messages' texts and of
their earlier versions that occur in no other message or revision of the archive or the emulator's truth,
nor in a user or dialog field of the truth (the dialogs' `last_message` aside: it repeats a message's text,
so an erasure must not leave it behind either), plus control texts of other messages that must survive.
plan-retain picks a cutoff in the middle of the archived dates (printed as hours before now, for
`retain --older-than NNNh`), markers of messages more than a day older and controls more than a day newer.
Every marker and control must be found in the raw bytes of the archive (file, -wal, -shm) before anything is
erased: the scan's own positive control (a text split across an overflow page is dropped, not counted).

judge reads a copy after `erase`/`retain` was killed (or after a complete run, --final) and prints one line;
exit 0 when it holds, 1 otherwise. The target is whole or absent, never half:
  absent  no target message erased, their texts and earlier versions all still there, no register entry
          (`erasures`), a person's login unchanged;
  whole   every target message erased (erased_at set, text NULL, no earlier versions), a register entry, a
          person's login a pseudonym; "purge pending" while `erasures.purged_at` is NULL (the documented
          state between the transaction and the byte purge, completed by the next erase or crawl).
Then `qbarchive check --json` must say sound, and `qbarchive search 'message ctn "MARKER" or …'` must find
every marker's message (absent) or none of the target's (whole). --final also demands whole and purged, no
marker in the raw bytes of the file, its -wal and -shm, and every control text still there.

leftovers checks the texts of erased messages that were a dialog's last message (kept apart from the markers
above: QuickBlox repeats that text in the dialog's record) and says where any still is. snapshot checks a
backup beyond integrity_check: foreign keys, and each message's edited count against its earlier versions.
"""
import argparse
import calendar
import json
import math
import random
import sqlite3
import subprocess
import sys
import time

MIN_BYTES = 12
MAX_CHARS = 32


def strings(value):
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def load_truth(path):
    """Texts per message id (current and earlier versions) and every other string of the truth."""
    texts, other = {}, []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            entry = json.loads(line)
            kind, record = entry["kind"], entry.get("record") or {}
            if kind in ("message", "revision", "deletion") and "chat_dialog_id" in record:
                texts.setdefault(record["_id"], []).extend(strings(record))
            elif kind == "dialog":
                other.extend(strings({k: v for k, v in record.items() if k != "last_message"}))
            else:
                other.extend(strings(record))
    return texts, other


def usable(marker):
    return (len(marker.encode("utf-8")) >= MIN_BYTES and not any(c in marker for c in '"\\\u2028\u2029')
            and all(ord(c) >= 0x20 and ord(c) != 0x7F for c in marker) and marker.strip() == marker)


def candidates(text):
    """Substrings of a text to try as markers: windows of up to MAX_CHARS characters, the first first."""
    if not text:
        return
    for start in range(0, max(1, len(text) - 4), 7):
        window = text[start:start + MAX_CHARS].strip()
        if usable(window):
            yield window


def raw_bytes(archive):
    chunks = []
    for suffix in ("", "-wal", "-shm"):
        try:
            with open(archive + suffix, "rb") as handle:
                chunks.append(handle.read())
        except FileNotFoundError:
            pass
    return b"\x00".join(chunks)


def connect(archive):
    return sqlite3.connect(f"file:{archive}?mode=ro", uri=True)


def selection(kind, ident):
    return {"user": ("sender_id = ?", int(ident) if kind == "user" else ident), "dialog": ("dialog_id = ?", ident),
            "message": ("id = ?", ident), "retention": ("date_sent < ?", ident)}[kind]


class Picker:
    """Finds markers: substrings that occur only in the texts of a given set of messages."""

    def __init__(self, truth, archive):
        self.texts, other = load_truth(truth)
        self.db = connect(archive)
        # The archive's own texts too: it keeps messages the truth no longer lists (those of a dialog deleted
        # for everyone, which the truth records as one dialog deletion).
        for mid, text, raw in self.db.execute("SELECT id, text, raw FROM messages"):
            self.texts.setdefault(mid, []).extend(t for t in (text, raw) if t)
        for mid, text in self.db.execute("SELECT message_id, text FROM message_revisions WHERE text IS NOT NULL"):
            self.texts.setdefault(mid, []).append(text)
        self.raw = raw_bytes(archive)
        self.other = other

    def haystack(self, own):
        parts = [s for mid, values in self.texts.items() if mid not in own for s in values]
        return "\x00".join(parts + self.other)

    def markers(self, ids, want, rng, haystack=None):
        """Up to `want` markers from the current texts and earlier versions of the messages `ids`."""
        haystack = self.haystack(set(ids)) if haystack is None else haystack
        ids = list(ids)
        rng.shuffle(ids)
        edited = {r[0] for r in self.db.execute("SELECT DISTINCT message_id FROM message_revisions")}
        ids.sort(key=lambda mid: mid not in edited)  # earlier versions first: they must go too
        found = []
        for mid in ids:
            current = self.db.execute("SELECT text FROM messages WHERE id = ?", (mid,)).fetchone()
            earlier = [r[0] for r in self.db.execute("SELECT text FROM message_revisions WHERE message_id = ?",
                                                     (mid,)) if r[0]]
            for where, text in [("text", current[0] if current else None)] + [("revision", t) for t in earlier]:
                if len(found) >= want:
                    return found
                for marker in candidates(text):
                    if marker in haystack or marker.encode("utf-8") not in self.raw:
                        continue
                    if any(marker in m["text"] or m["text"] in marker for m in found):
                        continue
                    found.append({"text": marker, "message": mid, "in": where})
                    break
        return found


def target_ids(db, kind, ident):
    where, argument = selection(kind, ident)
    return [r[0] for r in db.execute(f"SELECT id FROM messages WHERE {where} AND erased_at IS NULL", (argument,))]


def target_facts(db, kind, ident):
    where, argument = selection(kind, ident)
    ids = target_ids(db, kind, ident)
    with_text = db.execute(f"SELECT COUNT(*) FROM messages WHERE {where} AND text IS NOT NULL",
                           (argument,)).fetchone()[0]
    revisions = db.execute(f"SELECT COUNT(*) FROM message_revisions WHERE message_id IN "
                           f"(SELECT id FROM messages WHERE {where})", (argument,)).fetchone()[0]
    login = None
    if kind == "user":
        row = db.execute("SELECT login FROM users WHERE id = ?", (int(ident),)).fetchone()
        login = row[0] if row else None
    return {"messages": len(ids), "with_text": with_text, "revisions": revisions, "login": login}


def last_messages(db):
    """The ids of the messages that are some dialog's last message: the dialog's record repeats their text."""
    return {r[0] for r in db.execute("SELECT json_extract(raw, '$.last_message_id') FROM dialogs") if r[0]}


def controls_for(picker, db, where, argument, rng, want):
    """Markers of messages outside a selection: texts that must survive its erasure."""
    others = [r[0] for r in db.execute(f"SELECT id FROM messages WHERE NOT ({where}) AND text IS NOT NULL ORDER BY id",
                                       (argument,))]
    rng.shuffle(others)
    found = []
    for mid in others[:300]:
        found += picker.markers([mid], 1, rng)
        if len(found) >= want:
            break
    return found


def plan_erase(args):
    rng = random.Random(args.seed * 7919 + 11)
    picker = Picker(args.truth, args.archive)
    db = picker.db
    last = last_messages(db)
    users = [r[0] for r in db.execute(
        "SELECT sender_id, COUNT(*) n FROM messages WHERE sender_id IS NOT NULL AND text IS NOT NULL "
        "GROUP BY sender_id HAVING n >= 20 ORDER BY n DESC, sender_id LIMIT 8")]
    dialogs = [r[0] for r in db.execute(
        "SELECT dialog_id, COUNT(*) n FROM messages WHERE text IS NOT NULL GROUP BY dialog_id HAVING n >= 20 "
        "ORDER BY n DESC, dialog_id LIMIT 8")]
    singles = [r[0] for r in db.execute("SELECT id FROM messages WHERE length(text) >= 24 ORDER BY id")]
    rng.shuffle(users)
    rng.shuffle(dialogs)
    rng.shuffle(singles)
    # the second message erased is a dialog's last message (its text is in the dialog's record too)
    pools = {"user": users, "dialog": dialogs, "message": [m for m in singles if m not in last],
             "last message": [m for m in singles if m in last]}
    order = ["user", "dialog", "user", "dialog", "message", "user", "dialog", "last message"]
    targets, used = [], set()
    for i in range(args.count):
        pool = pools[order[i % len(order)]]
        kind = order[i % len(order)].split()[-1]
        while pool:
            ident = str(pool.pop(0))
            ids = target_ids(db, kind, ident)
            markers = picker.markers([m for m in ids if m not in last], 6 if kind != "message" else 1, rng)
            lasts = picker.markers([m for m in ids if m in last], 2, rng)
            if (markers or lasts) and (kind, ident) not in used:
                break
        else:
            sys.exit(f"no {kind} with unique texts left for target {i + 1}")
        used.add((kind, ident))
        where, argument = selection(kind, ident)
        targets.append({"kind": kind, "id": ident, "facts": target_facts(db, kind, ident), "markers": markers,
                        "last": lasts, "controls": controls_for(picker, db, where, argument, rng, 4)})
    json.dump({"targets": targets}, open(args.out, "w", encoding="utf-8"), ensure_ascii=False, indent=1)
    print(", ".join(f"{t['kind']} {t['id']} ({t['facts']['messages']} messages, "
                    f"{len(t['markers']) + len(t['last'])} texts)" for t in targets))


def plan_retain(args):
    rng = random.Random(args.seed * 104729 + 5)
    picker = Picker(args.truth, args.archive)
    db = picker.db
    last = last_messages(db)
    dates = [r[0] for r in db.execute("SELECT date_sent FROM messages WHERE erased_at IS NULL ORDER BY date_sent")]
    cutoff = dates[len(dates) * rng.randint(35, 65) // 100]
    hours = math.ceil((time.time() - cutoff) / 3600)
    cutoff = int(time.time()) - hours * 3600  # what `retain --older-than NNNh` will compute (give or take)
    old = [r[0] for r in db.execute("SELECT id FROM messages WHERE date_sent < ? AND text IS NOT NULL ORDER BY id",
                                    (cutoff - 86400,))]
    rng.shuffle(old)
    markers, lasts = [], []
    for mid in old[:600]:  # texts found in this one message only
        if mid in last:
            lasts += picker.markers([mid], 1, rng) if len(lasts) < 3 else []
        elif len(markers) < 12:
            markers += picker.markers([mid], 1, rng)
        if len(markers) >= 12 and len(lasts) >= 3:
            break
    controls = controls_for(picker, db, "date_sent < ?", cutoff + 86400, rng, 6)
    if not markers or not controls:
        sys.exit("no unique texts on both sides of the cutoff")
    target = {"kind": "retention", "id": cutoff, "hours": hours, "facts": target_facts(db, "retention", cutoff),
              "markers": markers, "last": lasts, "controls": controls}
    json.dump({"targets": [target]}, open(args.out, "w", encoding="utf-8"), ensure_ascii=False, indent=1)
    print(f"{hours}h")


def leftovers(args):
    """The texts of erased messages that were a dialog's last message still in the file, and where: prints
    "LEFT CHECKED TARGET: LEFT of CHECKED, in TABLE.COLUMN"."""
    target = json.load(open(args.plan, encoding="utf-8"))["targets"][args.target]
    raw = raw_bytes(args.archive)
    left = [m for m in target["last"] if m["text"].encode("utf-8") in raw]
    db = connect(args.archive)
    places = []
    for m in left:
        for table, column in (("dialogs", "raw"), ("messages", "text"), ("messages", "raw"),
                              ("message_revisions", "text")):
            n = db.execute(f"SELECT COUNT(*) FROM {table} WHERE instr({column}, ?)", (m["text"],)).fetchone()[0]
            if n:
                places.append(f"{table}.{column}")
    name = "retention" if target["kind"] == "retention" else f"{target['kind']} {target['id']}"
    where = f", in {', '.join(sorted(set(places)))}" if places else ""
    print(f"{len(left)} {len(target['last'])} {name}: {len(left)} of {len(target['last'])}{where}")


def search_hits(qbarchive, archive, markers):
    query = " or ".join(f'message ctn "{m["text"]}"' for m in markers)
    done = subprocess.run([qbarchive, "search", "--archive", archive, "--json", "--limit", "100000", query],
                          capture_output=True, text=True, timeout=120)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"search exit {done.returncode}: {(done.stderr or done.stdout).strip()[:160]}")
    try:
        document = json.loads(done.stdout)
    except ValueError:
        raise RuntimeError(f"search exit {done.returncode} printed no JSON: {done.stderr.strip()[:160]}") from None
    return {hit["id"] for hit in document.get("hits", [])}


def judge(args):
    target = json.load(open(args.plan, encoding="utf-8"))["targets"][args.target]
    kind, ident, before = target["kind"], target["id"], target["facts"]
    db = connect(args.archive)
    problems = []
    register = db.execute("SELECT target_id, purged_at FROM erasures WHERE target_kind = ? "
                          "AND (target_id = ? OR ? = 'retention')", (kind, str(ident), kind)).fetchall()
    where, argument = selection(kind, ident)
    if kind == "retention" and register:
        # the cutoff the run computed from its own clock, as its register entry records it
        stamp = register[-1][0]
        argument = calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
    counts = db.execute(
        f"SELECT COUNT(*), SUM(erased_at IS NOT NULL AND text IS NULL), SUM(erased_at IS NOT NULL), "
        f"SUM(erased_at IS NULL AND text IS NOT NULL) FROM messages WHERE {where}", (argument,)).fetchone()
    total, erased, marked, live_text = (c or 0 for c in counts)
    revisions = db.execute(f"SELECT COUNT(*) FROM message_revisions WHERE message_id IN "
                           f"(SELECT id FROM messages WHERE {where})", (argument,)).fetchone()[0]
    beyond = 0
    if kind == "retention":
        beyond = db.execute("SELECT COUNT(*) FROM messages WHERE erased_at IS NOT NULL AND date_sent >= ?",
                            (argument,)).fetchone()[0]
    login = None
    if kind == "user":
        row = db.execute("SELECT login FROM users WHERE id = ?", (int(ident),)).fetchone()
        login = row[0] if row else None
    if marked == 0 and not register and revisions == before["revisions"] and live_text == before["with_text"] \
            and (kind != "user" or login == before["login"]):
        state = "absent"
    elif total and erased == total and revisions == 0 and register and beyond == 0 \
            and (kind != "user" or (login or "").startswith("erased-")):
        state = "whole" + (", purge pending" if any(r[1] is None for r in register) else "")
    else:
        state = "half"
        problems.append(f"half: {erased} of {total} messages erased ({marked} marked erased), {live_text} of "
                        f"{before['with_text']} texts and {revisions} of {before['revisions']} earlier versions left, "
                        f"{len(register)} register entries, {beyond} newer messages erased, login {login!r}")
    db.close()
    done = subprocess.run([args.qbarchive, "check", "--archive", args.archive, "--json"], capture_output=True,
                          text=True, timeout=300)
    try:
        sound = json.loads(done.stdout)
        if not sound["sound"]:
            problems.append("check: " + "; ".join(sound["problems"][:3]))
    except (ValueError, KeyError):
        problems.append(f"check exit {done.returncode}: {(done.stderr or done.stdout).strip()[:160]}")
    current = [m for m in target["markers"] if m["in"] == "text"]
    if current and state != "half":
        try:
            hits = search_hits(args.qbarchive, args.archive, current)
            wanted = {m["message"] for m in current}
            if state == "absent" and not wanted <= hits:
                problems.append(f"search finds {len(wanted & hits)} of {len(wanted)} unerased marker messages")
            if state.startswith("whole") and wanted & hits:
                problems.append(f"search still finds {len(wanted & hits)} erased marker messages")
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            problems.append(str(error))
    note = ""
    if args.final:
        if state != "whole":
            problems.append(f"after a complete run the target is {state}")
        raw = raw_bytes(args.archive)
        left = [m for m in target["markers"] if m["text"].encode("utf-8") in raw]
        kept = [m for m in target["controls"] if m["text"].encode("utf-8") in raw]
        if left:
            problems.append(f"{len(left)} of {len(target['markers'])} erased texts still in the bytes "
                            f"({', '.join(repr(m['text']) + ' of ' + m['message'] + ' ' + m['in'] for m in left[:3])})")
        if len(kept) != len(target["controls"]):
            problems.append(f"only {len(kept)} of {len(target['controls'])} other texts still in the bytes")
        note = (f"; {len(left)} of {len(target['markers'])} erased texts in the bytes, "
                f"{len(kept)} of {len(target['controls'])} others still there")
    if problems:
        print("FAIL " + "; ".join(problems))
        return 1
    print(state + note)
    return 0


def snapshot(args):
    """A backup's own consistency beyond integrity_check: foreign keys, and each message's edited count
    against its earlier versions (written in one transaction with it: a torn copy would differ)."""
    db = connect(args.archive)
    problems = []
    keys = db.execute("PRAGMA foreign_key_check").fetchall()
    if keys:
        problems.append(f"{len(keys)} rows whose foreign key names nothing (first in {keys[0][0]})")
    edits = db.execute("SELECT COUNT(*) FROM messages m WHERE m.edited != "
                       "(SELECT COUNT(*) FROM message_revisions r WHERE r.message_id = m.id)").fetchone()[0]
    if edits:
        problems.append(f"{edits} messages whose edited count differs from their earlier versions")
    print("; ".join(problems) or "ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("plan-erase", "plan-retain"):
        p = sub.add_parser(name)
        p.add_argument("--archive", required=True)
        p.add_argument("--truth", required=True)
        p.add_argument("--seed", type=int, default=7)
        p.add_argument("--count", type=int, default=8)
        p.add_argument("--out", required=True)
    p = sub.add_parser("leftovers")
    p.add_argument("--archive", required=True)
    p.add_argument("--plan", required=True)
    p.add_argument("--target", type=int, required=True)
    p = sub.add_parser("snapshot")
    p.add_argument("--archive", required=True)
    p = sub.add_parser("args")
    p.add_argument("--plan", required=True)
    p.add_argument("--target", type=int, required=True)
    p = sub.add_parser("judge")
    p.add_argument("--qbarchive", required=True)
    p.add_argument("--archive", required=True)
    p.add_argument("--plan", required=True)
    p.add_argument("--target", type=int, required=True)
    p.add_argument("--final", action="store_true")
    args = parser.parse_args()
    if args.command == "plan-erase":
        plan_erase(args)
    elif args.command == "plan-retain":
        plan_retain(args)
    elif args.command == "leftovers":
        leftovers(args)
    elif args.command == "snapshot":
        snapshot(args)
    elif args.command == "args":
        t = json.load(open(args.plan, encoding="utf-8"))["targets"][args.target]
        print(f"--older-than {t['hours']}h --apply" if t["kind"] == "retention" else f"--{t['kind']} {t['id']}")
    else:
        sys.exit(judge(args))


if __name__ == "__main__":
    main()
