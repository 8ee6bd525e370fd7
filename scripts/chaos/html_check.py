#!/usr/bin/env python3
"""Check a page of qbarchive serve for markup that came from the data (make chaos).

    html_check.py PAGE [CONTENT-TYPE]

The service sends no JavaScript at all, so in an HTML page any <script>, <iframe>, <object> or <embed>
element, any on* event-handler attribute and any javascript: URL can only have come from hostile data
that escaped escaping; so can an <img> whose source is the fixture's "x". JSON answers must be served as
application/json (their strings may hold anything). Prints what it found; exit 1 if anything.
"""
import sys
from html.parser import HTMLParser

BANNED = {"script", "iframe", "object", "embed"}


class Finder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag in BANNED:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
            if name in ("href", "src", "action", "formaction") and value.startswith("javascript:"):
                self.found.append(f"<{tag} {name}=javascript:…>")
            if tag == "img" and name == "src" and value == "x":
                self.found.append("<img src=x>")

    handle_startendtag = handle_starttag


def main():
    page = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    content_type = sys.argv[2] if len(sys.argv) > 2 else "text/html"
    if "json" in content_type or page.lstrip().startswith("{"):
        if not content_type.startswith("application/json"):
            print(f"JSON served as {content_type}")
            return 1
        return 0
    finder = Finder()
    finder.feed(page)
    if finder.found:
        print(", ".join(sorted(set(finder.found))))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
