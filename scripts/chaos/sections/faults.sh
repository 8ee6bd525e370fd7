# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "faults".

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

section_faults() {
  local rate rps jitter every
  for rate in 0.05 0.15 0.3; do fault_case "5xx (500/502/503)" "rate $rate" --fail-rate "$rate"; done
  for rps in 100 50 25; do fault_case "429 with Retry-After: 1" "over $rps req/s" --rate-limit "$rps"; done
  for rate in 0.05 0.15 0.3; do fault_case "connection resets" "rate $rate" --reset-rate "$rate"; done
  for rate in 0.05 0.15 0.3; do fault_case "truncated bodies" "rate $rate" --truncate-rate "$rate"; done
  for rate in 0.1 0.3 1; do
    fault_case "pages not as asked (reordered, padded with an older repeat, short, over-long)" "rate $rate" --page-fault-rate "$rate"
  done
  for jitter in 50 150 400; do fault_case "latency spikes" "5 + up to $jitter ms" --latency-ms 5 --jitter-ms "$jitter"; done
  SCOPE=user
  for every in 1 0.5 0.2; do
    EXPIRE_EVERY=$every fault_case "token expiry (user scope)" "every $every s, ttl 1 s" --token-ttl 1 --latency-ms 20
  done
  SCOPE=app
  fault_case "everything at once" "5xx 0.1, 429 over 100/s, resets 0.1, truncation 0.1, latency 0–50 ms, page faults 0.1" \
    --fail-rate 0.1 --rate-limit 100 --reset-rate 0.1 --truncate-rate 0.1 --jitter-ms 50 --page-fault-rate 0.1
}
