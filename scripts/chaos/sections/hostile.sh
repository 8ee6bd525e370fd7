# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "hostile".

# --- 5. Hostile input ----------------------------------------------------------------------------------------

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
        export) timeout 20 "$QBARCHIVE" export --archive "$archive" --format jsonl --where "$q" --out "$WORK/q.jsonl" --force >/dev/null 2>"$WORK/q.err" || rc=$? ;;
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
  control=$("$QBARCHIVE" search --archive "$dir/a.sqlite" --count 'dialog_name = control' 2>"$dir/control.err" || echo "none")
  [ "$control" = 5 ] || ok=0
  local state failed
  state=$(integrity "$dir/a.sqlite")
  [ "$state" = ok ] || ok=0
  failed=$(grep -c 'dialog failed' "$dir/crawl.err" || true)
  row "Hostile input" "malformed server JSON from a hostile server: invalid UTF-8, HTML with 200, empty and null bodies, items not an array, missing or null ids, items of another dialog, numbers 1e400 and 2^70, 100,000-deep nesting, lone surrogates, U+0000, duplicate keys, a BOM, one id 10 times, trailing garbage" \
    "$cases" "2 crawls exit ${codes% } (0 or 3, never a crash or hang); the well-formed dialog archived (${control} of 5); $failed damaged dialogs reported failed by name; integrity $state" "$(verdict $ok)"
}

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
def excel(t):
    # docs/exports.md: --excel writes a cell that begins with = + - @ tab or CR after a ' (OWASP's rule).
    return "'" + t if isinstance(t, str) and t[:1] in ("=", "+", "-", "@", "\t", "\r") else t
for name, encoding, shown in (("m.csv", "utf-8", lambda t: t), ("x.csv", "utf-8-sig", excel)):
    with open(f"{d}/{name}", encoding=encoding, newline="") as h:
        rows = {r["id"]: (r["text"] if r["text"] != "" else None) for r in csv.DictReader(h)}
    for i, t in truth.items():
        if rows.get(i, "<missing>") != shown(t):
            bad.append(f"{name} {i}")
for i, t in truth.items():
    if jl.get(i, "<missing>") != t:
        bad.append(f"jsonl {i}")
print(f"{len(truth)} messages × 3 files; differing: {len(bad)}" + (f" ({', '.join(bad[:4])})" if bad else ""))
sys.exit(1 if bad else 0)
PY
) || ok2=0
  row "Hostile input" "the same hostile text through export: JSON Lines, CSV, CSV --excel, a bundle" 4 \
    "each parses back (json, Python's csv) to the truth's exact text (CSV --excel: a cell beginning with = + - @ tab or CR after a ', the documented rule); the bundle verifies: $result" "$(verdict $ok2)"

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

section_hostile() {
  hostile_queries
  hostile_server
  hostile_fixture
}
