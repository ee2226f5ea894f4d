#!/usr/bin/env python3
"""docs/api/ from the header manuals: one Markdown page per header and an index of the public names.

    python3 scripts/api_doc.py [--headers warpred] [-o docs/api]        (make api; make test checks it)

Each header's manual is its top comment (read with scripts/snippets.py's parser, the one that
copies the USAGE code into the tests). A page holds the manual's text and nothing else, laid out
for Markdown:
  - the title line "warpred/NAME - what it is." gives the page title and its one-line summary;
  - a line whose text starts with words in capitals ("USAGE", "ORDER  fixed by ...", "FOR THE
    LAYER ABOVE  (...)") starts a section (a "##" heading; the rest of the line opens its text);
  - lines at the manual's base indent (3 spaces) are prose; deeper lines are kept as they are, in
    a code block (USAGE: CUDA code; elsewhere the aligned tables of the manual), except lists
    ("- item" with its continuation lines), which become Markdown lists;
  - "Copy with": the headers this one includes, directly or not (read from its #include lines).
The index (docs/api/README.md) lists every public name a manual declares: a line of an indented
block that starts with a warpred_ / WARPRED_ name (after an optional return type), outside the
USAGE and "FOR THE LAYER(S) ABOVE" sections, whose header's code uses the name; its one line is
the rest of that manual line (after a gap of two spaces or more) or the line below it. A name
declared in several manuals belongs to the header that defines it (struct, #define or a function
definition), else to the first.

The output depends on the headers alone (no dates), so make test can regenerate it and compare.
Python 3, standard library only.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from snippets import CODE_INDENT, manual_lines  # noqa: E402  (the manuals' one parser)

BASE_INDENT = 3
HEADING = re.compile(r"^((?:[A-Z][A-Z0-9/\-]*(?:\([A-Z]\))?)(?: [A-Z][A-Z0-9/\-]*(?:\([A-Z]\))?)*)(?=$|\s{2,}|\s\(|:)")
NAME_AT_START = re.compile(
    r"^(?:(?:const\s+)?(?:unsigned\s+|signed\s+)?[A-Za-z_][\w:]*(?:<[^()]*?>)?\s*[*&]?\s+)?"
    r"((?:warpred|WARPRED)_[A-Za-z0-9]\w*)\b"
)
PRIVATE_SECTIONS = ("USAGE", "FOR THE LAYER ABOVE", "FOR THE LAYERS ABOVE")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:warpred/)?([A-Za-z0-9_]+\.(?:cuh|h))[>"]', re.M)


def slug(text):
    """The anchor GitHub gives a heading (scripts/render_docs.py gives the HTML the same)."""
    s = text.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


class Manual:
    def __init__(self, path):
        self.path = path
        self.file = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        lines = manual_lines(self.text)
        if not lines:
            raise SystemExit("%s: no top comment (the manual)" % path)
        self.end_line = lines[-1][0]
        self.code = "\n".join(self.text.split("\n")[self.end_line:])
        first = lines[0][1]
        first = first[first.find("/*") + 2:].strip()
        # the title: "warpred/NAME - summary" up to "MIT licensed", possibly over two lines
        title, body_from = first, 1
        while "MIT licensed" not in title and body_from < len(lines) and lines[body_from][1].strip():
            title += " " + lines[body_from][1].strip()
            body_from += 1
        title = re.split(r"\s+MIT licensed", title)[0].strip()
        m = re.match(r"^warpred/\S+\s+-\s+(.*)$", title)
        self.summary = (m.group(1) if m else title).strip()
        self.body = [(n, l.rstrip()) for n, l in lines[body_from:]]
        here = set(os.listdir(os.path.dirname(path) or "."))
        self.includes = sorted((set(INCLUDE.findall(self.text)) & here) - {self.file})


def closure(manuals, name):
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        for inc in manuals[n].includes if n in manuals else []:
            if inc not in seen:
                seen.add(inc)
                todo.append(inc)
    seen.discard(name)
    return sorted(seen)


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


CODE_TOKEN = re.compile(r"[_*<>\[\]#`]|::|->|==|\(\)")


def words(text):
    """Split at spaces, except inside brackets that follow a word (f(a, b), x[i + 1], T<A, B>)."""
    out, cur, depth = [], "", 0
    for k, c in enumerate(text):
        if c == " " and depth == 0:
            out.append(cur)
            cur = ""
            continue
        if c in "([<" and k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_>)]"):
            depth += 1
        elif c in ")]>" and depth > 0 and not (c == ">" and text[k - 1] in "-="):
            depth -= 1
        cur += c
    out.append(cur)
    return out


def prose(text, first=False):
    """Markdown for manual prose: code-like words in backticks, the rest as it is."""
    out = []
    for word in words(text):
        m = re.match(r"^([(\"']*)(.*?)((?:'s)?[)\"',.;:!?]*)$", word)
        lead, core, tail = m.groups()
        if core and CODE_TOKEN.search(core) and "`" not in core and re.search(r"[A-Za-z0-9]", core):
            # a closing parenthesis that belongs to the code (f(x), not "(see f)")
            while tail.startswith(")") and core.count("(") > core.count(")"):
                core, tail = core + ")", tail[1:]
            out.append("%s`%s`%s" % (lead, core, tail))
        else:
            out.append(word.replace("*", "\\*") if core else word)
    text = " ".join(out)
    if first and text[:1].islower():
        text = text[0].upper() + text[1:]
    return text


def blocks(body):
    """The manual body as (kind, data): ("heading", text), ("prose", [lines]), ("pre", [lines]),
    ("list", [items]) and ("blank", None), in order."""
    out = []
    i = 0
    while i < len(body):
        _, line = body[i]
        if not line.strip():
            out.append(("blank", None))
            i += 1
            continue
        ind = indent_of(line)
        stripped = line.strip()
        if ind <= BASE_INDENT:
            m = HEADING.match(stripped)
            if m and len(m.group(1)) >= 4 and m.group(1).upper() == m.group(1):
                out.append(("heading", m.group(1)))
                rest = stripped[len(m.group(1)):].strip()
                if rest:
                    out.append(("prose", ["\x00" + rest]))
            elif stripped.startswith("- "):
                out.append(("list", [stripped[2:]]))
            else:
                out.append(("prose", [stripped]))
            i += 1
            continue
        # an indented run: up to the next line at the base indent (blank lines inside are kept
        # when the run goes on after them)
        run = []
        while i < len(body):
            _, l = body[i]
            if l.strip() and indent_of(l) <= BASE_INDENT:
                break
            if not l.strip():
                j = i
                while j < len(body) and not body[j][1].strip():
                    j += 1
                if j >= len(body) or indent_of(body[j][1]) <= BASE_INDENT:
                    break
            run.append(l)
            i += 1
        out.append(("run", run))
    return out


def split_run(run, in_usage):
    """An indented run: a list when its first line is "- ...", else preformatted text."""
    base = min(indent_of(l) for l in run if l.strip())
    first = run[0].strip()
    if not in_usage and first.startswith("- "):
        items = []
        for l in run:
            s = l.strip()
            if not s:
                continue
            if indent_of(l) == base and s.startswith("- "):
                items.append(s[2:])
            else:
                items[-1] += " " + s
        return ("list", items)
    cut = min(base, CODE_INDENT if in_usage else base)
    return ("pre", [l[cut:] if l.strip() else "" for l in run])


def declared_names(lines, idx):
    """Public names that line idx of an indented block declares (at its start, after an optional
    return type; a list of names in its signature counts too), and the description beside it:
    the rest of the line after the signature, with the lines below it that continue it."""
    line = lines[idx]
    s = line.strip()
    m = NAME_AT_START.match(s)
    if not m:
        return [], ""
    names = [m.group(1)]
    gap = re.compile(r"\s{2,}").search(s, m.end(1))
    sig = s[: gap.start()] if gap else s
    desc = s[gap.end():] if gap else ""
    for extra in re.findall(r"(?:^|[,;]\s*|\bor\s+|\band\s+)((?:warpred|WARPRED)_[A-Za-z0-9]\w*)", sig):
        if extra not in names:
            names.append(extra)
    col = len(line) - len(s) + (gap.end() if gap else len(s))
    j = idx + 1
    while j < len(lines) and lines[j].strip() and not desc.rstrip().endswith((".", ")")):
        nxt = lines[j]
        if NAME_AT_START.match(nxt.strip()) or indent_of(nxt) <= indent_of(line):
            break
        if desc and indent_of(nxt) != col:
            break
        desc = (desc + " " + nxt.strip()).strip()
        if len(desc) > 160:
            break
        j += 1
    return names, desc


def render_page(man, manuals):
    deps = closure(manuals, man.file)
    out = [
        "<!-- Generated by scripts/api_doc.py from the top comment of warpred/%s: edit the header, then" % man.file,
        "     run `make api` (make test fails when this page no longer matches the header). -->",
        "",
        "# warpred/%s" % man.file,
        "",
        prose(man.summary, first=True),
        "",
        "[Index of names](README.md) · [source](../../warpred/%s)" % man.file,
        "",
    ]
    if deps:
        out += ["**Copy with:** " + ", ".join("[`%s`](%s.md)" % (d, d) for d in deps), ""]
    else:
        out += ["**Copy with:** nothing (it includes no other warpred header).", ""]
    section = ""
    names_here = []  # (name, description, anchor section) in order
    anchored = set()
    pending_blank = False
    items = blocks(man.body)
    k = 0
    para = []

    def flush():
        if para:
            text = " ".join(para)
            out.append(prose(text.lstrip("\x00"), first=text.startswith("\x00")))
            out.append("")
            del para[:]

    while k < len(items):
        kind, data = items[k]
        k += 1
        if kind == "blank":
            flush()
            continue
        if kind == "heading":
            flush()
            section = data
            out += ["## %s" % data, ""]
            continue
        if kind == "prose":
            para.extend(data)
            continue
        if kind == "list":
            flush()
            # a base-indent list item may continue on base-indent lines: they were read as prose
            text = data[0]
            while k < len(items) and items[k][0] == "prose":
                text += " " + " ".join(items[k][1])
                k += 1
            out += ["- " + prose(text), ""]
            continue
        # an indented run
        flush()
        in_usage = section.startswith("USAGE")
        sub_kind, sub = split_run(data, in_usage)
        if sub_kind == "list":
            out += ["- " + prose(t) for t in sub] + [""]
            continue
        private = section.startswith(PRIVATE_SECTIONS)
        anchors = []
        if not private:
            for idx in range(len(sub)):
                names, desc = declared_names(sub, idx)
                for n in names:
                    if re.search(r"\b%s\b" % re.escape(n), man.code) and n not in anchored:
                        anchored.add(n)
                        anchors.append(n)
                        names_here.append((n, desc))
        for n in anchors:
            out.append('<a id="%s"></a>' % n.lower())
        out += ["```%s" % ("cuda" if in_usage else "text")] + sub + ["```", ""]
    flush()
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n", names_here


DEF_PATTERNS = [r"\b(?:struct|class|union)\s+{n}\b", r"#\s*define\s+{n}\b", r"^[^=;()]*\b{n}\s*\([^;]*$"]


def defines(man, name):
    return sum(len(re.findall(p.format(n=re.escape(name)), man.code, re.M)) for p in DEF_PATTERNS)


def one_line(desc):
    return desc.strip()


def render(headers_dir):
    files = sorted(f for f in os.listdir(headers_dir) if f.endswith((".cuh", ".h")))
    manuals = {f: Manual(os.path.join(headers_dir, f)) for f in files}
    pages, owners = {}, {}
    for f in files:
        page, names = render_page(manuals[f], manuals)
        pages[f + ".md"] = page
        for n, desc in names:
            owners.setdefault(n, []).append((f, desc))
    index = [
        "<!-- Generated by scripts/api_doc.py from the header manuals: run `make api`, do not edit. -->",
        "",
        "# warpred API reference",
        "",
        "One page per header, generated from its manual (the header's top comment, the one place the",
        "API is described); the README's [header table](../../README.md#headers) says which header",
        "to start from. Every public name a manual declares, with its header:",
        "",
        "| name | what | header |",
        "|---|---|---|",
    ]
    rows = []
    for n, cands in owners.items():
        best = max(cands, key=lambda c: (defines(manuals[c[0]], n) > 0, -files.index(c[0])))
        desc = best[1] or next((d for _, d in cands if d), "") or manuals[best[0]].summary
        rows.append((n.lower(), n, desc, best[0]))
    for _, n, desc, f in sorted(rows):
        index.append("| [`%s`](%s.md#%s) | %s | [%s](%s.md) |" % (n, f, n.lower(), prose(one_line(desc)).replace("|", "\\|"), f, f))
    index += ["", "## Headers", "", "| header | what |", "|---|---|"]
    for f in files:
        index.append("| [%s](%s.md) | %s |" % (f, f, prose(manuals[f].summary).replace("|", "\\|")))
    pages["README.md"] = "\n".join(index) + "\n"
    return pages


def main():
    ap = argparse.ArgumentParser(description="docs/api/ from the warpred header manuals")
    ap.add_argument("--headers", default="warpred")
    ap.add_argument("-o", "--output", default="docs/api")
    args = ap.parse_args()
    pages = render(args.headers)
    os.makedirs(args.output, exist_ok=True)
    for name in os.listdir(args.output):  # pages of headers that are gone
        if name.endswith(".md") and name not in pages:
            os.remove(os.path.join(args.output, name))
    for name, text in pages.items():
        path = os.path.join(args.output, name)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)


if __name__ == "__main__":
    main()
