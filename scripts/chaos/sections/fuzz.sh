# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "fuzz".

# --- 0. Query fuzzing ----------------------------------------------------------------------------------------

# A million random queries (characters of the syntax and of many scripts, mutations of valid queries, token
# sequences, raw bytes) through the parser, and a sample of those it accepts through a small archive in many
# scripts (resolved, counted, searched, read back): no crash, no hang, every refusal positioned inside the query
# with a message and a caret (Sources/QueryFuzz).
section_fuzz() {
  local fuzz=${QUERY_FUZZ:-$(dirname "$QBARCHIVE")/query-fuzz} inputs=${FUZZ_INPUTS:-1000000} rc=0 out
  if over_budget; then row "Query fuzzing" "random queries" "—" "" "NOT RUN" "time budget spent"; return; fi
  if [ ! -x "$fuzz" ]; then
    row "Query fuzzing" "random queries" "—" "" "NOT RUN" "no query-fuzz binary beside qbarchive (make chaos builds it)"
    return
  fi
  say "fuzz: $inputs random queries"
  out=$(timeout 900 "$fuzz" "$inputs" "$SEED" "${FUZZ_ARCHIVE:-20000}" 2>"$WORK/fuzz.err") || rc=$?
  local summary
  summary=$(printf '%s' "$out" | python3 "$HERE/chaos/fuzz_report.py" 2>/dev/null || printf '0\tno report')
  local ok=${summary%%$'\t'*} detail=${summary#*$'\t'}
  [ "$rc" = 0 ] || { ok=0; detail="exit $rc ($(head -c 200 "$WORK/fuzz.err" | tr '\n' ' ')); $detail"; }
  row "Query fuzzing" "random queries through the parser, a sample through an archive (Sources/QueryFuzz)" "$inputs" \
    "no crash or hang, every refusal positioned: $detail" "$(verdict "$ok")"
}
