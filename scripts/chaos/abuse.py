#!/usr/bin/env python3
"""A bounded abuse run against a running `qbarchive serve` (make chaos, section "abuse").

Usage: abuse.py URL EXPORTS_DIR QUOTA_BYTES HEADER_TIMEOUT_S > result.json

Four phases, each with /healthz probed every 100 ms on a connection of its own:
  heavy     40 clients send costly queries near the 4 KB cap (200 ctn alternatives, ranked) for 20 s
  floods    300 queries of 64 KB and 300 cross-site requests, 8 clients at once
  exports   6 clients start bundle exports for 12 s; the exports folder is measured every 100 ms
  slow      200 connections send half a request head and stop; are they closed after the header timeout?
Prints one JSON object: per-phase status counts, health latency (max, p99), the folder's peak size, how
many slow connections the server closed, and whether the service was still answering at the end.
"""
import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

URL, EXPORTS, QUOTA, HEADER_TIMEOUT = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
HOST, PORT = urllib.parse.urlparse(URL).hostname, urllib.parse.urlparse(URL).port


def request(method, path, body=None, headers=None, timeout=60):
    connection = http.client.HTTPConnection(HOST, PORT, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response.status
    except Exception as error:  # a refused or reset connection is a result too
        return type(error).__name__
    finally:
        connection.close()


class Health(threading.Thread):
    """Probes /healthz every 100 ms until stopped; keeps every latency and every non-200."""

    def __init__(self):
        super().__init__(daemon=True)
        self.latencies, self.failures, self.stop = [], [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            started = time.monotonic()
            status = request("GET", "/healthz", timeout=10)
            self.latencies.append(time.monotonic() - started)
            if status != 200:
                self.failures.append(str(status))
            self.stop.wait(0.1)

    def summary(self):
        ordered = sorted(self.latencies) or [0.0]
        return {
            "probes": len(self.latencies),
            "max_ms": round(ordered[-1] * 1000, 1),
            "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 1),
            "failures": self.failures[:5],
        }


def phase(name, body):
    health = Health()
    health.start()
    started = time.monotonic()
    result = body()
    health.stop.set()
    health.join()
    result.update({"seconds": round(time.monotonic() - started, 1), "health": health.summary()})
    return name, result


def hammer(clients, seconds, make):
    """`clients` threads call make(i) until `seconds` pass; returns status counts."""
    counts, lock, deadline = {}, threading.Lock(), time.monotonic() + seconds

    def work(index):
        n = 0
        while time.monotonic() < deadline:
            status = make(index, n)
            n += 1
            with lock:
                counts[str(status)] = counts.get(str(status), 0) + 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return counts


def heavy():
    words = ["e", "a", "o", "re", "in", "th", "an", "er", "on", "at"]

    def make(index, n):
        terms = " or ".join(f'message ctn "{words[(index + n + k) % len(words)]}{k}"' for k in range(200))
        query = urllib.parse.quote(terms[:4000].rsplit(" or ", 1)[0])
        return request("GET", f"/api/search?q={query}&sort=rank&limit=500")

    return {"statuses": hammer(40, 20, make)}


def floods():
    big = urllib.parse.quote_plus("refund " * 9363)  # 64 KB as sent

    def make(index, n):
        if index % 2 == 0:
            return request("GET", f"/api/search?q={big}")
        return request("GET", "/api/search?q=refund", headers={"Sec-Fetch-Site": "cross-site"})

    counts, total = {}, 0
    while total < 600:
        batch = hammer(8, 0.5, make)
        for key, value in batch.items():
            counts[key] = counts.get(key, 0) + value
            total += value
    return {"statuses": counts}


def folder_bytes():
    total = 0
    for root, _, files in os.walk(EXPORTS):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                pass
    return total


def exports():
    peak, stop = [0], threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], folder_bytes())
            stop.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    def make(index, n):
        return request(
            "POST", "/api/exports", body=b"{}", headers={"Content-Type": "application/json"}, timeout=120)

    counts = hammer(6, 12, make)
    stop.set()
    sampler.join()
    return {"statuses": counts, "peak_folder_bytes": peak[0], "quota_bytes": QUOTA, "final_folder_bytes": folder_bytes()}


def slow():
    sockets = []
    for _ in range(200):
        s = socket.create_connection((HOST, PORT), timeout=5)
        s.sendall(b"GET /api/search?q=refund HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        sockets.append(s)
    time.sleep(HEADER_TIMEOUT + 3)
    closed = 0
    for s in sockets:
        s.settimeout(0.5)
        try:
            closed += 1 if s.recv(1) == b"" else 0
        except (ConnectionResetError, BrokenPipeError):
            closed += 1
        except socket.timeout:
            pass
        s.close()
    return {"connections": len(sockets), "closed_by_server": closed}


results = dict(phase(name, body) for name, body in
               [("heavy", heavy), ("floods", floods), ("exports", exports), ("slow", slow)])
results["alive"] = request("GET", "/healthz", timeout=5) == 200
print(json.dumps(results, sort_keys=True))
