#!/usr/bin/env python3
"""Turn an emulator truth dump into a hostile fixture (make chaos).

    fixture.py BASE.jsonl OUT.jsonl

Keeps every record of BASE and adds, in its first group dialog (renamed to hostile HTML), messages
with: a 1 MB text, 10,000 attachments, custom JSON nested 400 deep (under the client's 512 limit),
HTML/script/attribute-breaking text, template syntax, CSV formula injection, quotes, CR/LF, tabs,
U+2028/U+2029, bidi overrides, zero-width and combining-mark storms, emoji ZWJ sequences, astral
and non-character code points, and a U+0000 inside a sentence. A user's full name and an
attachment's name and url are hostile too. Prints the hostile message ids as JSON on stdout.
"""
import json
import sys

HOSTILE_TEXTS = {
    "script": "<script>chaos_xss()</script> refund now",
    "img": "\"><img src=x onerror=chaos_xss()> '\"` </textarea></title>",
    "svg": "<svg/onload=chaos_xss()><iframe src=javascript:chaos_xss()>",
    "template": "{{chaos}} {{{chaos}}} {{#chaos}}x{{/chaos}} ${chaos} <%= chaos %>",
    "csv": "=HYPERLINK(\"http://evil.example/\",\"click\"),+1,-1,@SUM(A1)\r\n\"quoted, \"\"twice\"\"\"\n\tend",
    "separators": "line\u2028separator\u2029paragraph\u0085next\x0bvt\x0cff",
    "bidi": "\u202egnp.exe\u202c \u2066isolate\u2069 \u200f\u200e",
    "zero-width": "zero\u200bwidth\u200cjoin\u200dno\ufeffbom",
    "zalgo": "Z" + "\u0336\u0321\u0322\u0327" * 250 + "algo",
    "emoji": "👩‍👩‍👧‍👦 🏳️‍🌈 🇺🇦 👍🏽 " * 20,
    "astral": "𝕏𝔸𝕄 \U0010fffd \ufffe \uffff \U0001ffff",
    "nul": "visible before\u0000hidden after the nul",
    "long-word": "w" * 70000,
}


def main():
    base, out = sys.argv[1], sys.argv[2]
    lines = [json.loads(line) for line in open(base, encoding="utf-8") if line.strip()]
    dialog = next(e["record"] for e in lines if e["kind"] == "dialog" and e["record"].get("type") == 2)
    dialog["name"] = "<script>chaos_dialog()</script>\"><b>group"
    user = next(e["record"] for e in lines if e["kind"] == "user" and e["record"]["id"] != 100001)
    user["full_name"] = "\"><img src=x onerror=chaos_user()> Mallory"
    sender = (dialog.get("occupants_ids") or [100001])[0]
    template = next(e["record"] for e in lines if e["kind"] == "message" and e["record"]["chat_dialog_id"] == dialog["_id"])
    extra, ids = [], {}
    start = int(template["date_sent"])

    def add(name, text, **fields):
        number = len(extra) + 1
        record = dict(template)
        record.update({"_id": f"{0xc4a05 << 72 | number:024x}", "message": text, "date_sent": start + number,
                       "sender_id": sender, "attachments": [], "read_ids": [sender], "delivered_ids": [sender]})
        for key in ("age", "dialog_id", "priority", "client_msg_id", "save_to_history", "notification_type"):
            record.pop(key, None)
        record.update(fields)
        extra.append({"kind": "message", "record": record})
        ids[name] = record["_id"]

    for name, text in HOSTILE_TEXTS.items():
        add(name, text)
    add("1MB-text", ("megabyte of words, " * 60000)[:1_000_000])
    add("10k-attachments", "ten thousand attachments",
        attachments=[{"type": "image", "id": str(i), "uid": f"{i:032x}", "name": f"img{i}.png"} for i in range(10000)])
    deep = "bottom"
    for _ in range(400):
        deep = [deep]
    add("deep-custom", "custom JSON 400 deep", deep=deep, wide={f"k{i}": i for i in range(2000)})
    add("hostile-attachment", "an attachment with a hostile name",
        attachments=[{"type": "file", "id": "1", "name": "<img src=x onerror=chaos_att()>.pdf",
                      "url": "javascript:chaos_att()"}])
    # Messages go with the other messages (the dump's order: messages by dialog, then time).
    position = max(i for i, e in enumerate(lines) if e["kind"] == "message") + 1
    lines[position:position] = extra
    if dialog.get("last_message_date_sent") is not None:
        dialog["last_message_date_sent"] = max(dialog["last_message_date_sent"], start + len(extra))
    with open(out, "w", encoding="utf-8") as handle:
        for entry in lines:
            handle.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(json.dumps({"dialog": dialog["_id"], "messages": ids}))


if __name__ == "__main__":
    main()
