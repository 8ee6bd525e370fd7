#!/usr/bin/env bash
# The chaos suite behind `make chaos`: faults, kills, locks, full and read-only disks and hostile input
# against qbarchive, each checked against the emulator's ground truth. Loopback only, bounded (BUDGET
# seconds, default 540 — it stops itself and marks what did not run), deterministic seeds. Writes
# docs/reliability.md (generated: a date, the machine, one row per check) and exits 1 if any check failed.
#
#   QBARCHIVE=.build/release/qbarchive SEED=7 scripts/chaos.sh
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
QBARCHIVE=${QBARCHIVE:-.build/release/qbarchive}
QBARCHIVE=$(cd "$(dirname "$QBARCHIVE")" && pwd)/$(basename "$QBARCHIVE")
SEED=${SEED:-7}
USERS=${USERS:-20}
DIALOGS=${DIALOGS:-60}
MESSAGES=${MESSAGES:-6000}
KILLS=${KILLS:-10}
EXPORT_KILLS=${EXPORT_KILLS:-10}
FILE_KILLS=${FILE_KILLS:-5}
BUDGET=${BUDGET:-540}
OUT=${OUT:-docs/reliability.md}
MAX_ATTEMPTS=8
REPO=$(cd "$HERE/.." && pwd)
COMMAND="QBARCHIVE=${QBARCHIVE#"$REPO"/} SEED=$SEED USERS=$USERS DIALOGS=$DIALOGS MESSAGES=$MESSAGES KILLS=$KILLS EXPORT_KILLS=$EXPORT_KILLS FILE_KILLS=$FILE_KILLS BUDGET=$BUDGET scripts/chaos.sh"

for tool in python3 curl timeout; do
  command -v "$tool" >/dev/null || { echo "chaos: $tool is missing (make chaos installs it)" >&2; exit 1; }
done
[ -x "$QBARCHIVE" ] || { echo "chaos: no qbarchive binary at $QBARCHIVE (set QBARCHIVE)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/qbarchive-chaos.XXXXXX)
ROWS=$WORK/rows.tsv
: >"$ROWS"
PIDS=()
MOUNTS=()
START=$(date +%s)
cleanup() {
  local pid mount
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[$i]}" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

elapsed() { echo $(($(date +%s) - START)); }
say() { printf '[chaos %3ss] %s\n' "$(elapsed)" "$*"; }
FAILED=0
row() { # section, injected, times, checked, PASS|FAIL|NOT RUN, detail
  local clean=()
  for field in "$@"; do clean+=("$(printf '%s' "$field" | tr '\t\n' '  ')"); done
  while [ ${#clean[@]} -lt 6 ]; do clean+=(""); done
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${clean[@]}" >>"$ROWS"
  [ "$5" = FAIL ] && FAILED=$((FAILED + 1))
  say "$5  $1 / $2 ($3): $4${6:+ — $6}"
}
verdict() { if [ "$1" = 1 ]; then echo PASS; else echo FAIL; fi; }
over_budget() { [ "$(elapsed)" -ge "$BUDGET" ]; }

# --- emulator and crawl helpers -------------------------------------------------------------------------

EMU_N=0
emu_start() { # args for `qbarchive emulator`; sets URL and EMU_PID
  EMU_N=$((EMU_N + 1))
  local out=$WORK/emu$EMU_N.out waited=0
  "$QBARCHIVE" emulator --port 0 --api-key chaos "$@" >"$out" 2>"$WORK/emu$EMU_N.err" &
  EMU_PID=$!
  PIDS+=("$EMU_PID")
  until grep -q '^listening on ' "$out" 2>/dev/null; do
    kill -0 "$EMU_PID" 2>/dev/null || { cat "$WORK/emu$EMU_N.err" >&2; echo "chaos: the emulator did not start" >&2; exit 1; }
    sleep 0.05
    waited=$((waited + 1))
    [ $waited -lt 600 ] || { echo "chaos: the emulator did not start in 30 s" >&2; exit 1; }
  done
  URL=$(sed -n 's/^listening on //p' "$out")
}
emu_stop() { kill -TERM "$EMU_PID" 2>/dev/null || true; wait "$EMU_PID" 2>/dev/null || true; }
data() { echo --seed "$SEED" --users "$USERS" --dialogs "$DIALOGS" --messages "$MESSAGES"; }
truth() { curl -sS --max-time 30 -o "$1" "$URL/_emulator/truth"; }
live() { curl -sS --max-time 30 -X POST "$URL/_emulator/live?count=$1" >/dev/null; }
emu_faults() { # the emulator's fault counts: "total (500: a, 502: b, ...)"
  curl -sS --max-time 10 "$URL/_emulator/stats" | python3 -c '
import json, sys
f = json.load(sys.stdin)["faults"]
print(sum(f.values()), ", ".join(f"{k}: {v}" for k, v in sorted(f.items())) or "none")'
}

SCOPE=app
CRAWL_FLAGS=(--max-rps 1000 --concurrency 8)
crawl() { # archive, extra flags; the crawl's exit code is the function's; output in $WORK/crawl.{out,err}
  local archive=$1
  shift
  if [ "$SCOPE" = app ]; then
    QB_ENDPOINT=$URL QB_API_KEY=chaos timeout 180 "$QBARCHIVE" crawl --archive "$archive" --scope app --quiet \
      "${CRAWL_FLAGS[@]}" "$@" >"$WORK/crawl.out" 2>"$WORK/crawl.err"
  else
    QB_ENDPOINT=$URL QB_APP_ID=1 QB_AUTH_KEY=emulator-auth-key QB_AUTH_SECRET=emulator-auth-secret QB_LOGIN=user1 \
      QB_PASSWORD=password1 timeout 180 "$QBARCHIVE" crawl --archive "$archive" --quiet "${CRAWL_FLAGS[@]}" "$@" \
      >"$WORK/crawl.out" 2>"$WORK/crawl.err"
  fi
}
CODES=""
CRASHED=0
ERROR1=""
converge() { # archive, extra flags: crawl until exit 0, then --reconcile until exit 0 (MAX_ATTEMPTS each)
  local archive=$1 rc i
  shift
  for i in $(seq $MAX_ATTEMPTS); do
    rc=0
    crawl "$archive" "$@" || rc=$?
    CODES+="$rc "
    [ $rc -lt 124 ] || CRASHED=1
    [ $rc != 1 ] || [ -n "$ERROR1" ] || ERROR1=$(grep -v '^\s*$' "$WORK/crawl.err" | sed -n 1p | sed 's/^.*error qbarchive[^:]*: //' | cut -c1-160)
    [ $rc = 0 ] && break
  done
  [ $rc = 0 ] || return 1
  for i in $(seq $MAX_ATTEMPTS); do
    rc=0
    crawl "$archive" --reconcile "$@" || rc=$?
    CODES+="r$rc "
    [ $rc -lt 124 ] || CRASHED=1
    [ $rc = 0 ] && return 0
  done
  return 1
}
crawl_killed_after() { # delay, archive, flags: an app-scope crawl killed -9 after delay; 0 when it was still running
  local delay=$1 archive=$2 pid landed=1
  shift 2
  QB_ENDPOINT=$URL QB_API_KEY=chaos "$QBARCHIVE" crawl --archive "$archive" --scope app --quiet "$@" \
    >/dev/null 2>>"$(dirname "$archive")/crawl.err" &
  pid=$!
  PIDS+=("$pid")
  sleep "$delay"
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; landed=0; fi
  wait "$pid" 2>/dev/null || true
  return $landed
}
CMP=""
compare() { # archive, truth, compare.py flags; sets CMP (a summary) and returns 0 when it matches
  local rc=0
  CMP=$(python3 "$HERE/chaos/compare.py" --summary --archive "$1" --truth "$2" "${@:3}") || rc=$?
  return $rc
}
integrity() { # archive → "ok" or the problem (read-only PRAGMA integrity_check); "absent" before creation
  [ -e "$1" ] || { echo absent; return 0; }
  python3 - "$1" <<'PY'
import sqlite3, sys
try:
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    print("; ".join(r[0] for r in db.execute("PRAGMA integrity_check")))
except sqlite3.Error as error:
    print(f"unreadable: {error}")
PY
}
count_messages() { python3 -c "import sqlite3,sys; print(sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True).execute('select count(*) from messages').fetchone()[0])" "$1"; }
seeded() { # n, low, high → n seeded random numbers
  python3 -c "import random,sys; r=random.Random(int(sys.argv[1])); print(' '.join('%.2f' % r.uniform(float(sys.argv[3]), float(sys.argv[4])) for _ in range(int(sys.argv[2]))))" "$SEED${4:-0}" "$1" "$2" "$3"
}

SECTIONS=${SECTIONS:-faults live kill locks disk hostile files abuse}
want() { [[ " $SECTIONS " == *" $1 "* ]]; }

say "qbarchive $("$QBARCHIVE" --version) — seed $SEED, $USERS users, $DIALOGS dialogs, $MESSAGES messages; bound ${BUDGET} s; work in $WORK"

# --- 1. Faults at rising rates, with changes between crawls ---------------------------------------------

fault_case() { # label, rate label, emulator flags...
  local label=$1 rate=$2 dir=$WORK/fault-$RANDOM ok=1 faults expiries=""
  shift 2
  if over_budget; then row "Faults at rising rates" "$label $rate" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir"
  emu_start $(data) "$@"
  CODES="" CRASHED=0 ERROR1=""
  local loop=""
  if [ "$SCOPE" = user ]; then # token expiry: every session ends every $EXPIRE_EVERY s while the crawls run
    (while :; do curl -s -X POST "$URL/_emulator/expire-tokens" >>"$dir/expired"; echo >>"$dir/expired"; sleep "$EXPIRE_EVERY"; done) &
    loop=$!
    PIDS+=("$loop")
  fi
  local rc=0
  crawl "$dir/a.sqlite" || rc=$?
  CODES+="$rc "
  [ $rc -lt 124 ] || CRASHED=1
  live 150
  converge "$dir/a.sqlite" || ok=0
  if [ -n "$loop" ]; then
    kill "$loop" 2>/dev/null || true
    wait "$loop" 2>/dev/null || true
    expiries=$(python3 -c "import json,sys; print(sum(json.loads(l)['expired'] for l in open(sys.argv[1]) if l.strip()))" "$dir/expired")
  fi
  faults=$(emu_faults)
  truth "$dir/truth.jsonl"
  emu_stop
  compare "$dir/a.sqlite" "$dir/truth.jsonl" --scope "$SCOPE" || ok=0
  [ $CRASHED = 0 ] || ok=0
  local times=${faults%% *}
  [ -z "$expiries" ] || times="$expiries sessions expired"
  [ -z "$expiries" ] || faults="$expiries expiries"
  [ "$times" != 0 ] || { [ "$label" = "latency spikes" ] && times="every request"; }
  row "Faults at rising rates" "$label $rate, + 150 live changes" "$times" \
    "crawl exit codes: ${CODES% }; $CMP" "$(verdict $ok)" "${faults#* }${ERROR1:+; exit 1 said: $ERROR1}"
  rm -rf "$dir"
}

if want faults; then
for rate in 0.05 0.15 0.3; do fault_case "5xx (500/502/503)" "rate $rate" --fail-rate "$rate"; done
for rps in 100 50 25; do fault_case "429 with Retry-After: 1" "over $rps req/s" --rate-limit "$rps"; done
for rate in 0.05 0.15 0.3; do fault_case "connection resets" "rate $rate" --reset-rate "$rate"; done
for rate in 0.05 0.15 0.3; do fault_case "truncated bodies" "rate $rate" --truncate-rate "$rate"; done
for jitter in 50 150 400; do fault_case "latency spikes" "5 + up to $jitter ms" --latency-ms 5 --jitter-ms "$jitter"; done
SCOPE=user
for every in 1 0.5 0.2; do
  EXPIRE_EVERY=$every fault_case "token expiry (user scope)" "every $every s, ttl 1 s" --token-ttl 1 --latency-ms 20
done
SCOPE=app
fault_case "everything at once" "5xx 0.1, 429 over 100/s, resets 0.1, truncation 0.1, latency 0–50 ms" \
  --fail-rate 0.1 --rate-limit 100 --reset-rate 0.1 --truncate-rate 0.1 --jitter-ms 50
fi

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
kinds = {}
for line in open(sys.argv[1]):
    kind = json.loads(line)["kind"]
    kinds[kind] = kinds.get(kind, 0) + 1
new = kinds.get("message", 0) + kinds.get("deletion", 0) - int(sys.argv[2])
print(f"{new} new messages, {kinds.get('revision', 0)} edits, {kinds.get('deletion', 0)} deletions in all")
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
if want live; then
live_case 20
  live_case 50 --fail-rate 0.1 --truncate-rate 0.05
fi

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
if want kill; then
kill_crawls
fi

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
      "$QBARCHIVE" export --archive "$archive" --bundle tar.gz --out "$dir/out/F.tar.gz" >/dev/null 2>&1 &
    else
      "$QBARCHIVE" export --archive "$archive" --format jsonl --raw --out "$dir/out/J.jsonl" >/dev/null 2>&1 &
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
  "$QBARCHIVE" export --archive "$archive" --out "$dir/out/F.tar.gz" >/dev/null 2>&1 || rc=$?
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
if want kill; then
kill_exports
fi

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
if want locks; then
locks
fi

# --- 4. Full disk, read-only archive -------------------------------------------------------------------------

can_mount() { mkdir -p "$WORK/probe" && mount -t tmpfs -o size=1m tmpfs "$WORK/probe" 2>/dev/null && umount "$WORK/probe"; }
MOUNTABLE=0
can_mount && MOUNTABLE=1

full_disk() {
  local dir=$WORK/full ok=1 rc how msg before after
  if over_budget; then row "Full disk, read-only archive" "full disk" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir/disk" "$dir/outdisk"
  emu_start $(data)
  CODES="" CRASHED=0
  rc=0
  if [ $MOUNTABLE = 1 ]; then
    how="a 3 MB tmpfs (the crawl needs about 7 MB)"
    mount -t tmpfs -o size=3m tmpfs "$dir/disk"
    MOUNTS+=("$dir/disk")
    crawl "$dir/disk/a.sqlite" || rc=$?
  else
    how="RLIMIT_FSIZE 3 MB (ulimit -f; mounts not permitted here)"
    (trap '' XFSZ; ulimit -f 3072; crawl "$dir/disk/a.sqlite") || rc=$?
  fi
  msg=$(grep -v '^\s*$' "$WORK/crawl.err" "$WORK/crawl.out" | grep -i -m1 'full\|space\|too large\|error' | cut -d: -f2- | cut -c1-160 || true)
  case $rc in 1 | 3) ;; *) ok=0 ;; esac
  [ -n "$msg" ] || ok=0
  local state
  state=$(integrity "$dir/disk/a.sqlite")
  [ "$state" = ok ] || ok=0
  before=$(count_messages "$dir/disk/a.sqlite" 2>/dev/null || echo 0)
  if [ $MOUNTABLE = 1 ]; then mount -o remount,size=64m "$dir/disk"; fi
  converge "$dir/disk/a.sqlite" || ok=0
  truth "$dir/truth.jsonl"
  emu_stop
  compare "$dir/disk/a.sqlite" "$dir/truth.jsonl" || ok=0
  row "Full disk, read-only archive" "crawl onto a full disk: $how" 1 \
    "exit $rc (1 or 3 expected) with \"$msg\"; integrity $state with $before messages kept; after space is freed: ${CODES% }; $CMP" "$(verdict $ok)"

  # Export onto a full disk: exit 13, nothing under the final name, no temporaries left.
  local ok2=1 left
  rc=0
  if [ $MOUNTABLE = 1 ]; then
    how="a 512 KB tmpfs"
    mount -t tmpfs -o size=512k tmpfs "$dir/outdisk"
    MOUNTS+=("$dir/outdisk")
    "$QBARCHIVE" export --archive "$dir/disk/a.sqlite" --out "$dir/outdisk/F.tar.gz" >"$dir/export.out" 2>"$dir/export.err" || rc=$?
  else
    how="RLIMIT_FSIZE 512 KB"
    (trap '' XFSZ; ulimit -f 512; "$QBARCHIVE" export --archive "$dir/disk/a.sqlite" --out "$dir/outdisk/F.tar.gz" >"$dir/export.out" 2>"$dir/export.err") || rc=$?
  fi
  left=$(cd "$dir/outdisk" && ls -A1 | grep -v '^lost+found$' | tr '\n' ' ' || true)
  [ $rc = 13 ] || ok2=0
  [ -z "$left" ] || ok2=0
  row "Full disk, read-only archive" "bundle export onto a full disk: $how" 1 \
    "exit $rc (13 expected: output not writable) with \"$(sed -n 1p "$dir/export.err" | cut -c1-140)\"; files left in the directory: ${left:-none}" "$(verdict $ok2)"
  FULL_ARCHIVE=$dir/disk/a.sqlite
}
if want disk; then
full_disk
fi

read_only() {
  local dir=$WORK/ro ok=1 rc how summary="" before after n
  if over_budget || [ -z "${LOCKS_ARCHIVE:-}" ]; then row "Full disk, read-only archive" "read-only archive" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir/src" "$dir/ro" "$dir/exports"
  cp "$LOCKS_ARCHIVE" "$dir/src/a.sqlite"
  for suffix in -wal -shm .lock; do [ ! -e "$LOCKS_ARCHIVE$suffix" ] || cp "$LOCKS_ARCHIVE$suffix" "$dir/src/a.sqlite$suffix"; done
  n=$(count_messages "$dir/src/a.sqlite")
  if [ $MOUNTABLE = 1 ]; then
    mount --bind "$dir/src" "$dir/ro" && mount -o remount,bind,ro "$dir/ro"
    MOUNTS+=("$dir/ro")
    how="a read-only bind mount"
  else
    row "Full disk, read-only archive" "read-only archive" "—" "" "NOT RUN" "mounts are not permitted here, and as root chmod does not stop writes"
    return
  fi
  before=$(cd "$dir/src" && sha256sum * | sha256sum | cut -c1-16)
  local sec="Full disk, read-only archive" what="read-only archive ($how)"
  ro_row() { # command label, exit code, expected, message, extra check (1 = ok)
    local good=$5
    [ "$2" = "$3" ] || good=0
    row "$sec" "$what: $1" 1 "exit $2 ($3 expected) — \"$4\"" "$(verdict "$good")"
  }
  first() { grep -v '^\s*$' "$@" 2>/dev/null | sed -n 1p | sed 's/^.*error qbarchive[^:]*: //' | cut -c1-150; }
  emu_start $(data)
  rc=0
  crawl "$dir/ro/a.sqlite" || rc=$?
  emu_stop
  ro_row "crawl (docs/backups.md: 10, archive unreadable — check the path and permissions; 11 would mean another crawl holds it)" \
    "$rc" 10 "$(first "$WORK/crawl.err")" 1
  local got
  rc=0
  got=$("$QBARCHIVE" search --archive "$dir/ro/a.sqlite" --count 'date > 2000-01-01' 2>"$dir/search.err") || rc=$?
  ro_row "search" "$rc" 0 "$got of $n messages$(first "$dir/search.err")" "$([ "$got" = "$n" ] && echo 1 || echo 0)"
  rc=0
  "$QBARCHIVE" status --archive "$dir/ro/a.sqlite" >"$dir/status.out" 2>"$dir/status.err" || rc=$?
  ro_row "status" "$rc" 0 "$(first "$dir/status.err" "$dir/status.out")" 1
  rc=0
  "$QBARCHIVE" stats --archive "$dir/ro/a.sqlite" --json >"$dir/stats.out" 2>"$dir/stats.err" || rc=$?
  ro_row "stats" "$rc" 0 "$(first "$dir/stats.err")" 1
  rc=0
  "$QBARCHIVE" export --archive "$dir/ro/a.sqlite" --out "$dir/exports/F.tar.gz" >"$dir/export.out" 2>"$dir/export.err" || rc=$?
  ro_row "export (docs/exports.md: exports, and says the audit log cannot record it)" "$rc" 0 \
    "$(first "$dir/export.err" "$dir/export.out")" 1
  rc=0
  timeout 20 "$QBARCHIVE" serve --archive "$dir/ro/a.sqlite" --port 0 --exports "$dir/exports" >/dev/null 2>"$dir/serve.err" || rc=$?
  ro_row "serve (docs/service.md: 13, the audit log cannot be written)" "$rc" 13 "$(first "$dir/serve.err")" 1
  after=$(cd "$dir/src" && sha256sum * | sha256sum | cut -c1-16)
  row "$sec" "$what: the 6 commands above" 6 "the archive's files are byte for byte unchanged" \
    "$(verdict "$([ "$before" = "$after" ] && echo 1 || echo 0)")"
}
if want disk; then
read_only
fi

# --- 5. Hostile input ----------------------------------------------------------------------------------------

HOSTILE_ARCHIVE=""
hostile_queries() {
  local archive=${LOCKS_ARCHIVE:-}
  if over_budget || [ -z "$archive" ]; then row "Hostile input" "malformed queries" "—" "" "NOT RUN" "time budget spent"; return; fi
  local malformed=(
    '"unbalanced' '(a' 'a)' '((a)' 'a))' '"' 'text:"a' 'message ctn "\' '()' '(((((((((((a'
    'sendr_id = 5' 'nosuchfield > 3' 'custom. = 1' 'from:' 'sender_id >' 'sender_id >=' 'message ctn' 'date in'
    'date > 2024-13-45' 'date in foo' 'date_sent = 0' 'date > 99999999999999999999d' 'updated_at < 2024-02-30'
    'date_sent[gt]=abc' 'sender_id[foo]=1' 'sender_id[in]=' 'sender_id in ()' 'read_ids all ()' 'sender_id = abc'
    'from:nosuchuser' 'has:foo' 'edited = maybe' 'deleted = 2' 'dialog_type:weird' 'and' 'or' 'not'
    'a and' 'a or' 'not not' '& a' 'a & & b' '= 5' '> 7d' 'message != '
    "$(printf 'not %.0s' $(seq 200))a" "$(printf '(%.0s' $(seq 5000))a$(printf ')%.0s' $(seq 5000))"
    "$(printf 'sender_id = %s x' "$(printf '9%.0s' $(seq 40))")" 'date > 2024-01-01T25:61:00Z' 'sender_id < -'
  )
  local legal=(
    'NEAR(a b)' 'a NEAR b' '"a" NEAR/2 "b"' 'a*b' '^a' '*' 'col:ons' 'C++' '-' 'a OR b' 'a AND b' '"*"' "'"
    'message ctn "%"' 'message ctn "_"' 'message ctn "\\"' "x'; DROP TABLE messages; --" 'a:' '\'
    "$(printf 'a\001b\tc\rd')" "$(printf '%.0sx' $(seq 100000))" 'message ctn "NEAR("' '"refund" ^ 2' 'custom.age > 3'
  )
  local complex=(
    "$(printf 'message ctn "the" or %.0s' $(seq 600))the"
    "$(printf 'sender_id = 100001 or %.0s' $(seq 1200))the"
    "$(printf 'date > 2024-01-01 %.0s' $(seq 1200))"
  )
  local q rc ok=1 bad="" n=0 surfaces=0
  for q in "${malformed[@]}"; do
    n=$((n + 1))
    for surface in search export stats; do
      rc=0
      case $surface in
        search) timeout 20 "$QBARCHIVE" search --archive "$archive" --count "$q" >/dev/null 2>"$WORK/q.err" || rc=$? ;;
        export) timeout 20 "$QBARCHIVE" export --archive "$archive" --format jsonl --where "$q" --out "$WORK/q.jsonl" >/dev/null 2>"$WORK/q.err" || rc=$? ;;
        stats) timeout 20 "$QBARCHIVE" stats --archive "$archive" --where "$q" >/dev/null 2>"$WORK/q.err" || rc=$? ;;
      esac
      surfaces=$((surfaces + 1))
      if [ $rc != 2 ] || ! grep -q 'invalid query\|error' "$WORK/q.err"; then ok=0; bad+="$surface ${q:0:30}… exit $rc; "; fi
    done
    [ ! -e "$WORK/q.jsonl" ] || { ok=0; bad+="export wrote a file for ${q:0:30}; "; rm -f "$WORK/q.jsonl"; }
  done
  row "Hostile input" "malformed queries (unbalanced quotes and parentheses, unknown fields and operators, bad dates, dangling operators, 200 nested nots, 5,000 nested parentheses, huge numbers) through search, export --where and stats --where" \
    "$surfaces" "each exits 2 with the error and a caret, writes nothing, no crash: ${bad:-all $n queries × 3 commands}" "$(verdict $ok)"

  ok=1 bad="" n=0
  local zeros=0
  for q in "${legal[@]}"; do
    n=$((n + 1))
    rc=0
    timeout 20 "$QBARCHIVE" search --archive "$archive" --count "$q" >/dev/null 2>"$WORK/q.err" || rc=$?
    case $rc in 0) zeros=$((zeros + 1)) ;; 2) ;; *) ok=0 bad+="${q:0:30} exit $rc ($(sed -n 1p "$WORK/q.err" | cut -c1-80)); " ;; esac
  done
  row "Hostile input" "FTS5 and SQL syntax as text (NEAR, *, ^, col:, quotes, %, _, \\\\, '; DROP TABLE), control characters, a 100,000-character query" \
    "$n" "exit 0 (searched as text) or 2, never an SQL error (1) or a crash: $zeros searched, $((n - zeros - $(echo "$bad" | grep -o 'exit' | wc -l))) refused${bad:+; $bad}" "$(verdict $ok)"

  ok=1 bad=""
  for q in "${complex[@]}"; do
    rc=0
    timeout 30 "$QBARCHIVE" search --archive "$archive" --count "$q" >/dev/null 2>"$WORK/q.err" || rc=$?
    [ $rc = 0 ] || [ $rc = 2 ] || { ok=0; bad+="${q:0:22}… ($(echo "$q" | wc -w) words) exit $rc: $(sed -n 1p "$WORK/q.err" | cut -c1-90); "; }
  done
  row "Hostile input" "over-long queries: 600 message ctn alternatives; 1,200 sender_id alternatives; 1,200 and-ed dates" \
    "${#complex[@]}" "exit 0 or 2 (a usage error naming the limit), never an SQL error: ${bad:-ok}" "$(verdict $ok)"

  ok=1 bad=""
  for q in $'caf\xe9' $'\xff\xfe' $'refund \xc3' $'\xed\xa0\x80 surrogate'; do
    rc=0
    timeout 20 "$QBARCHIVE" search --archive "$archive" --count "$q" >"$WORK/q.out" 2>"$WORK/q.err" || rc=$?
    [ $rc = 2 ] || { ok=0; bad+="$(printf '%q' "$q") exit $rc$([ $rc = 0 ] && echo " ($(cat "$WORK/q.out") hits)"); "; }
  done
  row "Hostile input" "non-UTF-8 bytes in a query (Latin-1 café, 0xFF 0xFE, a cut sequence, an encoded surrogate)" 4 \
    "exit 2 naming the bad bytes, rather than searching for something else: ${bad:-ok}" "$(verdict $ok)"
}
if want hostile; then
hostile_queries
fi

hostile_server() {
  local dir=$WORK/hostile-server ok=1 rc codes="" control cases
  if over_budget; then row "Hostile input" "malformed server JSON" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir"
  python3 "$HERE/chaos/hostile_server.py" >"$dir/out" 2>"$dir/err" &
  local pid=$!
  PIDS+=("$pid")
  until grep -q '^listening on ' "$dir/out" 2>/dev/null; do sleep 0.05; done
  local url
  url=$(sed -n 's/^listening on //p' "$dir/out")
  cases=$(curl -s "$url/_cases" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)) - 1)')
  for i in 1 2; do
    rc=0
    QB_ENDPOINT=$url QB_API_KEY=hostile timeout 180 "$QBARCHIVE" crawl --archive "$dir/a.sqlite" --scope app --quiet \
      --max-rps 1000 --concurrency 8 --reconcile >/dev/null 2>"$dir/crawl.err" || rc=$?
    codes+="$rc "
    case $rc in 0 | 3) ;; *) ok=0 ;; esac
  done
  kill "$pid" 2>/dev/null || true
  control=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True).execute(\"select count(*) from messages m join dialogs d on d.id = m.dialog_id where d.name = 'control'\").fetchone()[0])" "$dir/a.sqlite")
  [ "$control" = 5 ] || ok=0
  local state failed
  state=$(integrity "$dir/a.sqlite")
  [ "$state" = ok ] || ok=0
  failed=$(grep -c 'dialog failed' "$dir/crawl.err" || true)
  row "Hostile input" "malformed server JSON from a hostile server: invalid UTF-8, HTML with 200, empty and null bodies, items not an array, missing or null ids, items of another dialog, numbers 1e400 and 2^70, 100,000-deep nesting, lone surrogates, U+0000, duplicate keys, a BOM, one id 10 times, trailing garbage" \
    "$cases" "2 crawls exit ${codes% } (0 or 3, never a crash or hang); the well-formed dialog archived (${control} of 5); $failed damaged dialogs reported failed by name; integrity $state" "$(verdict $ok)"
}
if want hostile; then
hostile_server
fi

hostile_fixture() {
  local dir=$WORK/fixture ok=1 rc ids
  if over_budget; then row "Hostile input" "oversized and hostile fields" "—" "" "NOT RUN" "time budget spent"; return; fi
  mkdir -p "$dir"
  emu_start --seed "$SEED" --users 6 --dialogs 10 --messages 300 --dump-truth "$dir/base.jsonl"
  emu_stop
  ids=$(python3 "$HERE/chaos/fixture.py" "$dir/base.jsonl" "$dir/hostile.jsonl")
  printf '%s' "$ids" >"$dir/ids.json"
  emu_start --fixture "$dir/hostile.jsonl"
  CODES="" CRASHED=0
  converge "$dir/a.sqlite" || ok=0
  truth "$dir/truth.jsonl"
  emu_stop
  compare "$dir/a.sqlite" "$dir/truth.jsonl" || ok=0
  row "Hostile input" "a fixture with a 1 MB text, 10,000 attachments, custom JSON 400 deep and 2,000 wide, a 70,000-letter word, <script>/onerror/template/CSV-formula text, bidi, zero-width, zalgo, emoji ZWJ, non-characters, U+0000" \
    17 "crawl exit codes ${CODES% }; $CMP" "$(verdict $ok)"

  # Export: CSV and JSON Lines parse back to the truth's text, byte for byte.
  local ok2=1 result
  "$QBARCHIVE" export --archive "$dir/a.sqlite" --format jsonl --out "$dir/m.jsonl" >/dev/null 2>&1 || ok2=0
  "$QBARCHIVE" export --archive "$dir/a.sqlite" --format csv --out "$dir/m.csv" >/dev/null 2>&1 || ok2=0
  "$QBARCHIVE" export --archive "$dir/a.sqlite" --format csv --excel --out "$dir/x.csv" >/dev/null 2>&1 || ok2=0
  "$QBARCHIVE" export --archive "$dir/a.sqlite" --out "$dir/b.tar.gz" >/dev/null 2>&1 || ok2=0
  "$QBARCHIVE" verify "$dir/b.tar.gz" >/dev/null 2>&1 || ok2=0
  result=$(python3 - "$dir" <<'PY'
import csv, json, sys
csv.field_size_limit(sys.maxsize)
d = sys.argv[1]
truth = {}
for line in open(f"{d}/truth.jsonl", encoding="utf-8"):
    e = json.loads(line)
    if e["kind"] == "message":
        text = e["record"].get("message")
        # docs/archive-schema.md: U+0000 is stored (and exported) as U+FFFD.
        truth[e["record"]["_id"]] = text.replace("\x00", "\ufffd") if isinstance(text, str) else text
bad = []
jl = {}
for line in open(f"{d}/m.jsonl", encoding="utf-8", newline=""):
    r = json.loads(line)
    jl[r["id"]] = r["text"]
for name, encoding in (("m.csv", "utf-8"), ("x.csv", "utf-8-sig")):
    with open(f"{d}/{name}", encoding=encoding, newline="") as h:
        rows = {r["id"]: (r["text"] if r["text"] != "" else None) for r in csv.DictReader(h)}
    for i, t in truth.items():
        if rows.get(i, "<missing>") != t:
            bad.append(f"{name} {i}")
for i, t in truth.items():
    if jl.get(i, "<missing>") != t:
        bad.append(f"jsonl {i}")
print(f"{len(truth)} messages × 3 files; differing: {len(bad)}" + (f" ({', '.join(bad[:4])})" if bad else ""))
sys.exit(1 if bad else 0)
PY
) || ok2=0
  row "Hostile input" "the same hostile text through export: JSON Lines, CSV, CSV --excel, a bundle" 4 \
    "each parses back (json, Python's csv) to the truth's exact text; the bundle verifies: $result" "$(verdict $ok2)"

  # The web UI: no tag from the data survives unescaped on any page.
  local ok3=1 port url pages=0 found="" spid status
  timeout 120 "$QBARCHIVE" serve --archive "$dir/a.sqlite" --port 0 --exports "$dir/exports" >"$dir/serve.out" 2>"$dir/serve.err" &
  spid=$!
  PIDS+=("$spid")
  until grep -q 'http://' "$dir/serve.out" 2>/dev/null; do kill -0 "$spid" 2>/dev/null || break; sleep 0.05; done
  url=$(grep -o 'http://[0-9.:]*' "$dir/serve.out" | sed -n 1p)
  local dialog paths=()
  dialog=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['dialog'])" "$dir/ids.json")
  paths=("/dialogs" "/dashboard" "/dialogs/$dialog" "/search?q=chaos_xss" "/search?q=refund" "/search?q=%3Cscript%3E"
    "/search?q=from%3Auser2" "/search?q=message+ctn+%22onerror%22" "/search?q=%22%3E%3Cimg" "/api/search?q=chaos_xss"
    "/api/dialogs" "/dialogs/$dialog?q=%3Cscript%3E")
  for id in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['messages'].values()))" "$dir/ids.json"); do
    paths+=("/messages/$id" "/api/messages/$id")
  done
  paths+=("/dialogs/$dialog?around=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['messages']['img'])" "$dir/ids.json")")
  for p in "${paths[@]}"; do
    status=$(curl -s -o "$dir/page" -w '%{http_code} %{content_type}' --max-time 30 "$url$p" || echo 000)
    pages=$((pages + 1))
    case ${status%% *} in 200 | 400) ;; *) ok3=0 found+="$p status ${status%% *}; " ;; esac
    local what
    what=$(python3 "$HERE/chaos/html_check.py" "$dir/page" "${status#* }") || { ok3=0; found+="$p: $what; "; }
  done
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  row "Hostile input" "the same hostile dialog name, user name, texts and attachment through qbarchive serve (pages and API)" "$pages" \
    "every page 200 (400 for the queries that are errors, shown at their position); no <script>/<iframe>, on* attribute, javascript: URL or <img src=x> from the data in any HTML page (html.parser), JSON served as application/json: ${found:-none found}" "$(verdict $ok3)"
}
if want hostile; then
hostile_fixture
fi

# --- 6. Attachments: faults on every download, kill -9 among them ------------------------------------------

attachment_files() {
  local dir=$WORK/files ok=1 landed=0 bad="" i=0 delay rc codes="" check faults served verify_rc=0
  if over_budget; then
    row "Attachments" "crawl --attachments files under download faults and kill -9" "—" "" "NOT RUN" "time budget spent"
    return
  fi
  mkdir -p "$dir"
  # Small data, some 20-50 MB files; every request (API and storage) may be cut short, misstated,
  # dropped or fail, and storage URLs expire after 2 s.
  emu_start --seed "$SEED" --users 8 --dialogs 20 --messages 2000 --large-file-rate 0.04 --truncate-rate 0.15 \
    --bad-length-rate 0.1 --reset-rate 0.05 --fail-rate 0.05 --storage-url-ttl 2 --latency-ms 5
  local flags=(--attachments files --attachment-concurrency 3 --max-rps 1000 --concurrency 4)
  for delay in $(seeded "$FILE_KILLS" 0.5 4.0 6); do
    i=$((i + 1))
    crawl_killed_after "$delay" "$dir/a.sqlite" "${flags[@]}" && landed=$((landed + 1))
    [ -e "$dir/a.sqlite" ] || continue
    truth "$dir/truth.jsonl"
    check=$(python3 "$HERE/chaos/files_check.py" "$dir/a.sqlite" "$dir/truth.jsonl") || { ok=0; bad+="after kill $i: $check; "; }
  done
  for i in $(seq $MAX_ATTEMPTS); do
    rc=0
    crawl "$dir/a.sqlite" "${flags[@]:0:4}" || rc=$?
    codes+="$rc "
    [ $rc = 0 ] && break
  done
  [ $rc = 0 ] || ok=0
  truth "$dir/truth.jsonl"
  faults=$(emu_faults)
  served=$(curl -sS --max-time 10 "$URL/_emulator/stats" | python3 -c 'import json,sys; d=json.load(sys.stdin)["downloads"]; print(d["downloads"], "storage requests after", d["redirects"], "redirects")')
  emu_stop
  check=$(python3 "$HERE/chaos/files_check.py" "$dir/a.sqlite" "$dir/truth.jsonl" --final) || ok=0
  "$QBARCHIVE" verify-store --archive "$dir/a.sqlite" >/dev/null 2>&1 || { verify_rc=$?; ok=0; }
  local kept
  kept=$(du -sb "$dir/a.sqlite.files/sha256" | cut -f1)
  row "Attachments" "crawl --attachments files with 15 % truncated, 10 % misstated, 5 % dropped, 5 % 5xx answers (API and storage), storage URLs expiring after 2 s, 4 % 20-50 MB files; kill -9 at seeded points 0.5–4 s" \
    "$FILE_KILLS" "$landed of $FILE_KILLS landed mid-run; store checked after each: ${bad:-every stored file hashes to its name}; runs to converge: ${codes% }; final: $check; verify-store exit $verify_rc; faults injected: $faults; $served for $kept bytes stored" \
    "$(verdict $ok)"
}
if want files; then
attachment_files
fi

# --- 7. Abuse of the service: heavy queries, floods, exports, slow clients -------------------------------------

# Bytes the archive's pages hold (checkpointed; free pages left by the crawl are not counted, so what the
# service adds shows even when it reuses them).
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
if want abuse; then
service_abuse
fi

# --- report ------------------------------------------------------------------------------------------------

WALL=$(elapsed)
python3 "$HERE/chaos/report.py" "$ROWS" "$OUT" "$COMMAND" "$WALL" "$BUDGET" "$WORK"
say "wrote $OUT: $(grep -c $'\tPASS\t' "$ROWS" || true) passed, $FAILED failed, $(grep -c $'\tNOT RUN\t' "$ROWS" || true) not run in ${WALL} s"
[ "$FAILED" = 0 ]
