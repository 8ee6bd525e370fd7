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
# The shared buffers in huge pages, which PostgreSQL's documentation describes as smaller page tables and less
# time spent on memory management: without them every new server process maps each 4 KiB of the buffers it reads
# on first touch, which a whole `qbarchive search` process pays on each of its connections (a word's count 41 ->
# 67 ms once the buffers also hold other databases' pages; docs/performance.md, "a new connection's first
# search"). As root the bench reserves what the cluster asks for (`postgres -C shared_memory_size_in_huge_pages`,
# vm.nr_hugepages, given back at the end); with PG_HUGE_PAGES=0, or where it cannot, the cluster runs without and
# the page says so.
pg_flags=(-c listen_addresses='' -c shared_buffers=512MB -c max_connections=200 -c huge_pages=try)
huge_reserved=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
huge_free() { awk '/^HugePages_Free:/ {f=$2} /^HugePages_Rsvd:/ {r=$2} END {print f - r}' /proc/meminfo; }
huge_give_back() { [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)" = "$huge_reserved" ] || echo "$huge_reserved" >/proc/sys/vm/nr_hugepages; }
pg_huge="in 4 KiB pages (no huge pages reserved: \`PG_HUGE_PAGES=0\` or not root)"
if [ "${PG_HUGE_PAGES:-1}" = 1 ] && [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
  huge_needed=$(as_pg "$pg_bin/postgres" -D "$PG_DIR/data" "${pg_flags[@]}" -C shared_memory_size_in_huge_pages 2>/dev/null || echo 0)
  if [ "${huge_needed:-0}" -gt 0 ] 2>/dev/null; then
    echo $((huge_reserved + huge_needed)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
    pg_huge="in 4 KiB pages (the kernel could not reserve the $huge_needed huge pages it needs)"
  else
    pg_huge="in 4 KiB pages (this PostgreSQL does not say how many huge pages it needs)"
  fi
fi
huge_before=$(huge_free)
as_pg "$pg_bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
  -o "-k $PG_DIR/socket ${pg_flags[*]}" start >/dev/null
trap 'kill $PID 2>/dev/null || true; as_pg "$pg_bin/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1; huge_give_back; rm -rf "$WORK" "$PG_DIR"' EXIT
[ "$(huge_free)" -lt "$huge_before" ] && pg_huge="in huge pages ($((huge_before - $(huge_free))) of them)"
pg_url() { echo "postgresql://qbarchive@/$1?host=$PG_DIR/socket"; }
pg_new() { as_pg "$pg_bin/createdb" -h "$PG_DIR/socket" -U qbarchive "$1"; pg_url "$1"; }
psql_q() { as_pg "$pg_bin/psql" -h "$PG_DIR/socket" -U qbarchive -Atc "$2" "$1"; }
seconds_since() { echo "$(date +%s.%N) - $1" | bc -l | xargs printf '%.1f'; }
secs_or_dash() { if [ "$1" = "–" ]; then echo "not run"; else echo "$1 s"; fi; }

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
BOUND_LATENCY=${BOUND_LATENCY:-100} BOUND_MESSAGES=${BOUND_MESSAGES:-30000}
# The goal's pair (one dialog at a time per worker, the API's latency bounding the crawl) on LAT_MESSAGES.
LAT_MESSAGES=${LAT_MESSAGES:-$MESSAGES}
cpu_one_s="–" cpu_two_s="–" cpu_speedup="–" cpu_claims="–" lat_one_s="–" lat_two_s="–" lat_speedup="–"
lat_claims="–" one_s="–" two_s="–" workers_speedup="–" claims="–"
# PG_WORKERS=1: the three pairs; goal: the goal's pair alone (make bench-quick); 0: none (by hand at sizes where
# they take long).
if [ "${PG_WORKERS:-1}" = 1 ]; then
  workers_pair "$LATENCY" "$WORKER_CONCURRENCY"
  cpu_one_s=$one_s cpu_two_s=$two_s cpu_speedup=$workers_speedup cpu_claims=$claims
fi
if [ "${PG_WORKERS:-1}" = 1 ] || [ "${PG_WORKERS:-1}" = goal ]; then
  # The latency bounding the crawl at the same $LATENCY ms: one dialog at a time per worker (the goal's row).
  workers_pair "$LATENCY" 1 "$LAT_MESSAGES"
  lat_one_s=$one_s lat_two_s=$two_s lat_speedup=$workers_speedup lat_claims=$claims
  one_s="–" two_s="–" workers_speedup="–" claims="–"
fi
if [ "${PG_WORKERS:-1}" = 1 ]; then
  # A slower API: fewer messages, two dialogs at a time.
  workers_pair "$BOUND_LATENCY" 2 "$BOUND_MESSAGES"
fi

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

# Many moderators while a crawl writes: `qbarchive serve` on each archive, wrk with $1 clients for $DURATION s
# on the JSON search API (each request also appends to the audit log) while a crawl of another emulator writes
# into the same archive at 10 requests a second; rows/s from the archive's count before and after.
load_rows=""
under_load() { # $1 backend label, $2 archive, $3 counting command, then serve's flags; appends to load_rows
  local label=$1 archive=$2 count_cmd=$3 serve_pid writer_pid surl clients before after elapsed start row
  shift 3
  # The writer's application: few users (its listing at 10 requests a second takes 2 s), messages for minutes.
  # The files of the last call go first: a redirection truncates only once its background shell runs.
  rm -f "$WORK/out-load" "$WORK/serve-load.out"
  "$QBARCHIVE" emulator --port 0 --seed 4242 --users 20 --dialogs 100 --messages 100000 \
    --api-key bench >"$WORK/out-load" 2>"$WORK/err-load" &
  local load_emulator=$!
  while ! grep -q '^listening on ' "$WORK/out-load" 2>/dev/null; do sleep 0.05; done
  "$QBARCHIVE" serve --archive "$archive" --port 0 --max-concurrent-queries 32 "$@" >"$WORK/serve-load.out" 2>&1 &
  serve_pid=$!
  while ! grep -q '^serving ' "$WORK/serve-load.out" 2>/dev/null; do sleep 0.05; done
  surl=$(sed -n 's/.* on \(http:[^ ]*\) .*/\1/p' "$WORK/serve-load.out")
  QB_ENDPOINT=$(sed -n 's/^listening on //p' "$WORK/out-load") QB_API_KEY=bench "$QBARCHIVE" crawl \
    --archive "$archive" --scope app --concurrency 4 --max-rps 10 --quiet &
  writer_pid=$!
  before=$(eval "$count_cmd")
  while [ "$(eval "$count_cmd")" = "$before" ]; do sleep 0.5; done # the writer is storing pages
  row="| $label |"
  for clients in 8 32; do
    before=$(eval "$count_cmd") start=$(date +%s.%N)
    wrk -t2 -c"$clients" -d"${DURATION}s" --latency "${surl}api/search?q=invoice&limit=20" >"$WORK/wrk-load.txt"
    after=$(eval "$count_cmd") elapsed=$(seconds_since "$start")
    grep -q 'Non-2xx' "$WORK/wrk-load.txt" && { echo "bench: the service refused searches under load" >&2; cat "$WORK/wrk-load.txt" >&2; tail -n 20 "$WORK/serve-load.out" >&2; exit 1; }
    row+=" $(awk '/Requests\/sec/ {printf "%.0f", $2}' "$WORK/wrk-load.txt") | $(awk '$1=="50%" {print $2}' "$WORK/wrk-load.txt") | $(awk '$1=="99%" {print $2}' "$WORK/wrk-load.txt") | $(echo "($after - $before) / $elapsed" | bc -l | xargs printf '%.0f') |"
  done
  load_rows+="$row"$'\n'
  kill "$writer_pid" "$serve_pid" "$load_emulator"
  wait "$writer_pid" "$serve_pid" "$load_emulator" 2>/dev/null || true
}
if [ "${PG_LOAD:-1}" = 1 ]; then
  progress "postgres: searches while a crawl writes"
  # Copied as of one instant with SQLite's online backup: `cp` of the file alone loses what its log holds.
  rm -f "$WORK"/load.sqlite*
  sqlite3 "$WORK/bench.sqlite" ".backup '$WORK/load.sqlite'"
  under_load SQLite "$WORK/load.sqlite" "sqlite3 $WORK/load.sqlite 'SELECT count(*) FROM messages'"
  under_load PostgreSQL "$ingest_url" "psql_q ingest 'SELECT count(*) FROM messages'" --pool-size 34
  rm -f "$WORK"/load.sqlite*
else
  load_rows="| not run (\`PG_LOAD=0\`, the default of \`make bench-quick\`) | | | | | | | | |"$'\n'
fi

postgres_section="## PostgreSQL beside SQLite

The same $crawl_new messages in a PostgreSQL archive (issue 22; docs/postgres.md): a throwaway cluster of
$("$pg_bin/postgres" --version | awk '{print $3}') on a unix socket (\`shared_buffers=512MB\` $pg_huge, otherwise defaults), the client and the
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
| $crawl_new messages | $LATENCY ms | $WORKER_CONCURRENCY | $(secs_or_dash "$cpu_one_s") | $(secs_or_dash "$cpu_two_s") | ${cpu_speedup}× |
| $LAT_MESSAGES messages | $LATENCY ms | 1 | $(secs_or_dash "$lat_one_s") | $(secs_or_dash "$lat_two_s") | **${lat_speedup}×** |
| $BOUND_MESSAGES messages | $BOUND_LATENCY ms | 2 | $(secs_or_dash "$one_s") | $(secs_or_dash "$two_s") | ${workers_speedup}× |

On 2 cores the first row is bound by CPU, not by the API: the emulator, the server and the workers share the
cores, and the crawl needs them all; a second worker can only add contention. The second row is the case the
goal names: at $LATENCY ms with one dialog at a time, one worker keeps less than one core busy and the
API's latency bounds it. What keeps two workers under 2× there: the users page is read by one worker before
the users' dialog lists are shared in parts, and the longest dialog's pages come one after another.

Searches, whole processes (\`qbarchive search --limit 20\`: start, open, search, print), p50 | p95 of $RUNS runs
in milliseconds:

| what | query | SQLite p50 | p95 | PostgreSQL p50 | p95 |
|---|---|---:|---:|---:|---:|
$postgres_search_rows
Many moderators while a crawl writes: \`qbarchive serve\` on each archive (\`--max-concurrent-queries 32\`, on
PostgreSQL \`--pool-size 34\`), \`wrk -t2\` with 8 then 32 clients for $DURATION s on
\`GET /api/search?q=invoice&limit=20\` (every request also appends to the audit log), while a crawl of another
emulator writes into the same archive at \`--max-rps 10\`; wrk, the service, the crawl, the emulator and
PostgreSQL share the 2 cores:

| archive | 8 clients: searches/s | p50 | p99 | crawl rows/s | 32 clients: searches/s | p50 | p99 | crawl rows/s |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
$load_rows
What 2 cores cannot show: the server and the client share them, so PostgreSQL's concurrency (many moderators,
workers on other hosts) is measured here only as far as two cores allow; a real deployment puts the database
on its own machine.
$(notes postgres)"
as_pg "$pg_bin/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
huge_give_back
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK" "$PG_DIR"' EXIT
