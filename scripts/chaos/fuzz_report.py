#!/usr/bin/env python3
"""Reads query-fuzz's JSON report on stdin; prints "OK<TAB>detail" (OK 1 or 0) for the chaos row."""
import json
import sys

try:
    f = json.load(sys.stdin)
except ValueError:
    print("0\tno report")
    sys.exit()
ok = 1 if f["unpositioned"] == 0 and f["archive_errors"] == 0 else 0
detail = (
    f"{f['inputs']:,} inputs in {f['parse_seconds']:.0f} s: {f['parsed']:,} parsed, {f['rejected']:,} refused "
    f"({f['distinct_messages']} distinct messages), {f['unpositioned']} refusals unpositioned, slowest parse "
    f"{f['slowest_parse_ms']:.1f} ms; {f['archive_queries']:,} accepted ones through an archive: "
    f"{f['archive_ran']:,} ran, {f['archive_refused']:,} refused with a positioned error (unknown names, too "
    f"complex), {f['archive_errors']} other errors"
)
if f["examples"]:
    detail += "; e.g. " + f["examples"][0][:160]
print(f"{ok}\t{detail}")
