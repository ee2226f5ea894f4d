#!/usr/bin/env python3
"""HTML of the project's Markdown (make docs): README.md, CHANGELOG.md, docs/**/*.md and
samples/*/README.md, into OUT with the same layout (README.md -> OUT/README.html, ...).

    python3 scripts/render_docs.py ROOT OUT

Renders with Python-Markdown (Debian: python3-markdown) when this Python can import it, else
with pandoc (Debian: pandoc); nothing is fetched. Links to .md files become links to .html
files, links to a folder with a README.md go to its README.html, headings get GitHub's anchors,
and the other files the pages link to (images, CSVs, headers) are copied beside them, so the
result reads offline; scripts/check_links.py --html OUT checks it.
"""
import html
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_doc import slug  # noqa: E402
from check_links import LINK, markdown_files  # noqa: E402

try:
    import markdown  # Python-Markdown
except ImportError:
    markdown = None

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{max-width:60em;margin:2em auto;padding:0 1em;font-family:sans-serif;line-height:1.45}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto}code{background:#f4f4f4}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em}</style>
</head><body>
%s
</body></html>
"""


def rewrite_links(text, src, root, copies):
    def fix(m):
        whole, target = m.group(0), m.group(1)
        if not target or target.startswith(("http://", "https://", "mailto:", "#")):
            return whole
        path, hash_, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(src), path))
        if os.path.isdir(dest) and os.path.isfile(os.path.join(dest, "README.md")):
            new = path.rstrip("/") + "/README.html"
        elif path.endswith(".md"):
            new = path[:-3] + ".html"
        else:
            if os.path.isfile(dest):
                copies.add(os.path.relpath(dest, root))
            new = path
        return whole.replace("(" + target, "(" + new + hash_ + anchor, 1)

    return LINK.sub(fix, text)


def heading_ids(body):
    """GitHub's anchors on h1..h6 (Python-Markdown's toc would make its own)."""
    seen = {}

    def fix(m):
        level, attrs, inner = m.group(1), m.group(2), m.group(3)
        plain = html.unescape(re.sub(r"<[^>]+>", "", inner))
        s = slug(plain)
        n = seen.get(s, 0)
        seen[s] = n + 1
        hid = s if n == 0 else "%s-%d" % (s, n)
        attrs = re.sub(r'\s*id="[^"]*"', "", attrs)
        return '<h%s id="%s"%s>%s</h%s>' % (level, hid, attrs, inner, level)

    return re.sub(r"<h([1-6])([^>]*)>(.*?)</h\1>", fix, body, flags=re.S)


def to_html(text):
    if markdown is not None:
        return markdown.markdown(text, extensions=["tables", "fenced_code"])
    if shutil.which("pandoc"):
        return subprocess.run(["pandoc", "-f", "gfm", "-t", "html"], input=text, capture_output=True, text=True,
                              check=True).stdout
    sys.exit("render_docs.py: neither Python-Markdown nor pandoc is installed "
             "(sudo apt-get install -y python3-markdown, or pandoc)")


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    root, out = argv[1], argv[2]
    copies, pages = set(), 0
    for src in markdown_files(root):
        rel = os.path.relpath(src, root)
        with open(src, encoding="utf-8") as f:
            text = f.read()
        body = heading_ids(to_html(rewrite_links(text, src, root, copies)))
        title = re.search(r"^#\s+(.*)$", text, re.M)
        dest = os.path.join(out, rel[:-3] + ".html")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w", encoding="utf-8") as f:
            f.write(PAGE % (html.escape(title.group(1) if title else rel), body))
        pages += 1
    for rel in sorted(copies):
        dest = os.path.join(out, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(root, rel), dest)
    print("docs: %d pages (%s) and %d linked files in %s" % (pages, "Python-Markdown" if markdown else "pandoc",
                                                            len(copies), out))


if __name__ == "__main__":
    main(sys.argv)
