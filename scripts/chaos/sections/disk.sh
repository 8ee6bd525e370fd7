# shellcheck shell=bash
# Sourced by scripts/chaos.sh (after scripts/chaos/lib.sh): section "disk".

# --- 4. Full disk, read-only archive -------------------------------------------------------------------------

can_mount() { mkdir -p "$WORK/probe" && mount -t tmpfs -o size=1m tmpfs "$WORK/probe" 2>/dev/null && umount "$WORK/probe"; }

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
    "$QBARCHIVE" export --archive "$dir/disk/a.sqlite" --out "$dir/outdisk/F.tar.gz" --force >"$dir/export.out" 2>"$dir/export.err" || rc=$?
  else
    how="RLIMIT_FSIZE 512 KB"
    (trap '' XFSZ; ulimit -f 512; "$QBARCHIVE" export --archive "$dir/disk/a.sqlite" --out "$dir/outdisk/F.tar.gz" --force >"$dir/export.out" 2>"$dir/export.err") || rc=$?
  fi
  left=$(cd "$dir/outdisk" && ls -A1 | grep -v '^lost+found$' | tr '\n' ' ' || true)
  [ $rc = 13 ] || ok2=0
  [ -z "$left" ] || ok2=0
  row "Full disk, read-only archive" "bundle export onto a full disk: $how" 1 \
    "exit $rc (13 expected: output not writable) with \"$(sed -n 1p "$dir/export.err" | cut -c1-140)\"; files left in the directory: ${left:-none}" "$(verdict $ok2)"
  FULL_ARCHIVE=$dir/disk/a.sqlite
}

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

section_disk() {
  MOUNTABLE=0
  can_mount && MOUNTABLE=1
  full_disk
  read_only
}
