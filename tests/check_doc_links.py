#!/usr/bin/env python3
"""Check the relative links of the repository's Markdown documents.

Usage: check_doc_links.py ROOT [FILE...]   (default: README.md, CHANGELOG.md
                                            and docs/*.md under ROOT)
       check_doc_links.py --self-test

Every inline link or image [text](target) and every reference definition
[id]: target whose target is not a URL must name a file or folder that
exists inside ROOT (a link out of the repository fails too), and a
#fragment on a Markdown file must be the anchor of one of its headings
(GitHub's rule: lower case, punctuation dropped, spaces to hyphens, -1, -2
... for repeats) or of an explicit <a id="..."> / <a name="...">. Links
inside fenced code blocks and code spans are not links. Exit status 0 when
every link resolves, 1 otherwise (each bad link printed as file:line).
"""
import os
import re
import sys
import tempfile
from urllib.parse import unquote

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?\1")
# [text](target) or ![alt](target), target optionally <...>, optional "title".
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for no, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield no, line


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        seen, found = {}, set()
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                k = seen.get(base, 0)
                seen[base] = k + 1
                found.add(base if k == 0 else "%s-%d" % (base, k))
            found.update(HTML_ANCHOR.findall(line))
        cache[path] = found
    return cache[path]


def links(path):
    """(line number, target) of every link in a Markdown file."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    for no, line in prose_lines(text):
        plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for m in INLINE.finditer(plain):
            yield no, m.group(1)
        m = REFDEF.match(plain)
        if m:
            yield no, m.group(1)


def check(root, files):
    root = os.path.realpath(root)
    bad = []
    for f in files:
        path = os.path.join(root, f)
        for no, target in links(path):
            target = target.strip("<>")
            if SCHEME.match(target):
                continue  # a URL (https:, mailto:): not checked offline
            file_part, _, frag = target.partition("#")
            dest = os.path.realpath(
                os.path.join(os.path.dirname(path), unquote(file_part)) if file_part else path)
            where = "%s:%d: %s" % (f, no, target)
            if os.path.commonpath([root, dest]) != root:
                bad.append(where + " (outside the repository)")
            elif not os.path.exists(dest):
                bad.append(where + " (no such file)")
            elif frag and dest.endswith(".md") and unquote(frag) not in anchors(dest):
                bad.append(where + " (no heading with this anchor)")
    return bad


def default_files(root):
    files = [f for f in ("README.md", "CHANGELOG.md") if os.path.exists(os.path.join(root, f))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        files += sorted("docs/" + f for f in os.listdir(docs) if f.endswith(".md"))
    return files


def self_test():
    """The checker on a planted tree: what must pass passes, what must fail fails."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        os.makedirs(os.path.join(tmp, "sub"))
        with open(os.path.join(tmp, "docs", "guide.md"), "w") as fh:
            fh.write("# Guide\n\n## Errors and `pscr_last_error()`\n\n## Errors and `pscr_last_error()`\n"
                     "<a id=\"custom\"></a>\n")
        with open(os.path.join(tmp, "README.md"), "w") as fh:
            fh.write("\n".join([
                "# Top", "",
                "[ok](docs/guide.md) [ok](docs/guide.md#guide) [ok](sub/)",
                "[ok](docs/guide.md#errors-and-pscr_last_error)",
                "[ok](docs/guide.md#errors-and-pscr_last_error-1) [ok](#top)",
                "[ok](docs/guide.md#custom) [ok](https://example.org/x) ![ok](docs/guide.md)",
                "`[code](missing.md)` is a code span, not a link",
                "```", "[fenced](missing.md)", "```",
                "[bad1](missing.md)",
                "[bad2](docs/guide.md#no-such-heading)",
                "[bad3](#nowhere)",
                "![bad4](docs/missing.png)",
                "[bad5](../outside.md)",
                "[id]: docs/absent.md",
                ""]))
        bad = check(tmp, ["README.md"])
    lines = sorted(int(b.split(":")[1]) for b in bad)
    want = [11, 12, 13, 14, 15, 16]
    if lines != want:
        print("self-test failed: bad links reported on lines %s, expected %s" % (lines, want))
        for b in bad:
            print("  " + b)
        return 1
    print("self-test: exactly the 6 planted bad links reported (lines %s)" % want)
    return 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    files = argv[2:] or default_files(root)
    bad = check(root, files)
    for b in bad:
        print(b)
    if bad:
        print("%d broken link(s) in %s" % (len(bad), ", ".join(files)))
        return 1
    print("links: every relative link of %s resolves" % ", ".join(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
