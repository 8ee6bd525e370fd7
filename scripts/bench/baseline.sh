#!/usr/bin/env bash
# Before and after: the same bundle imported by an earlier build (BASELINE) and by this one (OURS), the earlier
# archive upgraded by this build (the index rebuild of migration v7-multilingual-words), and a word search on
# each. Prints the rows of docs/performance.md's "Before and after" table. Called by scripts/bench.sh when
# BASELINE_QBARCHIVE names a build of an earlier commit. Usage: baseline.sh BASELINE OURS BUNDLE WORK RUNS
set -euo pipefail
baseline=$1 ours=$2 bundle=$3 work=$4 runs=$5
mb() { echo $(( $(stat -c %s "$1") / 1048576 )); }
import_into() { # $1 binary, $2 archive; prints seconds
  rm -f "$2"*
  /usr/bin/time -f '%e' -o "$work/baseline.time" "$1" import "$bundle" --archive "$2" --allow-unsigned >/dev/null 2>&1
  "$1" status --archive "$2" >/dev/null 2>&1 || true # a checkpoint: the WAL folded into the file
  cat "$work/baseline.time"
}
first_search() { # $1 binary, $2 archive, $3 query; p50 of the first-search --timing
  for _ in $(seq "$runs"); do "$1" search --archive "$2" --limit 20 --timing "$3" 2>&1 >/dev/null | awk '/^search: / {print $2}'; done \
    | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
before_s=$(import_into "$baseline" "$work/before.sqlite")
after_s=$(import_into "$ours" "$work/after.sqlite")
before_mb=$(mb "$work/before.sqlite") after_mb=$(mb "$work/after.sqlite")
before_search=$(first_search "$baseline" "$work/before.sqlite" invoice)
after_search=$(first_search "$ours" "$work/after.sqlite" invoice)
cp "$work/before.sqlite" "$work/upgraded.sqlite"
start=$(date +%s.%N)
"$ours" status --archive "$work/upgraded.sqlite" >/dev/null 2>&1 || true
upgrade_s=$(echo "$(date +%s.%N) - $start" | bc -l | xargs printf '%.1f')
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
echo "| import of the bundle (both full-text indexes built) | $before_s s | $after_s s | $(ratio "$after_s" "$before_s")× | ≤ 1.3× |"
echo "| archive size after the import | $before_mb MB | $after_mb MB | $(ratio "$after_mb" "$before_mb")× | ≤ 1.3× |"
echo "| word search \`invoice\`, first search p50 (\`--timing\`, fresh process) | $before_search ms | $after_search ms | $(ratio "$after_search" "$before_search")× | |"
echo "| upgrading the earlier archive (migration v7: both indexes rebuilt, \`date_key\` indexed) | | $upgrade_s s, $(mb "$work/upgraded.sqlite") MB | | once |"
rm -f "$work"/before.sqlite* "$work"/after.sqlite* "$work"/upgraded.sqlite* "$work/baseline.time"
