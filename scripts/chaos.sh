#!/usr/bin/env bash
# The chaos suite behind `make chaos`: faults, kills, locks, full and read-only disks, hostile input, and
# kill -9 during erase and retain and backups during live crawls against qbarchive, each checked against the
# emulator's ground truth. Loopback only, bounded (BUDGET seconds, default 1300 — it stops itself and marks
# what did not run), deterministic seeds. Writes docs/reliability.md (generated: a date, the machine, one row
# per check) and exits 1 if any check failed.
#
#   QBARCHIVE=.build/release/qbarchive SEED=7 scripts/chaos.sh
#   SECTIONS="locks disk" scripts/chaos.sh          # only some sections (they run in the order below)
#
# This file is the driver: the settings, then each wanted section in order, then the report. The shared
# helpers are in scripts/chaos/lib.sh, each section in scripts/chaos/sections/NAME.sh (a section_NAME
# function), the checks in Python beside them (scripts/chaos/*.py; compare.py reads an archive's content
# through `qbarchive export`, so it serves any storage backend). Later sections use what earlier ones
# leave: disk and hostile reuse the locks archive, and a check whose input is missing is reported NOT RUN.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
QBARCHIVE=${QBARCHIVE:-.build/release/qbarchive}
QBARCHIVE=$(cd "$(dirname "$QBARCHIVE")" && pwd)/$(basename "$QBARCHIVE")
SEED=${SEED:-7}
USERS=${USERS:-20}
DIALOGS=${DIALOGS:-60}
MESSAGES=${MESSAGES:-6000}
KILLS=${KILLS:-10}
EXPORT_KILLS=${EXPORT_KILLS:-10}
FILE_KILLS=${FILE_KILLS:-5}
BUDGET=${BUDGET:-1300}
OUT=${OUT:-docs/reliability.md}
ALL_SECTIONS=(fuzz faults live kill locks disk hostile files lifecycle abuse)
SECTIONS=${SECTIONS:-${ALL_SECTIONS[*]}}
MAX_ATTEMPTS=8
REPO=$(cd "$HERE/.." && pwd)
COMMAND="QBARCHIVE=${QBARCHIVE#"$REPO"/} SEED=$SEED USERS=$USERS DIALOGS=$DIALOGS MESSAGES=$MESSAGES KILLS=$KILLS EXPORT_KILLS=$EXPORT_KILLS FILE_KILLS=$FILE_KILLS BUDGET=$BUDGET scripts/chaos.sh"

# shellcheck source=chaos/lib.sh
source "$HERE/chaos/lib.sh"
for section in "${ALL_SECTIONS[@]}"; do
  # shellcheck source=/dev/null
  source "$HERE/chaos/sections/$section.sh"
done

chaos_start
say "qbarchive $("$QBARCHIVE" --version) — seed $SEED, $USERS users, $DIALOGS dialogs, $MESSAGES messages; bound ${BUDGET} s; work in $WORK"
for section in "${ALL_SECTIONS[@]}"; do
  if want "$section"; then "section_$section"; fi
done
chaos_report
[ "$FAILED" = 0 ]
