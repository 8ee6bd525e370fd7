#!/usr/bin/env python3
"""The benchmark's peer crawler: a plain sequential skip/limit crawl, the way QuickBlox's samples page.

For every user (an API key acting On-Behalf-Of each), list the dialogs page by page with skip/limit; then,
one dialog at a time, page its messages with skip/limit (sort_asc=date_sent, mark_as_read=0) and write each
page's items as JSON Lines. One keep-alive connection, no concurrency, no database. It is not a crawler
anyone should run (skip/limit misses and duplicates under concurrent writes, which qbarchive's date-cursor
paging avoids): it is the simplest thing that fetches everything, to compare throughput with.

Usage: sequential_crawler.py BASE_URL API_KEY USERS OUT.jsonl
"""
import http.client
import json
import sys
import urllib.parse

base, api_key, users, out_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
url = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
requests = 0


def get(path, user):
    global requests
    requests += 1
    connection.request("GET", path, headers={"Authorization": f"ApiKey {api_key}", "On-Behalf-Of": str(user)})
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status} {body[:200]!r}")
    return json.loads(body)


limit = 100
dialogs = {}
for user in range(100001, 100001 + users):
    skip = 0
    while True:
        page = get(f"/chat/Dialog.json?limit={limit}&skip={skip}", user)
        for dialog in page["items"]:
            dialogs.setdefault(dialog["_id"], user)
        skip += limit
        if len(page["items"]) < limit:
            break

messages = 0
with open(out_path, "w") as out:
    for dialog, user in dialogs.items():
        skip = 0
        while True:
            page = get(
                f"/chat/Message.json?chat_dialog_id={dialog}&sort_asc=date_sent&mark_as_read=0&limit={limit}&skip={skip}",
                user,
            )
            for item in page["items"]:
                out.write(json.dumps(item, separators=(",", ":")) + "\n")
            messages += len(page["items"])
            skip += limit
            if len(page["items"]) < limit:
                break
print(json.dumps({"dialogs": len(dialogs), "messages": messages, "requests": requests}))
