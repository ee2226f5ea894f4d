#!/usr/bin/env python3
"""Every link and anchor in the project's Markdown (or in the HTML that make docs writes) resolves.

    python3 scripts/check_links.py [--html] ROOT [FILE...]

Markdown (the default): README.md, CHANGELOG.md, docs/**/*.md and samples/*/README.md under ROOT,
or the FILEs given. Each [text](target) and ![alt](target) outside code (http(s) and mailto
targets are not fetched) must name a file or folder that exists, relative to the file; a
#anchor must be a heading of the target Markdown file (GitHub's anchor of it) or an explicit
<a id="...">. --html: every href and src of ROOT/**/*.html, the same way (ids of the target page).
Exit 1 with one line per broken link. Python 3, standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_doc import slug  # noqa: E402  (the anchors api_doc and render_docs give headings)

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]*(?:\([^()]*\))?[^()\s]*)(?:\s+\"[^\"]*\")?\)")
SKIP = ("http://", "https://", "mailto:")


def markdown_files(root):
    out = [os.path.join(root, f) for f in ("README.md", "CHANGELOG.md") if os.path.isfile(os.path.join(root, f))]
    for base in ("docs", "samples"):
        for d, _, files in os.walk(os.path.join(root, base)):
            out += [os.path.join(d, f) for f in files if f.endswith(".md")]
    return sorted(out)


def strip_code(text):
    text = re.sub(r"^(```|~~~).*?^\1\s*$", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


_anchors = {}


def md_anchors(path):
    if path not in _anchors:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text_nc = re.sub(r"^(```|~~~).*?^\1\s*$", "", text, flags=re.S | re.M)
        ids, seen = set(), {}
        for h in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", text_nc, re.M):
            s = slug(re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", r"\1", h))
            n = seen.get(s, 0)
            seen[s] = n + 1
            ids.add(s if n == 0 else "%s-%d" % (s, n))
        ids.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
        _anchors[path] = ids
    return _anchors[path]


def html_anchors(path):
    if path not in _anchors:
        with open(path, encoding="utf-8") as f:
            _anchors[path] = set(re.findall(r"\b(?:id|name)=\"([^\"]+)\"", f.read()))
    return _anchors[path]


def check(path, targets, anchors_of, suffix):
    bad = []
    for target in targets:
        if not target or target.startswith(SKIP):
            continue
        file_part, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(dest):
            bad.append("%s: link to %s: no such file" % (path, target))
            continue
        if anchor:
            if os.path.isdir(dest) or not dest.endswith(suffix):
                bad.append("%s: link to %s: an anchor into a file that is not %s" % (path, target, suffix))
            elif anchor not in anchors_of(dest):
                bad.append("%s: link to %s: no such anchor in %s" % (path, target, dest))
    return bad


def main(argv):
    html = "--html" in argv
    args = [a for a in argv[1:] if a != "--html"]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    root, files = args[0], args[1:]
    bad, count = [], 0
    if html:
        for d, _, names in os.walk(root):
            for f in sorted(names):
                if f.endswith(".html"):
                    p = os.path.join(d, f)
                    with open(p, encoding="utf-8") as fh:
                        targets = re.findall(r"\b(?:href|src)=\"([^\"]*)\"", fh.read())
                    count += len(targets)
                    bad += check(p, targets, html_anchors, ".html")
    else:
        for p in files or markdown_files(root):
            with open(p, encoding="utf-8") as fh:
                targets = LINK.findall(strip_code(fh.read()))
            count += len(targets)
            bad += check(p, targets, md_anchors, ".md")
    for b in bad:
        print(b)
    if bad:
        return 1
    print("links: %d links and anchors resolve (%s)" % (count, "HTML" if html else "Markdown"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
