"""The files a unified diff (a patch ``git apply`` or GNU ``patch`` applies) changes, read from
its headers: ``diff --git a/X b/Y``, ``--- X`` / ``+++ Y`` (``/dev/null`` on one side: a file
created or deleted), git's extended headers (``new file mode``, ``deleted file mode``,
``rename from``/``rename to``, ``copy from``/``copy to``). Hunk bodies are skipped by their
line counts (``@@ -a,b +c,d @@``), so a removed line that reads ``-- x`` is never taken for a
``--- x`` header. Paths are returned as the patch writes them (prefixes such as ``a/`` kept):
stripping (``-pN``), ``--directory`` and ``-R`` are the applier's, `hook` applies them."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_NULL = "/dev/null"


@dataclass
class FilePatch:
    """One file of a patch: its old and new paths as written (None: ``/dev/null``, the file
    is created or deleted), and whether git's headers say it is renamed (the old path then
    leaves: ``rename from`` and ``rename to`` are paths from the top, never prefixed)."""

    old: str | None
    new: str | None
    renamed: bool = False
    # the paths of git's extended headers (``rename from``/``to``, ``copy from``/``to``) are
    # written without the a/ b/ prefixes: not stripped
    bare: bool = False


def _header_path(rest: str) -> str | None:
    """The path of a ``---``/``+++`` header (up to a tab: a timestamp may follow; git's
    C-quoted form ``"a/x y"`` unquoted), None for ``/dev/null``."""
    path = rest.split("\t", 1)[0].rstrip("\r")
    if len(path) >= 2 and path.startswith('"') and path.endswith('"'):
        path = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    path = path.strip() if not path.startswith(" ") else path.rstrip()
    return None if path == _NULL or not path else path


def _git_pair(rest: str) -> tuple[str, str] | None:
    """``a/X b/Y`` of a ``diff --git`` line, split where the two halves name the same path
    (``a/x b/x``), else at the last `` b/``."""
    words = rest.rstrip("\r")
    half = (len(words) - 1) // 2
    if len(words) % 2 == 1 and words[half] == " " and words[:half][2:] == words[half + 1:][2:]:
        return words[:half], words[half + 1:]
    cut = words.rfind(" b/")
    return (words[:cut], words[cut + 1:]) if cut > 0 else None


def file_patches(text: str) -> list[FilePatch]:
    """Every file the patch ``text`` changes, in order (`FilePatch`); [] when it holds none
    (no patch at all)."""
    found: list[FilePatch] = []
    current: FilePatch | None = None
    # lines end at \n alone, as diff(1), git apply and patch(1) cut them: str.splitlines
    # would also cut a changed line at a form feed, \x1c or U+2028, and a fragment of it could
    # read as the next file's header
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("diff --git "):
            pair = _git_pair(line[len("diff --git "):])
            current = FilePatch(*pair) if pair else FilePatch(None, None)
            found.append(current)
        elif current is not None and line.startswith(("new file mode", "deleted file mode",
                                                        "rename from ", "rename to ",
                                                        "copy from ", "copy to ")):
            if line.startswith("new file mode"):
                current.old = None
            elif line.startswith("deleted file mode"):
                current.new = None
            elif line.startswith(("rename from ", "copy from ")):
                current.old, current.bare = line.split(" ", 2)[2], True
                current.renamed = line.startswith("rename")
            else:
                current.new, current.bare = line.split(" ", 2)[2], True
        elif line.startswith("--- ") and i < len(lines) and lines[i].startswith("+++ "):
            old, new = _header_path(line[4:]), _header_path(lines[i][4:])
            i += 1
            if current is None:  # a plain unified diff: its headers name the file
                found.append(FilePatch(old, new))
            elif not current.bare:  # (git's own, the same file: as its headers write it)
                current.old, current.new = old, new
            current = None  # the next headers are another file's
        elif line.startswith("@@"):
            counts = _HUNK.match(line)
            if counts is None:
                continue
            old_left = int(counts.group(1) if counts.group(1) is not None else 1)
            new_left = int(counts.group(2) if counts.group(2) is not None else 1)
            while i < len(lines) and (old_left > 0 or new_left > 0):
                body = lines[i]
                i += 1
                if body.startswith("\\"):  # "\ No newline at end of file"
                    continue
                kind = body[:1]
                if kind in (" ", ""):
                    old_left, new_left = old_left - 1, new_left - 1
                elif kind == "-":
                    old_left -= 1
                elif kind == "+":
                    new_left -= 1
                else:
                    break
    return found
