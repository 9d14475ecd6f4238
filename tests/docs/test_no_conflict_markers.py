"""No tracked file keeps a merge's conflict markers (a merge of two branches that both edited
docs/agent-hook.md once committed ``<<<<<<< HEAD`` ... ``>>>>>>> helper79`` into the page)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_tracked_file_holds_a_conflict_marker() -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.split(b"\0")
    assert len(listed) > 100  # the repository's files, not an empty listing
    found = []
    for name in filter(None, listed):
        path = ROOT / name.decode()
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
            if line.startswith((b"<<<<<<< ", b">>>>>>> ")):
                found.append(f"{name.decode()}:{number}")
    assert found == []
