#!/usr/bin/env python3
"""Copies the USAGE code of a warpred header's manual into a file a test can #include.

    python3 scripts/snippets.py warpred/NAME.cuh OUT.inc

The Makefile runs it for every "snippets/NAME.inc" a test includes ($(BUILD)/snippets/NAME.inc,
found through -I$(BUILD)), so the tests compile and run the manual's own example code rather than
a copy of it. Python 3, standard library only.

Convention (how a manual's USAGE section is read):
  - The manual is the header's top comment: from its first "/*" to the first "*/".
  - The USAGE section starts at a line whose text is USAGE (a note in parentheses may follow it,
    as in "USAGE (host code, C or C++)").
  - Its code lines are those indented by 7 or more spaces. Blank lines between code lines are
    kept.
  - Prose lines (not blank, indented by fewer than 7 spaces, such as "and for a whole array,
    from the host (device_reduce.cuh):") are skipped. They cut the code into parts: part 1 is
    the code before the first prose line, part 2 the code after it, and so on.
  - The section ends at the first line that starts (after its indentation) with "(This snippet"
    or "(Both snippets", at the next section heading (a line indented by fewer than 7 spaces
    whose first word is in capitals, e.g. "SEMANTICS" or "RULES (x: ..."), or at the end of the
    comment.

Output: the code lines with their first 7 spaces removed, each run of lines preceded by
    #line N "warpred/NAME.cuh"
(N: its line in the header), so that a compile error in a snippet points into the manual. When
the section has more than one part, each part is wrapped in
    #if !defined(SNIPPET_PART) || SNIPPET_PART == k
so that a test can take a single part (#define SNIPPET_PART k before the #include) when another
part cannot be compiled where it includes the snippet. Without SNIPPET_PART every part is
included.

A header with no top comment, no USAGE section or no code in it is an error (exit status 1).

    python3 scripts/snippets.py --markdown README.md OUT.inc

does the same for a Markdown file: the code of each fenced block that follows a line
"<!-- snippet: NAME -->" (the README's quick start), one part per block, with #line directives
into the Markdown file.
"""
import os
import re
import sys

CODE_INDENT = 7
HEADING = re.compile(r"^[A-Z][A-Z0-9]+(?:$|[\s(:])")
USAGE = re.compile(r"^USAGE(?:\s*\(.*\))?$")
ENDINGS = ("(This snippet", "(Both snippets")


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def manual_lines(text):
    """(line number, line) for each line of the top comment, the /* and */ lines included."""
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if "/*" in l), None)
    if start is None:
        return []
    out = []
    for i in range(start, len(lines)):
        line = lines[i]
        end = line.find("*/", line.find("/*") + 2 if i == start else 0)
        if end >= 0:
            out.append((i + 1, line[:end]))
            break
        out.append((i + 1, line))
    return out


def usage_parts(text):
    """The USAGE code as a list of parts; a part is a list of runs; a run is (first line, [lines])."""
    lines = manual_lines(text)
    at = next((k for k, (_, l) in enumerate(lines) if USAGE.match(l.strip())), None)
    if at is None:
        return None
    parts, runs, run = [], [], None
    for number, line in lines[at + 1:]:
        line = line.rstrip()
        stripped = line.strip()
        if stripped.startswith(ENDINGS):
            break
        if not stripped:
            if run is not None:
                run[1].append("")
            continue
        if indent_of(line) >= CODE_INDENT:
            if run is None:
                run = (number, [])
                runs.append(run)
            run[1].append(line[CODE_INDENT:])
            continue
        if HEADING.match(stripped):
            break
        # prose: it ends the current part
        run = None
        if runs:
            parts.append(runs)
            runs = []
    if runs:
        parts.append(runs)
    for runs in parts:  # no blank lines at the end of a run
        for _, body in runs:
            while body and not body[-1]:
                body.pop()
    return parts


def render(parts, source):
    out = ["/* The USAGE code of %s, copied by scripts/snippets.py: edit the manual, not this file. */" % source]
    several = len(parts) > 1
    for k, runs in enumerate(parts, 1):
        if several:
            out.append("#if !defined(SNIPPET_PART) || SNIPPET_PART == %d" % k)
        for first, body in runs:
            out.append('#line %d "%s"' % (first, source))
            out.extend(body)
        if several:
            out.append("#endif")
    return "\n".join(out) + "\n"


def markdown_parts(text):
    """The fenced blocks after "<!-- snippet: NAME -->" lines, as usage_parts gives them."""
    lines = text.split("\n")
    parts = []
    for i, line in enumerate(lines):
        if not re.match(r"^<!-- snippet: [\w-]+ -->$", line.strip()):
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not lines[j].startswith("```"):
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        parts.append([(j + 2, lines[j + 1:k])])
    return parts


def main(argv):
    if len(argv) == 4 and argv[1] == "--markdown":
        with open(argv[2], encoding="utf-8") as f:
            parts = markdown_parts(f.read())
        if not parts:
            sys.stderr.write("%s: no fenced block after a '<!-- snippet: NAME -->' line\n" % argv[2])
            return 1
        with open(argv[3] + ".tmp", "w", encoding="utf-8") as f:
            f.write(render(parts, os.path.basename(argv[2])))
        os.replace(argv[3] + ".tmp", argv[3])
        return 0
    if len(argv) != 3:
        sys.stderr.write("usage: %s warpred/HEADER OUT.inc\n" % argv[0])
        return 2
    header, target = argv[1], argv[2]
    with open(header, encoding="utf-8") as f:
        text = f.read()
    source = "warpred/" + os.path.basename(header)
    parts = usage_parts(text)
    if parts is None:
        sys.stderr.write("%s: its top comment has no USAGE section\n" % header)
        return 1
    if not parts:
        sys.stderr.write("%s: its USAGE section has no code (code lines are indented by %d spaces)\n" % (header, CODE_INDENT))
        return 1
    tmp = target + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(render(parts, source))
    os.replace(tmp, target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
