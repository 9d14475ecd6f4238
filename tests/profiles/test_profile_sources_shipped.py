"""Every source a shipped profile cites is one a user can follow.

`labledger profiles show NAME` prints each fact's `source`; the design notes (DOMAIN.md,
ARCHITECTURE.md) are not shipped, so a source (or a comment `profiles show --toml` prints) that
cites them sends the user nowhere.
"""

from __future__ import annotations

import re
from importlib import resources

import pytest

from labledger.profiles import shipped_profiles
from tests.conftest import cli_call as call

UNSHIPPED = re.compile(r"DOMAIN(\.md)?\b|ARCHITECTURE(\.md)?\b|\bseed documents?\b")
SHIPPED = sorted(shipped_profiles())


def test_there_are_profiles_to_check() -> None:
    assert len(SHIPPED) >= 10


@pytest.mark.parametrize("name", SHIPPED)
def test_no_shipped_profile_cites_the_design_notes(name: str) -> None:
    text = (resources.files("labledger.profiles") / f"{name}.toml").read_text(encoding="utf-8")
    hits = [f"{name}.toml:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
            if UNSHIPPED.search(line)]
    assert not hits, "cites notes a user cannot read:\n" + "\n".join(hits)


@pytest.mark.parametrize("name", SHIPPED)
def test_profiles_show_prints_no_citation_of_the_design_notes(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--json"], ["--toml"]):
        code, out, err = call(capsys, "profiles", "show", name, *extra)
        assert code == 0, err
        assert not UNSHIPPED.search(out), out


@pytest.mark.parametrize("name", SHIPPED)
def test_every_source_says_something(name: str) -> None:
    """A source is a URL or a description of where the fact comes from, never empty."""
    text = (resources.files("labledger.profiles") / f"{name}.toml").read_text(encoding="utf-8")
    sources = re.findall(r'^source = "(.*)"$', text, flags=re.M)
    assert sources
    for source in sources:
        assert len(source.split()) >= 3, source
