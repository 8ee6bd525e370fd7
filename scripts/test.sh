#!/usr/bin/env bash
# `make test`'s runner: the built test binary as two shards at once, one per core, each running its tests one
# after another (as `swift test --no-parallel` does: the emulator's and the crawler's timing-sensitive tests keep
# a core, never dozens of tests beside them). The `archive` shard holds the tests of the archive and what reads
# it (conformance and differential search on both backends, export, service, query language); the `crawl` shard
# the emulator, the client, the crawler, the built binary and PostgreSQL's own; each took about half of the serial
# run's time. Every line is prefixed by its shard; the exit
# status is non-zero when either shard fails, and both always run to the end. For a few tests, run
# `swift test --filter NAME` instead.
set -uo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
TESTS="$($SWIFT build --show-bin-path)/qbarchivePackageTests.xctest"
[ -x "$TESTS" ] || { echo "test: $TESTS is not built (swift build --build-tests)" >&2; exit 1; }
ARCHIVE='^(ArchiveConformanceTests|ExportTests|ArchiveSQLiteTests|ArchiveMigrationTests|SearchTests|ServiceTests'
ARCHIVE+='|QueryLanguageTests|StatsTests|TextIndexTests|QuickBloxTests)\.'

shard() {
    local name=$1
    shift
    NO_COLOR=1 "$TESTS" --testing-library swift-testing --no-parallel "$@" 2>&1 | sed -u "s/^/[$name] /"
}

shard archive --filter "$ARCHIVE" &
archive=$!
shard crawl --skip "$ARCHIVE" &
crawl=$!
wait "$archive"
archive_status=$?
wait "$crawl"
crawl_status=$?
for result in "archive:$archive_status" "crawl:$crawl_status"; do
    status=${result#*:}
    echo "test: shard ${result%%:*} $([ "$status" = 0 ] && echo passed || echo "FAILED (exit $status)")"
done
[ "$archive_status" = 0 ] && [ "$crawl_status" = 0 ]
