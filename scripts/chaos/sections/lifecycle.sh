# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "lifecycle" (its rows are under
# "Erasure, retention, backups").

# --- 6b. Lifecycle: kill -9 during erase and retain --apply, backups during a --live crawl -----------------

# kill -9 during `erase` and `retain` works on copies of one archive (converged, 300 live changes so that
# earlier versions exist, converged again): each kill gets a fresh copy, and lifecycle_check.py judges it
# (whole or absent, never half; `qbarchive check`; search), then a complete rerun (it takes over the dead
# run's lock and finishes the purge) must leave none of the target's unique texts in the bytes of the file,
# its -wal and -shm, and every other text checked still there. The texts of erased messages that were their
# dialog's last message are checked apart (their own row): the dialog's record repeats them.
LIFECYCLE_ERASE_KILLS=8
LIFECYCLE_RETAIN_KILLS=6
LIFECYCLE_BACKUPS=6
LIFECYCLE=$HERE/chaos/lifecycle_check.py

lifecycle_base() { # sets LIFECYCLE_BASE and LIFECYCLE_TRUTH once; 1 when the archive did not converge
  [ -n "${LIFECYCLE_BASE:-}" ] && return 0
  local dir=$WORK/lifecycle rc=0
  mkdir -p "$dir"
  emu_start $(data)
  CODES="" CRASHED=0
  converge "$dir/base.sqlite" || rc=1
  live 300
  [ $rc = 1 ] || converge "$dir/base.sqlite" || rc=1
  truth "$dir/truth.jsonl"
  emu_stop
  [ $rc = 0 ] || return 1
  LIFECYCLE_BASE=$dir/base.sqlite
  LIFECYCLE_TRUTH=$dir/truth.jsonl
}
lifecycle_copy() { # to: a fresh copy of the quiescent base archive (no process has it open: cp is safe here)
  rm -f "$1" "$1-wal" "$1-shm" "$1.lock"
  cp "$LIFECYCLE_BASE" "$1"
  if [ -e "$LIFECYCLE_BASE-wal" ]; then cp "$LIFECYCLE_BASE-wal" "$1-wal"; fi
}
lifecycle_args() { python3 "$LIFECYCLE" args --plan "$1" --target "$2"; } # plan, target → erase/retain flags
lifecycle_seconds() { python3 -c "import sys; print(round(max(0.05, float(sys.argv[2]) - float(sys.argv[1])), 2))" "$@"; }

# Kills `qbarchive erase` (targets[i]) or `qbarchive retain` (one target) on fresh copies at seeded points
# over a complete run's time; judges each copy, reruns to completion and judges again (--final).
lifecycle_kills() { # what (erase|retain), kills, plan, seed suffix; sets LC_* for the row
  local what=$1 kills=$2 plan=$3 suffix=$4 dir=$WORK/lifecycle i=0 t delay pid rc state t0 t1 args
  LC_OK=1 LC_LANDED=0 LC_ABSENT=0 LC_WHOLE=0 LC_PENDING=0 LC_RERUN="" LC_BAD="" LC_FINAL="" LC_LEFT=()
  # One complete run, timed: the kills are spread over 0.02 s to 1.1 times that.
  lifecycle_copy "$dir/$what.sqlite"
  read -ra args <<<"$(lifecycle_args "$plan" 0)"
  t0=$(date +%s.%N)
  rc=0
  "$QBARCHIVE" "$what" --archive "$dir/$what.sqlite" "${args[@]}" >"$dir/$what.out" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  LC_FULL=$(lifecycle_seconds "$t0" "$t1")
  [ $rc = 0 ] || { LC_OK=0; LC_BAD+="the timed run: exit $rc ($(tail -n 1 "$dir/$what.out")); "; }
  state=$(python3 "$LIFECYCLE" judge --qbarchive "$QBARCHIVE" --archive "$dir/$what.sqlite" --plan "$plan" --target 0 --final) ||
    { LC_OK=0; LC_BAD+="the timed run: $state; "; }
  LC_FIRST=$state
  # One kill in each of `kills` equal slices of 0.02 s to 1.1 times the whole run, at a seeded point inside
  # it, the slices in a seeded order: both sides of the transaction's commit for every seed.
  local delays
  # shellcheck disable=SC2046
  delays=$(python3 -c 'import sys; top, n = float(sys.argv[1]) * 1.1, int(sys.argv[2]); u = [float(x) for x in sys.argv[3:]]
order = sorted(range(n), key=lambda k: u[n + k])
print(" ".join("%.2f" % (0.02 + (top - 0.02) * (order[k] + u[k]) / n) for k in range(n)))' \
    "$LC_FULL" "$kills" $(seeded $((2 * kills)) 0 1 "$suffix"))
  for delay in $delays; do
    [ "$what" = erase ] && t=$i || t=0
    i=$((i + 1))
    lifecycle_copy "$dir/$what.sqlite"
    read -ra args <<<"$(lifecycle_args "$plan" "$t")"
    "$QBARCHIVE" "$what" --archive "$dir/$what.sqlite" "${args[@]}" >/dev/null 2>&1 &
    pid=$!
    PIDS+=("$pid")
    sleep "$delay"
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; LC_LANDED=$((LC_LANDED + 1)); fi
    wait "$pid" 2>/dev/null || true
    state=$(integrity "$dir/$what.sqlite")
    [ "$state" = ok ] || { LC_OK=0; LC_BAD+="kill $i: integrity_check $state; "; }
    if state=$(python3 "$LIFECYCLE" judge --qbarchive "$QBARCHIVE" --archive "$dir/$what.sqlite" --plan "$plan" --target "$t"); then
      case $state in
        absent) LC_ABSENT=$((LC_ABSENT + 1)) ;;
        "whole, purge pending") LC_WHOLE=$((LC_WHOLE + 1)) LC_PENDING=$((LC_PENDING + 1)) ;;
        *) LC_WHOLE=$((LC_WHOLE + 1)) ;;
      esac
    else
      LC_OK=0 LC_BAD+="kill $i ($what ${args[*]}, after ${delay} s): $state; "
    fi
    rc=0
    "$QBARCHIVE" "$what" --archive "$dir/$what.sqlite" "${args[@]}" >"$dir/$what.out" 2>&1 || rc=$?
    LC_RERUN+="$rc "
    [ $rc = 0 ] || { LC_OK=0; LC_BAD+="kill $i: the rerun exits $rc ($(tail -n 1 "$dir/$what.out")); "; }
    state=$(python3 "$LIFECYCLE" judge --qbarchive "$QBARCHIVE" --archive "$dir/$what.sqlite" --plan "$plan" --target "$t" --final) ||
      { LC_OK=0; LC_BAD+="kill $i, after the rerun: $state; "; }
    LC_FINAL=$state
    LC_LEFT[t]=$(python3 "$LIFECYCLE" leftovers --archive "$dir/$what.sqlite" --plan "$plan" --target "$t")
  done
  rm -f "$dir/$what.sqlite" "$dir/$what.sqlite-wal" "$dir/$what.sqlite-shm"
}

lifecycle_erase() {
  local dir=$WORK/lifecycle targets
  if over_budget; then row "Erasure, retention, backups" "kill -9 during erase" "—" "" "NOT RUN" "time budget spent"; return; fi
  if ! lifecycle_base; then
    row "Erasure, retention, backups" "kill -9 during erase" "—" "" "FAIL" "the archive to erase from did not converge: crawl exit codes ${CODES% }"
    return
  fi
  if ! targets=$(python3 "$LIFECYCLE" plan-erase --archive "$LIFECYCLE_BASE" --truth "$LIFECYCLE_TRUTH" \
    --count "$LIFECYCLE_ERASE_KILLS" --seed "$SEED" --out "$dir/erase-plan.json" 2>&1); then
    row "Erasure, retention, backups" "kill -9 during erase" "—" "" "FAIL" "no targets: $targets"
    return
  fi
  lifecycle_kills erase "$LIFECYCLE_ERASE_KILLS" "$dir/erase-plan.json" 11
  row "Erasure, retention, backups" "kill -9 during erase (--user, --dialog, --message in turn; a fresh copy each) at seeded points 0.02–$(python3 -c "print(round($LC_FULL * 1.1, 2))") s, one in each of $LIFECYCLE_ERASE_KILLS equal slices (a whole erase takes ${LC_FULL} s)" \
    "$LIFECYCLE_ERASE_KILLS" "$LC_LANDED of $LIFECYCLE_ERASE_KILLS landed mid-run; after each: integrity_check ok, qbarchive check sound, the target whole or absent, never half (erased_at + text NULL + no earlier versions + register entry + pseudonym, or all of it untouched; search by unique text agrees): $LC_ABSENT absent, $LC_WHOLE whole ($LC_PENDING with the byte purge pending); the rerun (taking over the dead run's lock) exits ${LC_RERUN% } and then none of the target's unique texts is in the bytes of the file, -wal or -shm, the other texts checked still are (last: $LC_FINAL; the timed run: $LC_FIRST): ${LC_BAD:-yes}" \
    "$(verdict $LC_OK)" "targets: $targets"
  LIFECYCLE_LEFT+=("${LC_LEFT[@]}")
}

lifecycle_retain() {
  local dir=$WORK/lifecycle hours
  if over_budget; then row "Erasure, retention, backups" "kill -9 during retain --apply" "—" "" "NOT RUN" "time budget spent"; return; fi
  if ! lifecycle_base; then
    row "Erasure, retention, backups" "kill -9 during retain --apply" "—" "" "FAIL" "the archive did not converge: crawl exit codes ${CODES% }"
    return
  fi
  if ! hours=$(python3 "$LIFECYCLE" plan-retain --archive "$LIFECYCLE_BASE" --truth "$LIFECYCLE_TRUTH" --seed "$SEED" \
    --out "$dir/retain-plan.json" 2>&1); then
    row "Erasure, retention, backups" "kill -9 during retain --apply" "—" "" "FAIL" "no cutoff: $hours"
    return
  fi
  local split
  split=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["targets"][0]; print(t["facts"]["messages"], "of", sys.argv[2], "messages older")' \
    "$dir/retain-plan.json" "$(count_messages "$LIFECYCLE_BASE")")
  lifecycle_kills retain "$LIFECYCLE_RETAIN_KILLS" "$dir/retain-plan.json" 12
  row "Erasure, retention, backups" "kill -9 during retain --older-than $hours --apply ($split; one transaction for them all, so the unit is the whole cutoff) at seeded points 0.02–$(python3 -c "print(round($LC_FULL * 1.1, 2))") s, one in each of $LIFECYCLE_RETAIN_KILLS equal slices (a whole run takes ${LC_FULL} s)" \
    "$LIFECYCLE_RETAIN_KILLS" "$LC_LANDED of $LIFECYCLE_RETAIN_KILLS landed mid-run; after each: integrity_check ok, qbarchive check sound, every message before the cutoff erased with a register entry and none after, or none at all: $LC_ABSENT absent, $LC_WHOLE whole ($LC_PENDING with the byte purge pending), never half; the rerun exits ${LC_RERUN% } and then none of the unique texts of messages over a day older than the cutoff is in the bytes of the file, -wal or -shm, those of newer ones still are (last: $LC_FINAL; the timed run: $LC_FIRST): ${LC_BAD:-yes}" \
    "$(verdict $LC_OK)"
  LIFECYCLE_LEFT+=("${LC_LEFT[@]}")
  rm -rf "$dir"
}

# The dialogs' records repeat their last message's text (QuickBlox's raw.last_message): the texts of erased
# messages that were one, checked after each complete erase and retain run above (lifecycle_check.py leftovers).
LIFECYCLE_LEFT=()
lifecycle_last_messages() {
  local entry n m rest left=0 checked=0 targets=0 detail=""
  for entry in "${LIFECYCLE_LEFT[@]}"; do
    read -r n m rest <<<"$entry"
    [ "$m" -gt 0 ] || continue
    left=$((left + n)) checked=$((checked + m)) targets=$((targets + 1)) detail+="$rest; "
  done
  if [ $checked = 0 ]; then
    row "Erasure, retention, backups" "erased messages that were their dialog's last message" "—" "" "NOT RUN" \
      "no erasure above took a dialog's last message with a unique text (or none ran)"
    return
  fi
  row "Erasure, retention, backups" "erase and retain --apply of messages that were their dialog's last message (QuickBlox repeats that text in the dialog's record, raw.last_message)" \
    "$targets" "after the complete runs above, none of those $checked unique texts is in the bytes of the file, -wal or -shm: $left still are (${detail%; })" \
    "$(verdict "$([ $left = 0 ] && echo 1 || echo 0)")"
}

# Backups while crawls write: crawls in a loop against an emulator with --live changes, and backups at seeded
# moments; each copy must be sound on its own and the copies' message counts must only grow.
lifecycle_backups() {
  local dir=$WORK/lifecycle-backup ok=1 bad="" i=0 delay rc loop waited=0 during=0 counts="" prev=0 count final
  if over_budget; then
    row "Erasure, retention, backups" "backup during a --live crawl" "—" "" "NOT RUN" "time budget spent"
    return
  fi
  mkdir -p "$dir"
  emu_start $(data) --live 50 --latency-ms 2
  (
    n=0
    while [ ! -e "$dir/stop" ]; do
      n=$((n + 1))
      flags=(--max-rps 100 --concurrency 4)
      [ $((n % 3)) = 0 ] && flags+=(--reconcile)
      QB_ENDPOINT=$URL QB_API_KEY=chaos timeout 180 "$QBARCHIVE" crawl --archive "$dir/a.sqlite" --scope app --quiet \
        "${flags[@]}" >/dev/null 2>>"$dir/crawl.err" &
      echo $! >"$dir/crawl.pid"
      if [ -e "$dir/stop" ]; then kill -TERM $! 2>/dev/null || true; fi
      rc=0
      wait $! || rc=$?
      printf '%s ' "$rc" >>"$dir/codes"
    done
  ) &
  loop=$!
  PIDS+=("$loop")
  until "$QBARCHIVE" status --archive "$dir/a.sqlite" --json >/dev/null 2>&1; do
    sleep 0.1
    waited=$((waited + 1))
    [ $waited -lt 300 ] || break
  done
  for delay in $(seeded "$LIFECYCLE_BACKUPS" 0.2 2.5 13); do
    i=$((i + 1))
    sleep "$delay"
    kill -0 "$(cat "$dir/crawl.pid" 2>/dev/null || echo 999999)" 2>/dev/null && during=$((during + 1))
    rc=0
    "$QBARCHIVE" backup --archive "$dir/a.sqlite" --out "$dir/b$i.sqlite" --quiet >"$dir/backup.out" 2>&1 || rc=$?
    [ $rc = 0 ] || { ok=0; bad+="backup $i exit $rc ($(tail -n 1 "$dir/backup.out")); "; }
  done
  # The running crawl is stopped with SIGTERM (it finishes its page and records the run: exit 130).
  touch "$dir/stop"
  kill -TERM "$(cat "$dir/crawl.pid")" 2>/dev/null || true
  wait "$loop" 2>/dev/null || true
  emu_stop
  final=$(count_messages "$dir/a.sqlite")
  for i in $(seq "$LIFECYCLE_BACKUPS"); do
    [ -e "$dir/b$i.sqlite" ] || continue
    local state
    state=$(integrity "$dir/b$i.sqlite")
    [ "$state" = ok ] || { ok=0; bad+="copy $i integrity_check: $state; "; }
    state=$(python3 "$LIFECYCLE" snapshot --archive "$dir/b$i.sqlite")
    [ "$state" = ok ] || { ok=0; bad+="copy $i: $state; "; }
    rc=0
    "$QBARCHIVE" check --archive "$dir/b$i.sqlite" >"$dir/check.out" 2>&1 || rc=$?
    [ $rc = 0 ] || { ok=0; bad+="copy $i: qbarchive check exit $rc ($(tail -n 1 "$dir/check.out")); "; }
    count=$(count_messages "$dir/b$i.sqlite" 2>/dev/null || echo "?")
    counts+="$count "
    if [ "$count" = "?" ] || [ "$count" -lt "$prev" ] || [ "$count" -gt "$final" ]; then
      ok=0 bad+="copy $i holds $count messages (the one before $prev, the archive at the end $final); "
    else
      prev=$count
    fi
  done
  row "Erasure, retention, backups" "qbarchive backup at $LIFECYCLE_BACKUPS seeded moments 0.2–2.5 s apart while crawls run in a loop (every 3rd --reconcile) against an emulator making 50 live changes a second" \
    "$LIFECYCLE_BACKUPS" "$during of $LIFECYCLE_BACKUPS taken while a crawl was running; each backup exits 0, each copy passes integrity_check, foreign_key_check, edited = its earlier versions, and qbarchive check, and the copies' message counts only grow and stay within the archive's at the end: ${counts% } ≤ $final (crawl exit codes: $(cat "$dir/codes" 2>/dev/null)— the last one stopped with SIGTERM): ${bad:-yes}" \
    "$(verdict $ok)" "$(grep -v '^\s*$' "$dir/crawl.err" 2>/dev/null | sed -n 1p | cut -c1-160)"
  rm -rf "$dir"
}

section_lifecycle() {
  lifecycle_erase
  lifecycle_retain
  lifecycle_last_messages
  lifecycle_backups
}
