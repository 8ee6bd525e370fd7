#!/usr/bin/env bash
# The attachments section of `make bench` (also runnable alone, after `make release`):
#   scripts/bench/attachments.sh OUT.md
# 1. `crawl --attachments files` of a small data set whose files the emulator makes (about 10 % of them
#    20–50 MB, the rest 5 KB–6 MB), over loopback, beside curl fetching the same files through the same
#    redirects two at a time (like --attachment-concurrency 2) and sha256sum hashing them.
# 2. One 2 GB file: the crawl's peak RSS must not grow with it (the body streams to disk through SHA-256),
#    beside curl | sha256sum on the same file.
# Writes a Markdown section to OUT.md.
set -euo pipefail

QBARCHIVE=${QBARCHIVE:-.build/release/qbarchive}
OUT=${1:?usage: attachments.sh OUT.md}
ATTACH_MESSAGES=${ATTACH_MESSAGES:-2000}
BIG_BYTES=${BIG_BYTES:-2000000000}
WORK=$(mktemp -d)
PID=""
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT

start_emulator() { # extra flags; sets PID and url
  rm -f "$WORK/out" # not the last emulator's address: the redirection below may truncate after the loop reads
  "$QBARCHIVE" emulator --port 0 --api-key bench "$@" >"$WORK/out" 2>"$WORK/err" &
  PID=$!
  while ! grep -q '^listening on ' "$WORK/out" 2>/dev/null; do
    kill -0 $PID 2>/dev/null || { cat "$WORK/err" >&2; exit 1; }
    sleep 0.05
  done
  url=$(sed -n 's/^listening on //p' "$WORK/out")
}
stop_emulator() { kill $PID 2>/dev/null; wait $PID 2>/dev/null || true; PID=""; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc -l | xargs printf '%.1f'; }
mbps() { echo "$1 / 1000000 / $2" | bc -l | xargs printf '%.0f'; }
summary_field() { python3 -c "import json,sys; print(json.loads(open('$1').read().splitlines()[-1])['files']['$2'])"; }

# 1. Many files.
start_emulator --seed 7 --users 10 --dialogs 20 --messages "$ATTACH_MESSAGES" --large-file-rate 0.1
start=$(now)
QB_ENDPOINT=$url QB_API_KEY=bench /usr/bin/time -f '%M' -o "$WORK/rss" "$QBARCHIVE" crawl \
  --archive "$WORK/files.sqlite" --scope app --attachments files --max-rps 100000 --json >"$WORK/files.jsonl"
files_s=$(since "$start")
files_rss=$(( $(cat "$WORK/rss") / 1024 ))
files_n=$(summary_field "$WORK/files.jsonl" downloaded)
files_bytes=$(summary_field "$WORK/files.jsonl" bytes)
"$QBARCHIVE" verify-store --archive "$WORK/files.sqlite" >/dev/null
curl -sS "$url/_emulator/truth?digests=0" | python3 -c '
import json, sys
for line in sys.stdin:
    j = json.loads(line)
    if j["kind"] == "blob": print(j["record"]["uid"])' >"$WORK/uids"
mkdir -p "$WORK/peer"
start=$(now)
xargs -P 2 -I{} sh -c 'curl -sSf -L -H "Authorization: ApiKey bench" "$1/blobs/$2/download" -o "$3/$2" && sha256sum "$3/$2" >/dev/null' \
  _ "$url" {} "$WORK/peer" <"$WORK/uids"
peer_s=$(since "$start")
peer_bytes=$(du -sb "$WORK/peer" | cut -f1)
stop_emulator
rm -rf "$WORK/peer" "$WORK"/files.sqlite*

# 2. One large file: a truth dump of a tiny world whose first blob is made BIG_BYTES long.
start_emulator --seed 8 --users 2 --dialogs 1 --messages 40 --large-file-rate 0
curl -sS "$url/_emulator/truth?digests=0" >"$WORK/tiny.jsonl"
stop_emulator
python3 - "$WORK/tiny.jsonl" "$WORK/big.jsonl" "$BIG_BYTES" <<'PY'
import json, sys
source, target, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = [json.loads(l) for l in open(source)]
blobs = [l for l in lines if l["kind"] == "blob"]
keep = blobs[0]["record"]["uid"]
blobs[0]["record"]["size"] = size
# Only the big file stays a blob, so the crawl downloads exactly it.
lines = [l for l in lines if l["kind"] != "blob" or l["record"]["uid"] == keep]
with open(target, "w") as out:
    for l in lines: out.write(json.dumps(l) + "\n")
open(target + ".uid", "w").write(keep)
PY
start_emulator --fixture "$WORK/big.jsonl"
big_uid=$(cat "$WORK/big.jsonl.uid")
start=$(now)
QB_ENDPOINT=$url QB_API_KEY=bench /usr/bin/time -f '%M' -o "$WORK/rss" "$QBARCHIVE" crawl \
  --archive "$WORK/big.sqlite" --scope app --attachments files --json >"$WORK/big-crawl.jsonl"
big_s=$(since "$start")
big_rss=$(( $(cat "$WORK/rss") / 1024 ))
big_stored=$(summary_field "$WORK/big-crawl.jsonl" bytes)
[ "$big_stored" -ge "$BIG_BYTES" ] || { echo "attachments bench: the large file was not stored" >&2; exit 1; }
rm -rf "$WORK"/big.sqlite*
start=$(now)
curl -sSf -L -H "Authorization: ApiKey bench" "$url/blobs/$big_uid/download" | sha256sum >/dev/null
big_peer_s=$(since "$start")
stop_emulator

cat >"$OUT" <<MD
## Attachments

\`qbarchive crawl --attachments files\` over loopback: the emulator makes every file's bytes as it sends them
(it shares the 2 cores), the crawler streams each body to a temporary file through SHA-256, fsyncs it and
renames it into the content-addressed store. The peer is curl fetching the same files through the same
redirects, two at a time (\`--attachment-concurrency\` defaults to 2), each file then hashed by sha256sum; both
wait mostly on the emulator making the bytes.
The crawl rows include paging the $ATTACH_MESSAGES messages (under a second). Rerun alone with
\`scripts/bench/attachments.sh OUT.md\` after \`make release\`.

| what | qbarchive | MB/s | peak RSS | peer | MB/s | peer command |
|---|---:|---:|---:|---:|---:|---|
| $files_n files, $(echo "$files_bytes / 1000000" | bc) MB (10 % of them 20–50 MB) | $files_s s | $(mbps "$files_bytes" "$files_s") | $files_rss MiB | $peer_s s | $(mbps "$peer_bytes" "$peer_s") | \`xargs -P2 curl -L …/blobs/UID/download -o F && sha256sum F\` |
| one file of $(echo "$BIG_BYTES / 1000000" | bc) MB | $big_s s | $(mbps "$BIG_BYTES" "$big_s") | $big_rss MiB | $big_peer_s s | $(mbps "$BIG_BYTES" "$big_peer_s") | \`curl -L …/blobs/UID/download \| sha256sum\` (no file written) |

Peak memory does not follow the file's size: the body never sits in memory, only libcurl's buffer does.
MD
echo "attachments bench: wrote $OUT" >&2
