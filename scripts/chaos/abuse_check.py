#!/usr/bin/env python3
"""Judges an abuse run (abuse.py's JSON) for make chaos: prints PASS or FAIL with reasons, then a summary.

Usage: abuse_check.py RESULT.json ARCHIVE_GROWTH_BYTES
"""
import json
import sys

r = json.load(open(sys.argv[1]))
growth = int(sys.argv[2])
phases = ("heavy", "floods", "exports", "slow")
expected = {"200", "201", "400", "403", "409", "429", "503", "507"}
accepted = sum(v for p in ("heavy", "floods") for k, v in r[p]["statuses"].items() if k == "200")
accepted += r["exports"]["statuses"].get("201", 0)
health = max(r[p]["health"]["max_ms"] for p in phases)
probes = sum(r[p]["health"]["probes"] for p in phases)
unhealthy = sum(len(r[p]["health"]["failures"]) for p in phases)
odd = {p: {k: v for k, v in r[p]["statuses"].items() if k not in expected} for p in ("heavy", "floods", "exports")}

fail = []
if health >= 1000 or unhealthy:
    fail.append(f"health max {health} ms, {unhealthy} failed probes")
if any(odd.values()):
    fail.append(f"unexpected answers {odd}")
if r["floods"]["statuses"].get("200"):
    fail.append("a 64 KB or cross-site request was served")
if r["exports"]["peak_folder_bytes"] > r["exports"]["quota_bytes"]:
    fail.append("the exports folder passed its quota")
if r["slow"]["closed_by_server"] != r["slow"]["connections"]:
    fail.append("slow connections were left open")
if not r["alive"]:
    fail.append("the service stopped answering")
if growth > 2048 * accepted + 65536:
    fail.append(f"the archive grew {growth} bytes for {accepted} accepted requests")

print(("FAIL " + "; ".join(fail)) if fail else "PASS")
print(
    f"/healthz max {health} ms (p99 in the heavy phase {r['heavy']['health']['p99_ms']} ms) over {probes} probes; "
    f"40 clients of 4 KB ranked ctn queries for {r['heavy']['seconds']} s: {r['heavy']['statuses']}; "
    f"64 KB and cross-site floods: {r['floods']['statuses']}; "
    f"6 clients exporting for 12 s: {r['exports']['statuses']}, folder peak "
    f"{r['exports']['peak_folder_bytes'] / 2**20:.1f} MiB of {r['exports']['quota_bytes'] >> 20} MiB; "
    f"{r['slow']['closed_by_server']} of {r['slow']['connections']} half-sent requests closed by the server; "
    f"the archive grew {growth} bytes for {accepted} accepted requests ({growth // max(accepted, 1)} bytes each)"
)
