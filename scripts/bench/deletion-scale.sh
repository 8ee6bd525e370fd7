#!/usr/bin/env bash
# The "per-user deletion at scale" section of `make bench` (also runnable alone, after `make release`):
#   scripts/bench/deletion-scale.sh OUT.md
# One group of 1,000 occupants (a fixture), GROUP_MESSAGES messages by random occupants, some hidden for one to
# three random users. An app-scope crawl, then users hide messages and owners force-delete others through the
# API, then `crawl --reconcile` with the default --recheck-views (16) and with --recheck-views 0 (every view).
# Counts requests per endpoint from the emulator's own tally, checks the outcome, writes a Markdown section.
set -euo pipefail

QBARCHIVE=${QBARCHIVE:-.build/release/qbarchive}
OUT=${1:?usage: deletion-scale.sh OUT.md}
GROUP_USERS=${GROUP_USERS:-1000}
GROUP_MESSAGES=${GROUP_MESSAGES:-2000}
WORK=$(mktemp -d)
PID=""
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT

python3 - "$WORK/group.jsonl" "$GROUP_USERS" "$GROUP_MESSAGES" <<'PY'
import json, random, sys
path, users, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(19)
ids = [100001 + i for i in range(users)]
t0 = 1_760_000_000
oid = lambda t, n: "%08x%016x" % (t, n)
with open(path, "w") as out:
    for i, u in enumerate(ids):
        out.write(json.dumps({"kind": "user", "record": {"id": u, "login": "user%d" % (i + 1), "full_name": "User %d" % (i + 1)}}) + "\n")
    dialog = oid(t0, 1)
    out.write(json.dumps({"kind": "dialog", "record": {"_id": dialog, "type": 2, "name": "All hands", "user_id": ids[0],
        "occupants_ids": ids, "created_at": t0, "updated_at": t0}}) + "\n")
    for n in range(count):
        sent = t0 + 10 + n
        line = {"kind": "message", "record": {"_id": oid(sent, n + 2), "chat_dialog_id": dialog, "message": "message %d" % n,
            "date_sent": sent, "sender_id": random.choice(ids), "attachments": [], "read_ids": [], "delivered_ids": [],
            "created_at": sent, "updated_at": sent}}
        if n % 40 == 0:  # hidden for one to three random users (the reader, user1, now and then)
            hidden = random.sample(ids, random.randint(1, 3)) + ([ids[0]] if n % 120 == 0 else [])
            line["hidden_for"] = {str(u): sent + 5 for u in hidden}
        out.write(json.dumps(line) + "\n")
PY

"$QBARCHIVE" emulator --port 0 --api-key bench --fixture "$WORK/group.jsonl" >"$WORK/out" 2>"$WORK/err" &
PID=$!
while ! grep -q '^listening on ' "$WORK/out" 2>/dev/null; do
  kill -0 $PID 2>/dev/null || { cat "$WORK/err" >&2; exit 1; }
  sleep 0.05
done
url=$(sed -n 's/^listening on //p' "$WORK/out")
tally() { curl -sS "$url/_emulator/stats" >"$WORK/stats-$1.json"; }
delta() { # $1 before, $2 after, $3 endpoint ("" for all): requests in between
  python3 -c "
import json,sys
a=json.load(open('$WORK/stats-$1.json'))['requests']; b=json.load(open('$WORK/stats-$2.json'))['requests']
keys=[k for k in b if '$3' in k and not k.startswith(('DELETE','POST'))]
print(sum(b[k]-a.get(k,0) for k in keys))"
}
crawl() { QB_ENDPOINT=$url QB_API_KEY=bench "$QBARCHIVE" crawl --archive "$WORK/a.sqlite" --scope app --max-rps 100000 --json "$@" | tail -1; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])['$2'])" "$1"; }

tally 0
first=$(crawl)
tally 1
sqlite3 "$WORK/a.sqlite" ".backup '$WORK/b.sqlite'"  # the same archive, for the every-view reconcile below
dialog=$(python3 -c "import json; print([json.loads(l) for l in open('$WORK/group.jsonl')][$GROUP_USERS]['record']['_id'])")
mapfile -t messages < <(python3 -c "
import json
for l in open('$WORK/group.jsonl'):
    j=json.loads(l)
    if j['kind']=='message' and 'hidden_for' not in j: print(j['record']['_id'], j['record']['sender_id'])")
# 20 force deletes by their senders, 30 hides by the reader (user1), 30 hides by other random users.
n=${#messages[@]}
for i in $(seq 0 19); do set -- ${messages[$((i * 37 % n))]}
  curl -sSf -X DELETE -H "Authorization: ApiKey bench" -H "On-Behalf-Of: $2" "$url/chat/Message/$1.json?force=1" >/dev/null; done
for i in $(seq 0 29); do set -- ${messages[$(((i * 41 + 3) % n))]}
  curl -sSf -X DELETE -H "Authorization: ApiKey bench" -H "On-Behalf-Of: 100001" "$url/chat/Message/$1.json" >/dev/null; done
for i in $(seq 0 29); do set -- ${messages[$(((i * 43 + 5) % n))]}
  curl -sSf -X DELETE -H "Authorization: ApiKey bench" -H "On-Behalf-Of: $((100002 + i * 31 % (GROUP_USERS - 1)))" "$url/chat/Message/$1.json" >/dev/null; done
tally 2
second=$(crawl --reconcile)
tally 3
again=$(crawl --reconcile)
tally 3b
tally 4
fourth=$(QB_ENDPOINT=$url QB_API_KEY=bench "$QBARCHIVE" crawl --archive "$WORK/b.sqlite" --scope app --max-rps 100000 --json --reconcile --recheck-views 0 | tail -1)
tally 5
deleted=$(sqlite3 "$WORK/a.sqlite" "SELECT COUNT(*) FROM messages WHERE deleted_at IS NOT NULL")
hidden=$(sqlite3 "$WORK/a.sqlite" "SELECT COUNT(*) FROM messages WHERE hidden_for IS NOT NULL AND deleted_at IS NULL")
deleted_all=$(sqlite3 "$WORK/b.sqlite" "SELECT COUNT(*) FROM messages WHERE deleted_at IS NOT NULL")
unconfirmed=$(field "$second" messagesUnconfirmed)
# The default cannot prove a force delete in a group this large (kept, unconfirmed); every view can.
[ "$deleted" = 0 ] && [ "$unconfirmed" = 20 ] && [ "$deleted_all" = 20 ] ||
  { echo "deletion bench: expected 0+20 unconfirmed / 20 tombstones, got $deleted+$unconfirmed / $deleted_all" >&2; exit 1; }
kill $PID; wait $PID 2>/dev/null || true; PID=""

cat >"$OUT" <<MD
## Per-user deletion at scale

One group of $GROUP_USERS occupants holding $GROUP_MESSAGES messages by random occupants, every 40th hidden for one
to three random users (a fixture; \`scripts/bench/deletion-scale.sh OUT.md\` reruns it alone). An app-scope crawl
lists every user's dialogs ($GROUP_USERS requests: QuickBlox has no "all dialogs" view) and pages the group once,
through its first user. Then 20 messages are force-deleted by their senders, 30 hidden by that reader and 30 by
other users, and \`crawl --reconcile\` runs: it checks the reader's view and up to \`--recheck-views\` (16) other
users' views (owner first) — each other view walked for what changed since the last reconcile (all of it the first
time, as here), each view's count compared with the archive and walked where it differs — and asks other views
about what a view lacks (\`_id[in]\`, 50 ids a request). Requests by endpoint, from the emulator's tally:

| run | dialog lists | message pages and counts | all requests | outcome |
|---|---:|---:|---:|---|
| first crawl | $(delta 0 1 Dialog) | $(delta 0 1 Message) | $(field "$first" requests) | $(field "$first" messagesNew) new |
| \`--reconcile\` (default, 16 other views) | $(delta 2 3 Dialog) | $(delta 2 3 Message) | $(field "$second" requests) | $deleted tombstoned, $unconfirmed gone from every view checked (kept, unconfirmed), $hidden live messages hidden for someone |
| \`--reconcile\` again, nothing changed | $(delta 3 3b Dialog) | $(delta 3 3b Message) | $(field "$again" requests) | $(field "$again" messagesDeleted) tombstoned, $(field "$again" messagesNew) new |
| \`--reconcile --recheck-views 0\` (all $((GROUP_USERS - 1)) other views; a copy of the archive after the first crawl) | $(delta 4 5 Dialog) | $(delta 4 5 Message) | $(field "$fourth" requests) | $deleted_all tombstoned with evidence (absent from all $GROUP_USERS views) |

A first reconcile walks every view it checks in full (\`⌈messages ÷ 100⌉\` pages, about one more to confirm the
end, and a count); later ones walk other views only for what changed since, plus a count, and walk a view in full
only where its count differs. With \`--recheck-views 0\` that cost grows with the group, as the last row shows. With the default
it is bounded: 1 + 16 views per dialog (the listing, one request per user, is the app scope's own cost), and a
message every checked view lacks is resolved by at most 16 \`_id[in]\` requests per 50 candidates (a force delete
in a group larger than that is kept as hidden for the views checked and reported as unconfirmed, not
tombstoned — \`--recheck-views 0\` proves it, at the price in the last row). Groups of up to 17 users are
checked in every view by default.
MD
echo "deletion bench: wrote $OUT" >&2
