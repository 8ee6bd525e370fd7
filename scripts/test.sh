#!/usr/bin/env bash
# `make test`'s runner: the built test binary as two shards at once, one per core, each running its tests one
# after another (as `swift test --no-parallel` does: the emulator's and the crawler's timing-sensitive tests keep
# a core, never dozens of tests beside them). The `archive` shard holds the tests of the archive and what reads
# it (conformance and differential search on both backends, export, service, query language, SQLite); the
# `crawl` shard every other target: the emulator, the client, the crawler, the built binary, PostgreSQL's own.
# Each took about half of the serial run's time. Every line is prefixed by its shard; both shards run to the
# end, and the exit status is non-zero when either fails. For a few tests, run `swift test --filter NAME`.
set -uo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
TESTS="$($SWIFT build --show-bin-path)/qbarchivePackageTests.xctest"
if [ ! -x "$TESTS" ]; then
    echo "test: $TESTS is not built; run 'swift build --build-tests' first (make test does)" >&2
    exit 1
fi
ARCHIVE='^(ArchiveConformanceTests|ExportTests|ArchiveSQLiteTests|ArchiveMigrationTests|SearchTests|ServiceTests'
ARCHIVE+='|QueryLanguageTests|StatsTests|TextIndexTests|QuickBloxTests)\.'

shard() {
    local name=$1
    shift
    NO_COLOR=1 "$TESTS" --testing-library swift-testing --no-parallel "$@" 2>&1 | sed -u "s/^/[$name] /"
}

# The shard's name and its exit status, as the run's last lines.
report() { echo "test: shard $1 $([ "$2" = 0 ] && echo passed || echo "FAILED (exit $2)")"; }

shard archive --filter "$ARCHIVE" &
archive=$!
shard crawl --skip "$ARCHIVE" &
crawl=$!
wait "$archive"
archive_status=$?
wait "$crawl"
crawl_status=$?
report archive "$archive_status"
report crawl "$crawl_status"
[ "$archive_status" = 0 ] && [ "$crawl_status" = 0 ]
