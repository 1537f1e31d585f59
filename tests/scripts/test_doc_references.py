#!/usr/bin/env python3
"""The docs stand on their own: every relative link and every repository path
named in README.md, DEVELOPERS.md and docs/*.md exists in the repository, and
nothing points outside it (../ out of the repository, or a development
machine's absolute paths).

Checked: markdown link targets (relative to the file), and words of prose or
of backtick spans that start with one of the repository's top-level
directories. Not checked: code blocks (their paths are build outputs and
command arguments) and backtick spans with spaces in them (quoted messages).

Usage: tests/scripts/test_doc_references.py   (exit 0 = pass, 1 = a reference is broken)
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOP_DIRS = ("app", "renderer", "sim", "lab", "shaders", "assets", "scripts", "tests", "cmake", "third_party", "docs")
PATH = re.compile(r"(?<![\w/.~-])((?:%s)/[\w./-]*[\w/])" % "|".join(TOP_DIRS))
LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"\.\./shared|/work/|/home/|/root/")


def documents():
    names = ["README.md", "DEVELOPERS.md"]
    names += sorted(os.path.join("docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md"))
    return names


def prose_lines(text):
    """Lines outside fenced and indented code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") and not line.lstrip().startswith(("-", "|", "*")):
            continue
        yield number, line


def problems_in(name):
    text = open(os.path.join(ROOT, name), encoding="utf-8").read()
    base = os.path.dirname(os.path.join(ROOT, name))
    for number, line in enumerate(text.splitlines(), 1):
        if OUTSIDE.search(line):
            yield f"{name}:{number}: points outside the repository: {line.strip()}"
    for number, line in prose_lines(text):
        for match in LINK.finditer(line):
            target = match.group(1).split("#")[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue
            path = os.path.normpath(os.path.join(base, target))
            if not path.startswith(ROOT + os.sep):
                yield f"{name}:{number}: link leaves the repository: {target}"
            elif not os.path.exists(path):
                yield f"{name}:{number}: link target missing: {target}"
        # Backtick spans with a space are quoted output, not references.
        checked = re.sub(r"`([^`]*)`", lambda span: " " if re.search(r"\s", span.group(1)) else f" {span.group(1)} ",
                         line)
        for match in PATH.finditer(checked):
            # "app/fd_handoff.*" names the .h and the .cpp: any file that starts so will do.
            if checked[match.end():match.end() + 2] == ".*":
                if glob.glob(os.path.join(ROOT, match.group(1)) + ".*"):
                    continue
            if not os.path.exists(os.path.join(ROOT, match.group(1))):
                yield f"{name}:{number}: no such path in the repository: {match.group(1)}"


def main():
    problems = [p for name in documents() for p in problems_in(name)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"test_doc_references: {len(documents())} documents, {len(problems)} broken references")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
