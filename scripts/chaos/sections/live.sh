# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "live" (its rows are under "Faults at rising rates").

# --live: changes while the crawls run; then the emulator stops (dumping its truth) and a static
# emulator serves that very truth (--fixture) for the last crawls, so the comparison has a fixed target.
live_case() { # rate, extra emulator flags
  local rate=$1 dir=$WORK/live-$RANDOM ok=1 rc i changes
  shift
  if over_budget; then row "Faults at rising rates" "--live $rate" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir"
  emu_start $(data) --live "$rate" --dump-truth "$dir/dump.jsonl" "$@"
  CODES="" CRASHED=0
  for i in 1 2 3 4; do
    rc=0
    if [ $i = 3 ]; then crawl "$dir/a.sqlite" --reconcile || rc=$?; else crawl "$dir/a.sqlite" || rc=$?; fi
    CODES+="$rc "
    [ $rc -lt 124 ] || CRASHED=1
  done
  local faults stop_rc=0 dumped=no
  faults=$(emu_faults)
  # The truth the archive must reach, taken with no crawl running; then SIGTERM, which must end the
  # emulator with exit 0 and a fresh exit dump at --dump-truth (docs/emulator.md).
  cp "$dir/dump.jsonl" "$dir/start.jsonl"
  truth "$dir/truth.jsonl"
  kill -TERM "$EMU_PID" 2>/dev/null || true
  wait "$EMU_PID" 2>/dev/null || stop_rc=$?
  cmp -s "$dir/start.jsonl" "$dir/dump.jsonl" || dumped=yes
  STOP_NOTE="SIGTERM: exit $stop_rc, exit dump written: $dumped$( [ $stop_rc = 0 ] || echo " ($(grep -v '^\s*$' "$WORK/emu$EMU_N.err" | tail -n 1 | cut -c1-60))")"
  STOP_OK=$([ $stop_rc = 0 ] && [ $dumped = yes ] && echo 1 || echo 0)
  changes=$(python3 - "$dir/truth.jsonl" "$MESSAGES" <<'PY'
import json, sys
kinds, hidden = {}, 0
for line in open(sys.argv[1]):
    entry = json.loads(line)
    kinds[entry["kind"]] = kinds.get(entry["kind"], 0) + 1
    hidden += "hidden_for" in entry
new = kinds.get("message", 0) + kinds.get("deletion", 0) - int(sys.argv[2])
print(f"{new} new messages, {kinds.get('revision', 0)} edits, {kinds.get('deletion', 0)} deletions for everyone, "
      f"{hidden} messages and dialogs hidden for someone")
PY
)
  emu_start --fixture "$dir/truth.jsonl"
  converge "$dir/a.sqlite" || ok=0
  emu_stop
  compare "$dir/a.sqlite" "$dir/truth.jsonl" || ok=0
  [ $CRASHED = 0 ] || ok=0
  row "Faults at rising rates" "--live $rate changes/s during 4 crawls (one --reconcile)${1:+, }$*" "$changes" \
    "crawl exit codes: ${CODES% } (last crawls against the frozen truth); $CMP" "$(verdict $ok)" "faults: ${faults#* }"
  row "Faults at rising rates" "the --live $rate emulator stopped with SIGTERM" 1 \
    "exit 0 and the exit truth dump written (docs/emulator.md): $STOP_NOTE" "$(verdict "$STOP_OK")"
  rm -rf "$dir"
}

section_live() {
  live_case 20
  live_case 50 --fail-rate 0.1 --truncate-rate 0.05 --page-fault-rate 0.1
}
