# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "abuse".

# --- 7. Abuse of the service: heavy queries, floods, exports, slow clients -------------------------------------

# Bytes the archive's pages hold (checkpointed; free pages left by the crawl are not counted, so what the
# service adds shows even when it reuses them). SQLite-specific on purpose: a WAL checkpoint and page
# counts, which no qbarchive command reports (status counts records, not storage).
used_bytes() {
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
pages, free, size = (db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "freelist_count", "page_size"))
print((pages - free) * size)
PY
}

service_abuse() {
  local dir=$WORK/abuse ok=1 spid url result before after accepted growth limit
  if over_budget; then row "Service abuse" "heavy queries, floods, exports, slow clients" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir"
  emu_start $(data)
  QB_ENDPOINT=$URL QB_API_KEY=chaos timeout 300 "$QBARCHIVE" crawl --archive "$dir/a.sqlite" --scope app --quiet || ok=0
  emu_stop
  before=$(used_bytes "$dir/a.sqlite")
  timeout 400 "$QBARCHIVE" serve --archive "$dir/a.sqlite" --port 0 --exports "$dir/exports" --exports-max-bytes 64M \
    --query-timeout 5s --header-timeout 5s >"$dir/serve.out" 2>"$dir/serve.err" &
  spid=$!
  PIDS+=("$spid")
  until grep -q 'http://' "$dir/serve.out" 2>/dev/null; do kill -0 "$spid" 2>/dev/null || break; sleep 0.05; done
  url=$(grep -o 'http://[0-9.:]*' "$dir/serve.out" | sed -n 1p)
  say "abuse: $MESSAGES-message archive served on $url"
  result=$(python3 "$HERE/chaos/abuse.py" "$url" "$dir/exports" $((64 << 20)) 5) || ok=0
  kill -TERM "$spid" 2>/dev/null || true
  local serve_rc=0
  wait "$spid" 2>/dev/null || serve_rc=$?
  after=$(used_bytes "$dir/a.sqlite")
  growth=$((after - before))
  local checks
  printf '%s\n' "$result" >"$dir/result.json"
  checks=$(python3 "$HERE/chaos/abuse_check.py" "$dir/result.json" "$growth") || { ok=0; checks="FAIL the abuse run gave no result"$'\n'"${result:0:200}"; }
  [ "${checks%%$'\n'*}" = PASS ] || ok=0
  [ "$serve_rc" = 0 ] || { ok=0; checks+=" serve exited $serve_rc on SIGTERM"; }
  row "Service abuse" "40 concurrent 4 KB queries, 64 KB and cross-site floods, concurrent exports under a 64 MiB quota, 200 half-sent requests (qbarchive serve on a $MESSAGES-message archive)" 4 \
    "/healthz answers within 1 s throughout; every request answered or refused with its code; the exports folder stays within its quota; slow connections are closed; the archive grows only by the audit entries of served requests; serve stops cleanly: ${checks#*$'\n'}" \
    "$(verdict $ok)" "$([ $ok = 1 ] || printf '%s' "${checks%%$'\n'*}")"
}

section_abuse() {
  service_abuse
}
