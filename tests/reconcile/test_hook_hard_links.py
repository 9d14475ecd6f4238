"""`labledger hook` against hard links to protected files.

A hard link is the same file under a second name: ``ln .labledger/config.toml h; : > h``
empties the ledger's config while the write names no protected path, and both commands passed.
Now (`hook._hard_link_sources`) making a hard link of a protected file (``ln`` without ``-s``,
``link``, ``cp -l``/``--link``, ``cp -al`` of a folder, ``rsync --link-dest``) is judged as a
write that destroys it would be: always refused for the ledger (its cache aside) and an
export root, for a capsule allowed when its stored copy verifies. A link made earlier some
other way is found when it is written (`hook._hard_link_twin`: a file with more than one name
is looked for, by device and inode, in each protected folder): truncating it is judged as
truncating the protected file, appending to it as an append. A symbolic link is judged where
it leads (`test_hook_symlinks`).

Project: `test_hook_writes`'s (``capsules/c2`` unverified, ``capsules/c3`` verified,
``results`` an export root).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


@pytest.mark.parametrize(("command", "what"), [
    ("ln .labledger/config.toml h", "the labledger ledger"),
    ("ln .labledger/config.toml h; : > h", "the labledger ledger"),
    ("ln -f .labledger/hook.toml ../scratch/hook.toml", "the labledger ledger"),
    ("ln -t ../scratch .labledger/config.toml", "the labledger ledger"),
    ("link .labledger/hook.toml h", "the labledger ledger"),
    ("ln capsules/c2/metrics.json m.json", "capsules/c2"),
    ("ln capsules/c2/metrics.json capsules/c2/train.log other/", "capsules/c2"),
    ("cp -al capsules/c2 backup", "capsules/c2"),
    ("cp --link results/r1/notes.txt n.txt", "an export root"),
    ("ls capsules/c2/* | xargs -I{} ln {} other/", "capsules/c2"),
    # rsync(1) --link-dest: unchanged files are hard-linked from DIR (relative to the
    # destination) into the destination
    ("rsync -a --link-dest=../capsules/c2 capsules/c2/ snap/", "capsules/c2"),
])
def test_a_hard_link_of_a_protected_file_is_blocked(
        box: Path, command: str, what: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("hard-links" in r and what in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "ln -s .labledger/config.toml cfg",  # a symbolic link: a write through it is judged there
    "ln --symbolic capsules/c2/metrics.json m.json",
    "ln capsules/c3/metrics.json m3.json",  # c3's stored copy verifies
    "ln src/train.py t.py",
    "cp -a capsules/c2 backup",  # a copy, not a link
    "cp -l src/train.py t.py",
    "rsync -a --link-dest=../prev src/ ../scratch/snap/",
])
def test_a_link_that_exposes_nothing_protected_passes(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.fixture
def linked(box: Path) -> Path:  # noqa: F811 - the fixture it builds on
    """Hard links made before the hook ran: other/h.json is capsules/c2/metrics.json,
    other/cfg.toml is .labledger/config.toml."""
    os.link(box / "capsules" / "c2" / "metrics.json", box / "other" / "h.json")
    os.link(box / ".labledger" / "config.toml", box / "other" / "cfg.toml")
    return box


@pytest.mark.parametrize(("command", "what"), [
    (": > other/h.json", "capsules/c2/metrics.json"),
    ("cp src/train.py other/h.json", "capsules/c2/metrics.json"),
    ("sed -i s/9/1/ other/h.json", "capsules/c2/metrics.json"),
    ("cd other && echo '{}' > h.json", "capsules/c2/metrics.json"),
    ("echo x >> other/cfg.toml", ".labledger/config.toml"),  # the ledger: an append too
    ("truncate -s0 other/cfg.toml", ".labledger/config.toml"),
])
def test_a_write_through_an_existing_hard_link_is_blocked(linked: Path, command: str,
                                                          what: str) -> None:
    verdict = _judged(linked, command)
    assert not verdict.allowed, command
    assert any("a hard link of" in r and what in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "echo '{}' >> other/h.json",  # an append to a capsule's file loses nothing
    ": > other/metrics.json",  # a file with one name
    "mv other/h.json other/h2.json",  # renames the link; the capsule's file is as it was
    "cat other/cfg.toml",
])
def test_what_leaves_the_linked_bytes_alone_passes(linked: Path, command: str) -> None:
    verdict = _judged(linked, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    ": > src/train.py",
    "python -m pip install x > src/train.py",
    "cp notes.txt src/train.py",
    "sed -i s/1/2/ src/train.py",
])
def test_a_write_onto_a_file_linked_outside_the_protected_folders_does_not_read_the_ledger(
        box: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """uv links a venv's files from its cache when both are on one file system
    (ROCm/rocm-cli#170 measured "inode=1740514 links=2 ... (hardlink into the cache)"): each
    has two names, neither in a protected folder. Its other name is looked for
    in the protected folders (the ledger's and the capsules' paths, from the capsule.sealed
    lines), not after reading and verifying every line of the ledger (`gate_events`: 0.3 s
    for 50,000 events)."""
    import labledger.reconcile.pull_verified as pull_verified

    def read_all(*_: object, **__: object) -> None:
        raise AssertionError("the whole ledger was read")

    os.link(box / "src" / "train.py", box.parent / "scratch" / "train.py")
    monkeypatch.setattr(pull_verified, "gate_events", read_all)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)
