# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "kill".

# --- 2. kill -9 ------------------------------------------------------------------------------------------

kill_crawls() {
  local dir=$WORK/kill-crawl ok=1 landed=0 bad="" rc i delay state takeover=0
  if over_budget; then row "kill -9" "kill -9 during crawl" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir"
  emu_start $(data) --latency-ms 5
  local delays
  delays=$(seeded "$KILLS" 0.2 3.0 1)
  i=0
  for delay in $delays; do
    i=$((i + 1))
    local flags=(--max-rps 25 --concurrency 4)
    [ $((i % 3)) = 0 ] && flags+=(--reconcile)
    crawl_killed_after "$delay" "$dir/a.sqlite" "${flags[@]}" && landed=$((landed + 1))
    state=$(integrity "$dir/a.sqlite")
    case $state in ok | absent) ;; *) ok=0 bad+="after kill $i: $state; " ;; esac
    [ $((i % 2)) = 0 ] && live 40
  done
  takeover=$(grep -ci 'took over\|takes over\|taking over\|stale' "$dir/crawl.err" || true)
  CODES="" CRASHED=0
  CRAWL_FLAGS=(--max-rps 1000 --concurrency 8)
  converge "$dir/a.sqlite" || ok=0
  truth "$dir/truth.jsonl"
  emu_stop
  compare "$dir/a.sqlite" "$dir/truth.jsonl" || ok=0
  row "kill -9" "kill -9 during crawl at seeded random points 0.2–3 s (every 3rd a --reconcile run; 40 live changes after every 2nd)" \
    "$KILLS" "$landed of $KILLS landed mid-run; integrity_check after each: ${bad:-ok}; resumed runs: ${CODES% }; $CMP" \
    "$(verdict $ok)"
  KILLED_ARCHIVE=$dir/a.sqlite
}

kill_exports() {
  local dir=$WORK/kill-export ok=1 landed=0 bad="" litter i delay pid rc full
  if over_budget || [ -z "${KILLED_ARCHIVE:-}" ]; then row "kill -9" "kill -9 during export" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir/out"
  local archive=$KILLED_ARCHIVE
  # A complete earlier export under the final names, then an archive that differs from it.
  "$QBARCHIVE" export --archive "$archive" --where 'date < 2025-07' --out "$dir/out/F.tar.gz" >/dev/null 2>&1
  "$QBARCHIVE" export --archive "$archive" --format jsonl --where 'date < 2025-07' --out "$dir/out/J.jsonl" >/dev/null 2>&1
  local t0 t1
  t0=$(date +%s.%N)
  "$QBARCHIVE" export --archive "$archive" --out "$dir/timing.tar.gz" >/dev/null 2>&1
  t1=$(date +%s.%N)
  full=$(python3 -c "print(round(max(0.1, $t1 - $t0), 2))")
  rm -f "$dir"/timing.tar.gz*
  local delays
  delays=$(seeded "$EXPORT_KILLS" 0.02 "$(python3 -c "print($full * 1.1)")" 2)
  i=0
  for delay in $delays; do
    i=$((i + 1))
    if [ $((i % 2)) = 1 ]; then
      "$QBARCHIVE" export --archive "$archive" --bundle tar.gz --out "$dir/out/F.tar.gz" --force >/dev/null 2>&1 &
    else
      "$QBARCHIVE" export --archive "$archive" --format jsonl --raw --out "$dir/out/J.jsonl" --force >/dev/null 2>&1 &
    fi
    pid=$!
    PIDS+=("$pid")
    sleep "$delay"
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; landed=$((landed + 1)); fi
    wait "$pid" 2>/dev/null || true
    # Under the final names: either the earlier complete file or a complete new one, never half of one.
    rc=0
    "$QBARCHIVE" verify "$dir/out/F.tar.gz" >"$dir/verify.out" 2>&1 || rc=$?
    [ $rc = 0 ] || { ok=0; bad+="after kill $i verify F.tar.gz exit $rc: $(tail -n 1 "$dir/verify.out"); "; }
    python3 -c "
import json, sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
assert lines[-1] == '', 'no final newline'
[json.loads(l) for l in lines[:-1]]" "$dir/out/J.jsonl" 2>/dev/null || { ok=0; bad+="after kill $i J.jsonl is not whole JSON Lines; "; }
    local names
    names=$(cd "$dir/out" && ls -1 | grep -v -x -e F.tar.gz -e F.tar.gz.sha256 -e J.jsonl || true)
    [ -z "$names" ] || { ok=0; bad+="after kill $i unexpected visible files: $names; "; }
    [ "$(integrity "$archive")" = ok ] || { ok=0; bad+="archive integrity after kill $i; "; }
  done
  litter=$(cd "$dir/out" && ls -A1 | grep -c '^\.' || true)
  rc=0
  "$QBARCHIVE" export --archive "$archive" --out "$dir/out/F.tar.gz" --force >/dev/null 2>&1 || rc=$?
  "$QBARCHIVE" verify "$dir/out/F.tar.gz" >/dev/null 2>&1 || rc=$((rc + 100))
  [ $rc = 0 ] || { ok=0; bad+="the export after the kills: exit $rc; "; }
  row "kill -9" "kill -9 during export (bundle tar.gz and JSON Lines alternately, over earlier complete exports) at seeded points 0.02–$(python3 -c "print(round($full * 1.1, 2))") s (a whole export takes ${full} s)" \
    "$EXPORT_KILLS" "$landed of $EXPORT_KILLS landed mid-export; final names always whole (verify F.tar.gz with its .sha256 = 0; J.jsonl parses); no visible litter; archive integrity ok; the next export exits 0 and verifies: ${bad:-yes}" \
    "$(verdict $ok)" "$litter hidden temporaries (.NAME.partial-PID, .qbarchive-staging-*) left by the kills, as documented"

  # The one instant random kills rarely hit: between the bundle's rename and its checksum file's rename.
  if command -v strace >/dev/null; then
    local renames
    rm -rf "$dir/s" && mkdir -p "$dir/s"
    "$QBARCHIVE" export --archive "$archive" --where 'date < 2025-07' --out "$dir/s/F.tar.gz" >/dev/null 2>&1
    renames=$(strace -f -qq -e trace=rename,renameat,renameat2 -o "$dir/strace.log" \
      "$QBARCHIVE" export --archive "$archive" --out "$dir/s/G.tar.gz" >/dev/null 2>&1 && grep -c 'rename' "$dir/strace.log" || echo 0)
    rc=0
    (strace -f -qq -o /dev/null -e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:signal=KILL:when="$renames" \
      "$QBARCHIVE" export --archive "$archive" --out "$dir/s/F.tar.gz" >/dev/null 2>&1 || true) 2>/dev/null
    "$QBARCHIVE" verify "$dir/s/F.tar.gz" >"$dir/verify.out" 2>&1 || rc=$?
    local sums=0
    (cd "$dir/s" && { [ ! -e F.tar.gz.sha256 ] || sha256sum -c --quiet F.tar.gz.sha256 >/dev/null 2>&1; }) || sums=1
    row "kill -9" "SIGKILL (strace fault injection) at the export's last rename: the bundle is in place, its .sha256 not yet, an earlier export's .sha256 beside it" \
      1 "qbarchive verify F.tar.gz exit $rc; sha256sum -c $([ $sums = 0 ] && echo ok or no checksum file || echo FAILED)" \
      "$(verdict $([ $rc = 0 ] && [ $sums = 0 ] && echo 1 || echo 0))" "$([ $rc = 0 ] || tail -n 1 "$dir/verify.out")"
  else
    row "kill -9" "SIGKILL at the export's last rename (strace fault injection)" "—" "" "NOT RUN" "strace is not installed"
  fi
}

section_kill() {
  kill_crawls
  kill_exports
}
