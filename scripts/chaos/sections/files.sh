# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "files".

# --- 6. Attachments: faults on every download, kill -9 among them ------------------------------------------

attachment_files() {
  local dir=$WORK/files ok=1 landed=0 bad="" i=0 delay rc codes="" check faults served verify_rc=0
  if over_budget; then
    row "Attachments" "crawl --attachments files under download faults and kill -9" "—" "" "NOT RUN" "time budget spent"
    return
  fi
  mkdir -p "$dir"
  # files_check.py reads the SQLite archive's attachment_files table and its file store ARCHIVE.files/
  # directly: the store's on-disk state after each kill -9 is what is checked, a SQLite-archive layout.
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

section_files() {
  attachment_files
}
