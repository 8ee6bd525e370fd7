#!/usr/bin/env bash
# Browser test: headless Chromium against the real service over a crawled emulator archive.
# Loads the search page with a query (what submitting the form requests), asserts on the DOM Chromium
# rendered, follows the first hit to its transcript, checks a query error and the dashboard, and saves
# screenshots. Run by `make browser-test` (and CI); SCREENSHOTS=docs/screenshots refreshes the docs.
set -euo pipefail
cd "$(dirname "$0")/.."

QBARCHIVE=${QBARCHIVE:?set QBARCHIVE to the qbarchive binary}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "browser-test: chromium is not installed (make browser-test installs it)" >&2; exit 1; }
WORK=$(mktemp -d)
SHOTS=${SCREENSHOTS:-$WORK/screenshots}
mkdir -p "$SHOTS"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

fail() { echo "browser-test: FAILED: $*" >&2; exit 1; }
first_line() {  # waits for a process's first output line in a file
  for _ in $(seq 1 300); do [ -s "$1" ] && sed -n 1p "$1" && return 0; sleep 0.1; done
  fail "no output in $1"
}
browser() {  # browser URL [screenshot.png]: prints the DOM after load
  local args=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions
              --user-data-dir="$WORK/profile" --window-size=1280,1000)
  if [ -n "${2:-}" ]; then "$CHROMIUM" "${args[@]}" --screenshot="$SHOTS/$2" "$1" >/dev/null 2>&1; fi
  "$CHROMIUM" "${args[@]}" --dump-dom "$1" 2>/dev/null
}

"$QBARCHIVE" emulator --port 0 --api-key browser-key --users 12 --dialogs 30 --messages 3000 >"$WORK/emulator.out" 2>&1 &
PIDS+=($!)
EMULATOR=$(first_line "$WORK/emulator.out" | sed -n 's/.*\(http:[^ ]*\).*/\1/p')
QB_ENDPOINT=$EMULATOR QB_API_KEY=browser-key "$QBARCHIVE" crawl --archive "$WORK/archive.sqlite" --scope app --quiet

"$QBARCHIVE" serve --archive "$WORK/archive.sqlite" --port 0 --exports "$WORK/exports" >"$WORK/serve.out" 2>&1 &
PIDS+=($!)
BASE=$(first_line "$WORK/serve.out" | sed -n 's/.*\(http:[^ ]*\).*/\1/p')
BASE=${BASE%/}
echo "browser-test: service at $BASE, $("$CHROMIUM" --version 2>/dev/null)"

# 1. The search page, as the form submits it: a count, highlighted hits, links to transcripts.
DOM=$(browser "$BASE/search?q=refund+or+invoice" search.png)
COUNT=$(sed -n 's/.*<strong id="result-count">\([0-9]*\)<\/strong>.*/\1/p' <<<"$DOM" | sed -n 1p)
[ -n "$COUNT" ] && [ "$COUNT" -gt 0 ] || fail "search page shows no result count"
MARKS=$(grep -o '<mark>' <<<"$DOM" | wc -l || true)
[ "$MARKS" -gt 0 ] || fail "search results have no highlighted match"
ROWS=$(grep -c '<tr class="hit"' <<<"$DOM" || true)
[ "$ROWS" -gt 0 ] || fail "no result rows in the DOM"
HREF=$(grep -o 'class="transcript-link" href="[^"]*"' <<<"$DOM" | sed -n 1p | sed 's/.*href="\([^"]*\)"/\1/; s/&amp;/\&/g')
[ -n "$HREF" ] || fail "no transcript link on the first hit"
# (A browser serialises text nodes with their quotes bare: the served HTML has &quot;, the DOM ".)
grep -q 'id="understood-as">Understood as: <bdi>word "refund" OR word "invoice"</bdi>' <<<"$DOM" \
  || fail "the search page does not say how the query was understood"
echo "ok   search: $COUNT messages, $ROWS rows, $MARKS highlights, the reading shown"

# 2. The transcript around that hit: the hit is marked, neighbours around it, a permalink.
# (The screenshot is taken without the #fragment: headless Chromium captures a blank frame after
# scrolling to an anchor. The page is centred on the hit either way.)
browser "$BASE${HREF%%#*}" transcript.png >/dev/null
DOM=$(browser "$BASE$HREF")
grep -q 'class="message target' <<<"$DOM" || fail "the transcript does not mark the hit"
MESSAGES=$(grep -c '<li class="message' <<<"$DOM" || true)
[ "$MESSAGES" -gt 1 ] || fail "the transcript shows no context around the hit"
grep -q 'class="permalink"' <<<"$DOM" || fail "no permalink in the transcript"
echo "ok   transcript: $MESSAGES messages around the hit"

# 3. A bad query: the error at its place, never results.
DOM=$(browser "$BASE/search?q=refund+sendr_id%3D5" query-error.png)
grep -q '<mark class="bad">sendr_id</mark>' <<<"$DOM" || fail "the query error is not shown at its position"
grep -q 'did you mean `sender_id`' <<<"$DOM" || fail "the query error has no hint"
if grep -q 'id="results"' <<<"$DOM"; then fail "a query error was shown as results"; fi
echo "ok   query error shown at its position"

# 4. The dashboard: totals and charts render.
DOM=$(browser "$BASE/dashboard" dashboard.png)
grep -q 'class="figure"' <<<"$DOM" || fail "the dashboard has no figures"
CHARTS=$(grep -o '<figure class="chart"' <<<"$DOM" | wc -l || true)
echo "ok   dashboard: $CHARTS charts"

ls "$SHOTS"/*.png >/dev/null || fail "no screenshots were written"
for shot in "$SHOTS"/*.png; do [ -s "$shot" ] || fail "empty screenshot $shot"; done
echo "browser-test: passed; screenshots in $SHOTS"
