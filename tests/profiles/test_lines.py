"""The TOML line locator: tomllib keeps no line numbers, so errors depend on this scanner."""

from __future__ import annotations

from labledger.profiles._lines import format_path, key_lines, line_of, parse_path

TEXT = '''\
name = "x"                      # 1
"quoted key" = 1                # 2
dotted.key = 2                  # 3
note = """                      # 4
fake = "a key inside a string"
[not-a-table]
"""
list = [                        # 8
  "fake2 = 1",
  [1, 2],
]
after = 1                       # 12

[table]                         # 14
inner = { a = 1, b = 2 }        # 15

[[arr]]                         # 17
k = 1                           # 18

[[arr]]                         # 20
k = 2                           # 21
sub.deep = 3                    # 22
lit = \'\'\'                    # 23
k = "not this one"
\'\'\'
[arr.nested]                    # 26
z = 1                           # 27
'''


def test_key_lines() -> None:
    lines = key_lines(TEXT)
    assert lines[("name",)] == 1
    assert lines[("quoted key",)] == 2
    assert lines[("dotted", "key")] == 3
    assert lines[("note",)] == 4
    assert ("fake",) not in lines
    assert ("not-a-table",) not in lines
    assert lines[("list",)] == 8
    assert ("fake2",) not in lines
    assert lines[("after",)] == 12
    assert lines[("table",)] == 14
    assert lines[("table", "inner")] == 15
    assert lines[("arr",)] == 17
    assert lines[("arr", 0)] == 17
    assert lines[("arr", 0, "k")] == 18
    assert lines[("arr", 1)] == 20
    assert lines[("arr", 1, "k")] == 21
    assert lines[("arr", 1, "sub", "deep")] == 22
    assert lines[("arr", 1, "lit")] == 23
    assert lines[("arr", 1, "nested")] == 26
    assert lines[("arr", 1, "nested", "z")] == 27


def test_line_of_falls_back_to_the_enclosing_key() -> None:
    lines = key_lines(TEXT)
    assert line_of(lines, ("table", "inner", "a")) == 15
    assert line_of(lines, ("list", 1, 0)) == 8
    assert line_of(lines, ("arr", 1, "missing")) == 20
    assert line_of(lines, ("nowhere",)) is None


def test_paths_round_trip() -> None:
    path = parse_path("$.danger-clocks[12].after-hours")
    assert path == ("danger-clocks", 12, "after-hours")
    assert format_path(path) == "danger-clocks[12].after-hours"
    assert parse_path("$") == ()
