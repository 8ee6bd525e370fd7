# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "locks".

# --- 3. Locks: overlapping runs, stale locks ---------------------------------------------------------------

locks() {
  local dir=$WORK/locks ok=1 rc pid i codes="" named=0
  if over_budget; then row "Locks" "overlapping and stale" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir"
  emu_start $(data) --latency-ms 20
  QB_ENDPOINT=$URL QB_API_KEY=chaos "$QBARCHIVE" crawl --archive "$dir/a.sqlite" --scope app --quiet --max-rps 25 >/dev/null 2>"$dir/first.err" &
  pid=$!
  PIDS+=("$pid")
  sleep 1
  for i in 1 2 3; do
    rc=0
    crawl "$dir/a.sqlite" || rc=$?
    codes+="$rc "
    [ $rc = 11 ] || ok=0
    grep -q "$pid" "$WORK/crawl.err" && named=$((named + 1))
    sleep 0.3
  done
  rc=0
  wait "$pid" || rc=$?
  [ $rc = 0 ] || ok=0
  [ $named = 3 ] || ok=0
  row "Locks" "a second crawl while one runs" 3 "exit codes ${codes% } (11 = locked), $named of 3 name the holder's pid; the running crawl exits $rc" \
    "$(verdict $ok)" "$(sed -n 1p "$WORK/crawl.err")"

  # A burst of scheduled runs at the same instant, after new changes.
  live 100
  local pids=() burst="" zero=0 ok2=1
  for i in 1 2 3 4 5; do
    QB_ENDPOINT=$URL QB_API_KEY=chaos "$QBARCHIVE" crawl --archive "$dir/a.sqlite" --scope app --quiet --max-rps 200 >/dev/null 2>&1 &
    pids+=($!)
    PIDS+=($!)
  done
  for pid in "${pids[@]}"; do
    rc=0
    wait "$pid" || rc=$?
    burst+="$rc "
    case $rc in 0) zero=$((zero + 1)) ;; 11) ;; *) ok2=0 ;; esac
  done
  [ $zero -ge 1 ] || ok2=0
  [ "$(integrity "$dir/a.sqlite")" = ok ] || ok2=0
  row "Locks" "5 crawls started at the same instant (cron overlap)" 5 "exit codes ${burst% }: only 0 or 11, at least one 0; integrity ok" "$(verdict $ok2)"

  # Stale locks: a crawl killed with -9 holding the lock; a lock file naming a dead pid.
  local ok3=1 stale=""
  QB_ENDPOINT=$URL QB_API_KEY=chaos "$QBARCHIVE" crawl --archive "$dir/a.sqlite" --scope app --quiet --max-rps 5 --reconcile >/dev/null 2>&1 &
  pid=$!
  PIDS+=("$pid")
  sleep 1
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rc=0
  crawl "$dir/a.sqlite" || rc=$?
  stale+="after kill -9: exit $rc; "
  [ $rc = 0 ] || ok3=0
  printf '999999\n' >"$dir/a.sqlite.lock"
  rc=0
  crawl "$dir/a.sqlite" || rc=$?
  stale+="lock file naming dead pid 999999: exit $rc"
  [ $rc = 0 ] || ok3=0
  CODES="" CRASHED=0
  converge "$dir/a.sqlite" || ok3=0
  truth "$dir/truth.jsonl"
  emu_stop
  compare "$dir/a.sqlite" "$dir/truth.jsonl" || ok3=0
  row "Locks" "stale locks: a crawl killed with -9 mid-run; a hand-written lock file naming a dead pid" 2 \
    "the next run proceeds ($stale); then $CMP" "$(verdict $ok3)"
  LOCKS_ARCHIVE=$dir/a.sqlite
  LOCKS_TRUTH=$dir/truth.jsonl
}

section_locks() {
  locks
}
