#!/usr/bin/env python3
"""A deliberately broken QuickBlox server for make chaos: malformed JSON a crawler must survive.

    hostile_server.py [--port 0]      # prints "listening on http://127.0.0.1:PORT", serves until killed

Answers just enough of the REST API for `qbarchive crawl --scope app` with an API key (users, dialogs,
messages, count=1). One dialog, "control", is well-formed; every other dialog answers its message
requests with one kind of damage (CASES below). A crawl must end with exit 0 or 3 (never a signal or a
hang), archive the control dialog completely, and leave a consistent archive. GET /_cases lists the
dialogs: {"dialog id": "case name"}.
"""
import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

USERS = [{"id": 100001 + i, "login": f"user{i + 1}", "full_name": f"User {i + 1}",
          "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-01T00:00:00Z"} for i in range(2)]
BASE = 1735700000  # 2025-01-01


def dialog_id(n):
    return f"{0x6790000000000000000000 + n:024x}"


def message(dialog, n, **overrides):
    record = {"_id": f"{0x6791000000000000000000 + dialog * 1000 + n:024x}", "chat_dialog_id": dialog_id(dialog),
              "message": f"message {n} of dialog {dialog}", "date_sent": BASE + dialog * 100 + n,
              "created_at": "2025-01-01T10:00:00Z", "updated_at": "2025-01-01T10:00:00Z",
              "sender_id": 100001, "recipient_id": 100002, "attachments": [], "read_ids": [100001],
              "delivered_ids": [100001], "read": 0}
    record.update(overrides)
    return record


def page(items):
    return json.dumps({"skip": 0, "limit": 100, "items": items}).encode()


def nested(depth):
    return b'{"skip":0,"limit":100,"items":[' + json.dumps(message(0, 1))[:-1].encode() + \
        b',"deep":' + b"[" * depth + b"]" * depth + b"}]}"


# name -> (body bytes for a dialog's message page, with n = that dialog's number), status code
CASES = {
    "control": lambda n: page([message(n, i) for i in range(1, 6)]),
    "invalid-utf8-in-string": lambda n: page([message(n, 1)]).replace(b"message 1", b"message \xff\xfe 1"),
    "html-with-status-200": lambda n: b"<html><body><h1>502 Bad Gateway</h1></body></html>",
    "empty-body": lambda n: b"",
    "items-not-an-array": lambda n: b'{"skip":0,"limit":100,"items":"nope"}',
    "date-sent-a-string": lambda n: page([message(n, 1, date_sent="yesterday")]),
    "id-null": lambda n: page([message(n, 1, _id=None)]),
    "id-missing-dialog": lambda n: page([{k: v for k, v in message(n, 1).items() if k != "chat_dialog_id"}]),
    "item-of-another-dialog": lambda n: page([message(n + 1000, 1)]),
    "sender-id-1e400": lambda n: page([message(n, 1)]).replace(b'"sender_id": 100001', b'"sender_id": 1e400'),
    "sender-id-2^70": lambda n: page([message(n, 1)]).replace(b'"sender_id": 100001',
                                                            b'"sender_id": 1180591620717411303424'),
    "nesting-100000-deep": lambda n: nested(100000),
    "lone-surrogate": lambda n: page([message(n, 1)]).replace(b"message 1", b"message \\ud800 1"),
    "nul-in-text": lambda n: page([message(n, 1, message="before\u0000after")]),
    "duplicate-keys": lambda n: page([message(n, 1)]).replace(b'"message": "message 1', b'"message": "a", "message": "message 1'),
    "byte-order-mark": lambda n: b"\xef\xbb\xbf" + page([message(n, 1)]),
    "same-id-ten-times": lambda n: page([message(n, 1)] * 10),
    "json-null-body": lambda n: b"null",
    "trailing-garbage": lambda n: page([message(n, 1)]) + b"}}}garbage",
    "attachments-an-object": lambda n: page([message(n, 1, attachments={"type": "image"})]),
    "huge-skip-echo": lambda n: b'{"skip":-1,"limit":99999999999,"items":[]}',
}
NAMES = list(CASES)


def dialog(n):
    return {"_id": dialog_id(n), "type": 3, "name": NAMES[n], "occupants_ids": [100001, 100002],
            "user_id": 100001, "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-01T00:00:00Z",
            "last_message": "x", "last_message_date_sent": BASE + n * 100 + 5, "last_message_user_id": 100001,
            "unread_messages_count": 0, "xmpp_room_jid": None}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        path = url.path.removesuffix(".json")
        if path == "/_cases":
            return self.send(200, json.dumps({dialog_id(n): NAMES[n] for n in range(len(NAMES))}).encode())
        if self.headers.get("Authorization") != "ApiKey hostile":
            return self.send(401, b'{"errors":{"base":["Required session does not exist"]}}')
        if path == "/users":
            page_number = int(query.get("page", 1))
            items = [{"user": u} for u in USERS] if page_number == 1 else []
            return self.send(200, json.dumps({"current_page": page_number, "per_page": 100,
                                              "total_entries": len(USERS), "items": items}).encode())
        if path == "/chat/Dialog":
            items = [dialog(n) for n in range(len(NAMES))]
            if query.get("count") == "1":
                return self.send(200, json.dumps({"items": {"count": len(items)}}).encode())
            skip, limit = int(query.get("skip", 0)), int(query.get("limit", 100))
            return self.send(200, json.dumps({"total_entries": len(items), "skip": skip, "limit": limit,
                                              "items": items[skip:skip + limit]}).encode())
        if path == "/chat/Message":
            ids = {dialog_id(n): n for n in range(len(NAMES))}
            n = ids.get(query.get("chat_dialog_id"))
            if n is None:
                return self.send(404, b'{"errors":["The resource wasn\'t found"]}')
            if query.get("count") == "1":
                return self.send(200, json.dumps({"items": {"count": 5 if n == 0 else 1}}).encode())
            if int(query.get("skip", 0)) > 0:
                return self.send(200, page([]))
            return self.send(200, CASES[NAMES[n]](n))
        return self.send(404, b'{"errors":["The resource wasn\'t found"]}')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    threading.current_thread().name = "hostile"
    sys.exit(main())
