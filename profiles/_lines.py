"""Where each key of a TOML document sits: tomllib parses values but keeps no line numbers.

A small line scanner, enough for human-written profiles: table headers (``[a.b]``), arrays of
tables (``[[a]]``, counted so ``danger-clocks[1]`` finds the second one), ``key = value`` lines
(bare, quoted and dotted keys), and values that span lines (multi-line strings and arrays) are
skipped so text inside them is never read as a key. Paths use the decoded names msgspec reports:
``("danger-clocks", 1, "after-hours")``.
"""

from __future__ import annotations

import re

PathKey = tuple[str | int, ...]

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _parse_key(text: str) -> tuple[list[str], str] | None:
    """Split a (possibly dotted, possibly quoted) key off the start of ``text``.

    Returns (parts, rest after the key) or None when ``text`` does not start with a key.
    """
    parts: list[str] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos < len(text) and text[pos] in "\"'":
            quote = text[pos]
            end = text.find(quote, pos + 1)
            if end < 0:
                return None
            parts.append(text[pos + 1:end])
            pos = end + 1
        else:
            match = _BARE.match(text, pos)
            if match is None:
                return None
            parts.append(match.group())
            pos = match.end()
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos < len(text) and text[pos] == ".":
            pos += 1
            continue
        return parts, text[pos:]


def _open_brackets(value: str) -> int:
    """Net count of ``[``/``{`` minus ``]``/``}`` outside strings and comments."""
    depth = 0
    quote: str | None = None
    i = 0
    while i < len(value):
        ch = value[i]
        if quote is not None:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        i += 1
    return depth


def key_lines(text: str) -> dict[PathKey, int]:
    """Map every table and key path in ``text`` to its 1-based line number."""
    lines: dict[PathKey, int] = {}
    arrays: dict[PathKey, int] = {}  # array-of-tables path -> index of its latest element
    current: PathKey = ()
    closing: str | None = None  # the delimiter that ends a multi-line string
    depth = 0  # open brackets of a multi-line array value
    for number, raw in enumerate(text.splitlines(), start=1):
        if closing is not None:
            if raw.count(closing) % 2 == 1:
                closing = None
            continue
        if depth > 0:
            depth += _open_brackets(raw)
            continue
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            is_array = line.startswith("[[")
            parsed = _parse_key(line[2:] if is_array else line[1:])
            if parsed is None:
                continue
            path = _resolve(parsed[0], arrays)
            if is_array:
                index = arrays.get(path, -1) + 1
                arrays[path] = index
                lines.setdefault(path, number)
                path = (*path, index)
            current = path
            lines.setdefault(current, number)
            continue
        parsed = _parse_key(line)
        if parsed is None or not parsed[1].startswith("="):
            continue
        lines.setdefault((*current, *parsed[0]), number)
        value = parsed[1][1:].strip()
        for delimiter in ('"""', "'''"):
            if value.startswith(delimiter) and value.count(delimiter) == 1:
                closing = delimiter
        if closing is None and value.startswith("["):
            depth = max(_open_brackets(value), 0)
    return lines


def _resolve(parts: list[str], arrays: dict[PathKey, int]) -> PathKey:
    """A header's path, with the latest index of every array of tables it passes through."""
    path: PathKey = ()
    for part in parts:
        path = (*path, part)
        if path in arrays:
            path = (*path, arrays[path])
    # the header itself, when it names an array, is not indexed here (the caller adds one)
    if parts and path and isinstance(path[-1], int) and path[:-1] in arrays:
        path = path[:-1]
    return path


def parse_path(text: str) -> PathKey:
    """msgspec's ``$.danger-clocks[0].after-hours`` -> ("danger-clocks", 0, "after-hours")."""
    path: list[str | int] = []
    for name, index in re.findall(r"\.([^.\[\]]+)|\[(\d+)\]", text.removeprefix("$")):
        path.append(int(index) if index else name)
    return tuple(path)


def format_path(path: PathKey) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def line_of(lines: dict[PathKey, int], path: PathKey) -> int | None:
    """The line of ``path``, else of its nearest enclosing key or table."""
    for end in range(len(path), 0, -1):
        found = lines.get(path[:end])
        if found is not None:
            return found
    return None
