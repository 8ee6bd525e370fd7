#!/usr/bin/env bash
# PostgreSQL beside SQLite on the same data (issue 22), sourced by scripts/bench.sh after its SQLite sections:
# a throwaway cluster in $WORK (initdb, a unix socket; as `postgres` when root), then ingest (a crawl with no
# added latency), one and two crawl workers at $LATENCY ms, searches (whole processes, p50 of $RUNS) and a
# JSON Lines export, each beside the SQLite figure of the same run. Sets $postgres_section (markdown).
# Every figure is checked: the PostgreSQL archive must hold as many messages as the SQLite one.

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pg_bin/initdb" ] || { echo "bench: PostgreSQL is missing (make deps installs it)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
PG_DIR=$(mktemp -d /tmp/qbarchive-bench-pg-XXXXXX)
mkdir -p "$PG_DIR/socket"
[ "$(id -u)" = 0 ] && chown -R postgres "$PG_DIR"
as_pg "$pg_bin/initdb" -D "$PG_DIR/data" -U qbarchive --auth=trust -E UTF8 --locale=C >"$PG_DIR/initdb.log"
as_pg "$pg_bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
  -o "-k $PG_DIR/socket -c listen_addresses='' -c shared_buffers=512MB -c max_connections=200" start >/dev/null
trap 'kill $PID 2>/dev/null || true; as_pg "$pg_bin/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1; rm -rf "$WORK" "$PG_DIR"' EXIT
pg_url() { echo "postgresql://qbarchive@/$1?host=$PG_DIR/socket"; }
pg_new() { as_pg "$pg_bin/createdb" -h "$PG_DIR/socket" -U qbarchive "$1"; pg_url "$1"; }
psql_q() { as_pg "$pg_bin/psql" -h "$PG_DIR/socket" -U qbarchive -Atc "$2" "$1"; }
seconds_since() { echo "$(date +%s.%N) - $1" | bc -l | xargs printf '%.1f'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }

# Ingest: the crawl with no added latency, as the SQLite ingest row above.
progress "postgres: ingest (crawl, no latency)"
start_emulator 0
ingest_url=$(pg_new ingest)
start=$(date +%s.%N)
QB_ENDPOINT=$url QB_API_KEY=bench "$QBARCHIVE" crawl --archive "$ingest_url" --scope app \
  --concurrency "$CONCURRENCY" --max-rps 100000 --quiet
pg_ingest_s=$(seconds_since "$start")
kill $PID; wait $PID 2>/dev/null || true
pg_messages=$(psql_q ingest "SELECT count(*) FROM messages")
[ "$pg_messages" = "$crawl_new" ] || { echo "bench: PostgreSQL holds $pg_messages messages, SQLite $crawl_new" >&2; exit 1; }
pg_ingest_rate=$(echo "$pg_messages / $pg_ingest_s" | bc -l | xargs printf '%.0f')
pg_size_mb=$(( $(psql_q ingest "SELECT pg_database_size(current_database())") / 1000000 ))

# Workers: one, then two, each $2 dialogs at a time, at $1 ms a response, on $3 messages (default: all).
# Sets one_s, two_s, claims and workers_speedup; every message is checked in both archives.
workers_pair() {
  local latency=$1 concurrency=$2 messages=${3:-$MESSAGES} start worker_pids name db n
  start_emulator "$latency" "$messages"
  progress "postgres: 1 worker at $latency ms, $messages messages"
  as_pg "$pg_bin/dropdb" --if-exists -h "$PG_DIR/socket" -U qbarchive workers1
  as_pg "$pg_bin/dropdb" --if-exists -h "$PG_DIR/socket" -U qbarchive workers2
  start=$(date +%s.%N)
  QB_ENDPOINT=$url QB_API_KEY=bench "$QBARCHIVE" crawl --archive "$(pg_new workers1)" --scope app \
    --concurrency "$concurrency" --max-rps 100000 --quiet
  one_s=$(seconds_since "$start")
  progress "postgres: 2 workers at $latency ms, $messages messages"
  local two_url
  two_url=$(pg_new workers2)
  start=$(date +%s.%N)
  worker_pids=""
  for name in a b; do
    QB_ENDPOINT=$url QB_API_KEY=bench "$QBARCHIVE" crawl --archive "$two_url" --scope app --worker-name "$name" \
      --concurrency "$concurrency" --max-rps 100000 --quiet &
    worker_pids+=" $!"
  done
  for worker in $worker_pids; do wait "$worker"; done
  two_s=$(seconds_since "$start")
  kill $PID; wait $PID 2>/dev/null || true
  for db in workers1 workers2; do
    n=$(psql_q "$db" "SELECT count(*) FROM messages")
    [ "$n" = "$messages" ] || { echo "bench: $db holds $n messages, expected $messages" >&2; exit 1; }
  done
  claims=$(psql_q workers2 "SELECT max(claims) FROM crawl_leases")
  workers_speedup=$(ratio "$one_s" "$two_s")
}
WORKER_CONCURRENCY=${WORKER_CONCURRENCY:-4}
workers_pair "$LATENCY" "$WORKER_CONCURRENCY"
cpu_one_s=$one_s cpu_two_s=$two_s cpu_speedup=$workers_speedup cpu_claims=$claims
# The latency bounding the crawl at the same $LATENCY ms: one dialog at a time per worker (the goal's row).
workers_pair "$LATENCY" 1
lat_one_s=$one_s lat_two_s=$two_s lat_speedup=$workers_speedup lat_claims=$claims
# A slower API: fewer messages, two dialogs at a time.
BOUND_LATENCY=${BOUND_LATENCY:-100} BOUND_MESSAGES=${BOUND_MESSAGES:-30000}
workers_pair "$BOUND_LATENCY" 2 "$BOUND_MESSAGES"

# Searches: whole processes on both archives (the SQLite archive of the crawl above, $WORK/bench.sqlite).
search_pair() { # $1 label, $2 query, then extra flags
  local label=$1 query=$2; shift 2
  local ours theirs
  ours=$(timed "$QBARCHIVE" search --archive "$WORK/bench.sqlite" "$query" --limit 20 "$@")
  theirs=$(timed "$QBARCHIVE" search --archive "$ingest_url" "$query" --limit 20 "$@")
  postgres_search_rows+="| $label | \`$query\` | $ours | $theirs |"$'\n'
}
postgres_search_rows=""
progress "postgres: searches"
search_pair "word" "invoice"
search_pair "phrase" '"see you"'
search_pair "substring (ctn)" 'message ctn "bit.ly"'
search_pair "ranked word" "invoice" --sort rank

progress "postgres: export"
start=$(date +%s.%N)
"$QBARCHIVE" export --archive "$ingest_url" --format jsonl --out "$WORK/pg-export.jsonl" >/dev/null
pg_export_s=$(seconds_since "$start")
start=$(date +%s.%N)
"$QBARCHIVE" export --archive "$WORK/bench.sqlite" --format jsonl --out "$WORK/sqlite-export.jsonl" >/dev/null
sqlite_export_s=$(seconds_since "$start")
[ "$(wc -l <"$WORK/pg-export.jsonl")" = "$(wc -l <"$WORK/sqlite-export.jsonl")" ] ||
  { echo "bench: the two exports differ in length" >&2; exit 1; }
rm -f "$WORK/pg-export.jsonl" "$WORK/sqlite-export.jsonl"

postgres_section="## PostgreSQL beside SQLite

The same $crawl_new messages in a PostgreSQL archive (issue 22; docs/postgres.md): a throwaway cluster of
$("$pg_bin/postgres" --version | awk '{print $3}') on a unix socket (\`shared_buffers=512MB\`, otherwise defaults), the client and the
server sharing the same 2 cores. Every row checks its output (message counts, export lengths).

| what | SQLite | PostgreSQL | PostgreSQL ÷ SQLite | goal |
|---|---:|---:|---:|---|
| ingest: crawl with no added latency, messages/s | $ingest_rate | $pg_ingest_rate | $(ratio "$pg_ingest_rate" "$ingest_rate") | ≥ 0.8 |
| archive size | $archive_mb MB | $pg_size_mb MB | $(ratio "$pg_size_mb" "$archive_mb") | |
| export JSON Lines, whole archive | $sqlite_export_s s | $pg_export_s s | $(ratio "$pg_export_s" "$sqlite_export_s") | |

Crawl workers on one PostgreSQL archive (\`qbarchive crawl --archive postgresql://… --scope app --concurrency C\`,
started once, then twice at once); every dialog was claimed once (at most $cpu_claims, $lat_claims and $claims
claims); dialogs are claimed most unread messages first (the listing's only hint of a dialog's size):

| data | API latency | dialogs at a time per worker | one worker | two workers | speed-up (goal ≥ 1.6× when the latency bounds the crawl) |
|---|---:|---:|---:|---:|---:|
| $crawl_new messages | $LATENCY ms | $WORKER_CONCURRENCY | $cpu_one_s s | $cpu_two_s s | ${cpu_speedup}× |
| $crawl_new messages | $LATENCY ms | 1 | $lat_one_s s | $lat_two_s s | **${lat_speedup}×** |
| $BOUND_MESSAGES messages | $BOUND_LATENCY ms | 2 | $one_s s | $two_s s | ${workers_speedup}× |

On 2 cores the first row is bound by CPU, not by the API: the emulator, the server and the workers share the
cores, and the crawl needs them all; a second worker can only add contention. The second row is the case the
goal names: at $LATENCY ms with one dialog at a time, one worker keeps less than one core busy and the
API's latency bounds it. What keeps two workers under 2× there: one worker lists every user's dialogs while
the other waits (the listing is not shared yet), and the longest dialog's pages come one after another.

Searches, whole processes (\`qbarchive search --limit 20\`: start, open, search, print), p50 | p95 of $RUNS runs
in milliseconds:

| what | query | SQLite p50 | p95 | PostgreSQL p50 | p95 |
|---|---|---:|---:|---:|---:|
$postgres_search_rows
What 2 cores cannot show: the server and the client share them, so PostgreSQL's concurrency (many moderators,
workers on other hosts) is measured here only as far as two cores allow; a real deployment puts the database
on its own machine."
as_pg "$pg_bin/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK" "$PG_DIR"' EXIT
