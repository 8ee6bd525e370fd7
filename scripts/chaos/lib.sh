# shellcheck shell=bash
# Shared by scripts/chaos.sh and its sections (scripts/chaos/sections/NAME.sh): setup and cleanup, the
# result rows, the emulator, crawl and comparison helpers. Sourced, never run; it expects the driver's
# settings (HERE, QBARCHIVE, SEED, USERS, DIALOGS, MESSAGES, BUDGET, SECTIONS, MAX_ATTEMPTS, ...).

PIDS=()   # processes to kill -9 when the suite ends
MOUNTS=() # mounts to undo, last first
FAILED=0

chaos_start() { # checks the tools and the binary, makes $WORK and $ROWS, sets the cleanup traps
  local tool
  for tool in python3 curl timeout; do
    command -v "$tool" >/dev/null || { echo "chaos: $tool is missing (make chaos installs it)" >&2; exit 1; }
  done
  [ -x "$QBARCHIVE" ] || { echo "chaos: no qbarchive binary at $QBARCHIVE (set QBARCHIVE)" >&2; exit 1; }
  WORK=$(mktemp -d /tmp/qbarchive-chaos.XXXXXX)
  ROWS=$WORK/rows.tsv
  : >"$ROWS"
  START=$(date +%s)
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}
cleanup() {
  local pid mount
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[$i]}" 2>/dev/null || true; done
  rm -rf "$WORK"
}

elapsed() { echo $(($(date +%s) - START)); }
say() { printf '[chaos %3ss] %s\n' "$(elapsed)" "$*"; }
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
  # compare.py reads the archive's content through `qbarchive export` (any backend); its SQLite checks
  # (integrity_check, FTS5, edited = revisions rows) run only when the archive is a SQLite file.
  local rc=0
  CMP=$(python3 "$HERE/chaos/compare.py" --summary --qbarchive "$QBARCHIVE" --archive "$1" --truth "$2" "${@:3}") || rc=$?
  return $rc
}
# SQLite-specific on purpose: whether the file itself survived (a kill -9, a full disk) is a question for
# SQLite's PRAGMA integrity_check; no qbarchive command asks it, and another backend needs its own check.
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
count_messages() { # archive → its messages, tombstoned ones included (qbarchive status --json: any backend)
  "$QBARCHIVE" status --archive "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["messages"])'
}
seeded() { # n, low, high → n seeded random numbers
  python3 -c "import random,sys; r=random.Random(int(sys.argv[1])); print(' '.join('%.2f' % r.uniform(float(sys.argv[3]), float(sys.argv[4])) for _ in range(int(sys.argv[2]))))" "$SEED${4:-0}" "$1" "$2" "$3"
}
want() { [[ " $SECTIONS " == *" $1 "* ]]; } # section name → 0 when SECTIONS names it

# --- report ------------------------------------------------------------------------------------------------

chaos_report() { # writes $OUT from the rows (report.py) and says how it went
  WALL=$(elapsed)
  python3 "$HERE/chaos/report.py" "$ROWS" "$OUT" "$COMMAND" "$WALL" "$BUDGET" "$WORK"
  say "wrote $OUT: $(grep -c $'\tPASS\t' "$ROWS" || true) passed, $FAILED failed, $(grep -c $'\tNOT RUN\t' "$ROWS" || true) not run in ${WALL} s"
}
