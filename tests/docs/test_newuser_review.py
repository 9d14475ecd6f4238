"""What a newcomer reads must stand on its own.

The user docs and the README must not send the reader to design notes that are not shipped
("DOMAIN principle 3", "the seed's manifest"): a reader has no way to look them up.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# Quoting a profile's own `source` text (profiles.md shows `labledger DOMAIN.md, ...` as the
# command prints it) is fine; pointing the reader at the notes is not.
UNSHIPPED = re.compile(r"\(DOMAIN\b|DOMAIN principle|\bthe seed's\b|\bas in the seed\b")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_reference_to_unshipped_notes(page: Path) -> None:
    hits = [f"{page.name}:{n}: {line.strip()}"
            for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
            if UNSHIPPED.search(line)]
    assert not hits, "points the reader at notes that are not shipped:\n" + "\n".join(hits)
