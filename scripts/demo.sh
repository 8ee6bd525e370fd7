#!/usr/bin/env bash
# The demo behind `make demo`: start the QuickBlox emulator with seeded data and talk to it the way
# a QuickBlox client does. Grows with each capability (crawl, search, export).
set -euo pipefail

QBARCHIVE=${QBARCHIVE:-.build/release/qbarchive}
DEMO_DIR=${DEMO_DIR:-demo}
mkdir -p "$DEMO_DIR"

APP_ID=1
AUTH_KEY=emulator-auth-key
AUTH_SECRET=emulator-auth-secret
API_KEY=demo-api-key

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Starting the QuickBlox emulator (seed 42: 50 users, 200 dialogs, 20,000 messages)"
"$QBARCHIVE" emulator --port 0 --seed 42 --users 50 --dialogs 200 --messages 20000 \
  --api-key "$API_KEY" --dump-truth "$DEMO_DIR/truth.jsonl" >"$DEMO_DIR/emulator.out" 2>"$DEMO_DIR/emulator.log" &
EMULATOR_PID=$!
trap 'kill $EMULATOR_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q '^listening on ' "$DEMO_DIR/emulator.out" 2>/dev/null && break
  kill -0 $EMULATOR_PID 2>/dev/null || { cat "$DEMO_DIR/emulator.log" >&2; exit 1; }
  sleep 0.1
done
BASE=$(sed -n 's/^listening on //p' "$DEMO_DIR/emulator.out")
echo "emulator: $BASE (pid $EMULATOR_PID)"

step "POST /session.json — a user session, signed with HMAC-SHA1 over the sorted raw parameters"
TS=$(date +%s); NONCE=$RANDOM
MESSAGE="application_id=$APP_ID&auth_key=$AUTH_KEY&nonce=$NONCE&timestamp=$TS&user[login]=user1&user[password]=password1"
SIGNATURE=$(printf '%s' "$MESSAGE" | openssl dgst -sha1 -hmac "$AUTH_SECRET" | awk '{print $NF}')
echo "signed: $MESSAGE"
SESSION=$(curl -sS -X POST "$BASE/session.json" \
  --data-urlencode "application_id=$APP_ID" --data-urlencode "auth_key=$AUTH_KEY" \
  --data-urlencode "timestamp=$TS" --data-urlencode "nonce=$NONCE" \
  --data-urlencode "user[login]=user1" --data-urlencode "user[password]=password1" \
  --data-urlencode "signature=$SIGNATURE")
echo "$SESSION"
TOKEN=$(printf '%s' "$SESSION" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')

step "GET /chat/Dialog.json — user1's three most recent dialogs (QB-Token header)"
curl -sS -H "QB-Token: $TOKEN" "$BASE/chat/Dialog.json?limit=3" | sed -n "1,40p" | cut -c1-1200; echo

DIALOG=$(curl -sS -H "QB-Token: $TOKEN" "$BASE/chat/Dialog.json?limit=1&type=2" | sed -n 's/.*"items":\[{"_id":"\([0-9a-f]*\)".*/\1/p')
step "GET /chat/Message.json — two messages of group dialog $DIALOG, mark_as_read=0 so nothing changes"
curl -sS -H "QB-Token: $TOKEN" "$BASE/chat/Message.json?chat_dialog_id=$DIALOG&limit=2&mark_as_read=0"; echo

step "count=1 and a filter copied from a QuickBlox request: message[ctn]=refund"
curl -sS -H "QB-Token: $TOKEN" "$BASE/chat/Message.json?chat_dialog_id=$DIALOG&count=1&mark_as_read=0"; echo
curl -sS -H "QB-Token: $TOKEN" "$BASE/chat/Message.json?chat_dialog_id=$DIALOG&message%5Bctn%5D=refund&count=1&mark_as_read=0"; echo

step "The same through an API key acting On-Behalf-Of user 100002"
curl -sS -H "Authorization: ApiKey $API_KEY" -H "On-Behalf-Of: 100002" "$BASE/chat/Dialog.json?count=1"; echo

step "Errors are QuickBlox-shaped JSON"
curl -sS -w '  (HTTP %{http_code})\n' "$BASE/chat/Dialog.json"
curl -sS -w '  (HTTP %{http_code})\n' -H "QB-Token: $TOKEN" "$BASE/chat/Message.json"

step "qbarchive crawl — user1's dialogs into $DEMO_DIR/archive.sqlite (credentials from the environment)"
rm -rf "$DEMO_DIR/archive.sqlite" "$DEMO_DIR/archive.sqlite-wal" "$DEMO_DIR/archive.sqlite-shm" "$DEMO_DIR/archive.sqlite.files"
export QB_ENDPOINT="$BASE" QB_APP_ID=$APP_ID QB_AUTH_KEY=$AUTH_KEY QB_AUTH_SECRET=$AUTH_SECRET QB_LOGIN=user1 QB_PASSWORD=password1
"$QBARCHIVE" crawl --archive "$DEMO_DIR/archive.sqlite"

step "A second run asks only for what changed (here: 40 live changes made in between)"
curl -sS -X POST "$BASE/_emulator/live?count=40" >/dev/null
"$QBARCHIVE" crawl --archive "$DEMO_DIR/archive.sqlite"

step "The files attachments name, downloaded into a content-addressed store (--attachments files)"
"$QBARCHIVE" crawl --archive "$DEMO_DIR/archive.sqlite" --attachments files --attachment-max-bytes 2M
"$QBARCHIVE" status --archive "$DEMO_DIR/archive.sqlite" | sed -n "1,2p"
"$QBARCHIVE" verify-store --archive "$DEMO_DIR/archive.sqlite"
ls "$DEMO_DIR/archive.sqlite.files/sha256" | sed -n "1,3p"

step "Every user's dialogs through the API key (--scope app), with --reconcile, as JSON events"
QB_API_KEY=$API_KEY "$QBARCHIVE" crawl --archive "$DEMO_DIR/archive-app.sqlite" --scope app --reconcile --json | tail -n 1

step "qbarchive search — words in every script, a sender by login, operators from Slack and Gmail, substrings (ctn)"
"$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" --limit 5 'refund'
"$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" --limit 4 '北京 or καλημερα or مرحبا or 🎉'
"$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" --limit 3 'from:user2 message ctn "http"'
echo "links in one-to-one dialogs: $("$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" --count 'has:link is:private')"
"$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" 'zzqqxx before:2001-01-01' || true

step "A saved moderation review (queries/payment-scams.qbq) with 1 message of context, and a bad query"
"$QBARCHIVE" queries | sed -n "1,6p"
"$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" --limit 2 --context 1 @payment-scams
"$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" 'sendr_id = 5' || echo "(exit code $? — a query error is never an empty result)"
"$QBARCHIVE" search --archive "$DEMO_DIR/archive-app.sqlite" 'text like refund' || echo "(exit code $? — another language's operator, shown our way)"

step "qbarchive export — a signed, reproducible bundle for compliance, verified; then one byte changed"
rm -rf "$DEMO_DIR/keys" "$DEMO_DIR"/exports && mkdir -p "$DEMO_DIR/exports"
"$QBARCHIVE" keygen "$DEMO_DIR/keys/compliance"
"$QBARCHIVE" export --archive "$DEMO_DIR/archive-app.sqlite" --sign "$DEMO_DIR/keys/compliance" \
  --out "$DEMO_DIR/exports/all.tar.gz"
"$QBARCHIVE" verify "$DEMO_DIR/exports/all.tar.gz" --key "$DEMO_DIR/keys/compliance.pub"
tar -tzf "$DEMO_DIR/exports/all.tar.gz" | sed -n "1,6p"
cp "$DEMO_DIR/exports/all.tar.gz" "$DEMO_DIR/exports/tampered.tar.gz"
printf 'X' | dd of="$DEMO_DIR/exports/tampered.tar.gz" bs=1 seek=2000 conv=notrunc 2>/dev/null
"$QBARCHIVE" verify "$DEMO_DIR/exports/tampered.tar.gz" || echo "(exit code $? — the damage is found and named)"
"$QBARCHIVE" export --archive "$DEMO_DIR/archive-app.sqlite" --format csv --where @payment-scams \
  --out "$DEMO_DIR/exports/payment-scams.csv"
head -c 300 "$DEMO_DIR/exports/payment-scams.csv"; echo

step "qbarchive stats — volume, top senders, first-reply times, coverage (and SVG charts)"
"$QBARCHIVE" stats --archive "$DEMO_DIR/archive-app.sqlite" --by month --top 5 --svg "$DEMO_DIR/charts" | sed -n "1,60p"

step "qbarchive serve — the moderator web UI and JSON API (read-only on the archive, every search audited)"
"$QBARCHIVE" serve --archive "$DEMO_DIR/archive-app.sqlite" --port 0 --exports "$DEMO_DIR/exports" \
  >"$DEMO_DIR/serve.out" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do [ -s "$DEMO_DIR/serve.out" ] && break; sleep 0.1; done
UI=$(sed -n 's/.*\(http:[^ ]*\).*/\1/p' "$DEMO_DIR/serve.out" | sed -n 1p)
echo "service: $UI"
curl -sS "${UI}healthz"; echo
curl -sS "${UI}api/search?q=refund&limit=1" | cut -c1-300; echo
curl -sS -o /dev/null -w 'GET /search?q=refund → HTTP %{http_code}, %{size_download} bytes of HTML\n' "${UI}search?q=refund"
kill -TERM $SERVE_PID; wait $SERVE_PID 2>/dev/null || true
"$QBARCHIVE" audit verify --archive "$DEMO_DIR/archive-app.sqlite"

step "Ground truth: /_emulator/stats and the truth dump ($DEMO_DIR/truth.jsonl)"
curl -sS "$BASE/_emulator/stats"; echo
kill -TERM $EMULATOR_PID; wait $EMULATOR_PID 2>/dev/null || true
trap - EXIT
for kind in user dialog message revision deletion blob; do
  printf '%-9s %s\n' "$kind" "$(grep -c "\"kind\":\"$kind\"" "$DEMO_DIR/truth.jsonl" || true)"
done

step "Done"
echo "Archives: $DEMO_DIR/archive.sqlite (user1) and $DEMO_DIR/archive-app.sqlite (every user)."
echo "Next: 'qbarchive crawl --help' and docs/backups.md for scheduled runs; 'qbarchive search --help' and"
echo "docs/query-language.md for moderation searches; docs/exports.md for bundles and how to verify them;"
echo "docs/emulator.md for the emulator; docs/stats.md and docs/service.md for stats and the web UI."
echo
echo "The web UI over the demo archive: make serve-demo, then open http://127.0.0.1:8080/"
