"""docs/cli.md is generated from every command's --help, and a command missing from it fails.

Regenerate with `make docs` (python -m labledger.ledger.cli._reference docs/cli.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from labledger.ledger.cli import COMMANDS, cli
from labledger.ledger.cli._reference import Entry, entries, render

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "cli.md"
REGENERATE = "docs/cli.md is stale: run `make docs` and commit the result"


def _all_paths() -> set[tuple[str, ...]]:
    """Every command path, found independently of the generator (click's own parsing)."""
    found: set[tuple[str, ...]] = set()

    def walk(group: click.Group, ctx: click.Context, path: tuple[str, ...]) -> None:
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            assert sub is not None, f"`labledger {' '.join((*path, name))}` cannot be loaded"
            found.add((*path, name))
            if isinstance(sub, click.Group):
                walk(sub, click.Context(sub, info_name=name, parent=ctx), (*path, name))

    walk(cli, click.Context(cli, info_name="labledger"), ())
    return found


def test_committed_page_is_the_generated_one() -> None:
    committed = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    assert committed == render(), REGENERATE


def test_every_command_and_subcommand_has_a_section() -> None:
    page = PAGE.read_text(encoding="utf-8")
    paths = _all_paths()
    assert {p[0] for p in paths} >= set(COMMANDS)
    missing = sorted(" ".join(p) for p in paths
                     if f"## `labledger {' '.join(p)}`\n" not in page)
    assert not missing, f"undocumented in docs/cli.md: {missing}; {REGENERATE}"
    assert {e.path for e in entries()} == paths | {()}


@pytest.fixture(scope="module")
def all_entries() -> list[Entry]:
    return entries()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_with_an_example(name: str, all_entries: list[Entry]) -> None:
    """STYLE: every command has a docstring with one example (nested commands too)."""
    for entry in all_entries:
        if entry.path[:1] == (name,):
            assert "Example: " in entry.help, f"`{entry.title}` --help has no example"


def test_the_page_does_not_depend_on_the_terminal(tmp_path: Path) -> None:
    out = tmp_path / "cli.md"
    proc = subprocess.run([sys.executable, "-m", "labledger.ledger.cli._reference", str(out)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={"COLUMNS": "43", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8") == render()
