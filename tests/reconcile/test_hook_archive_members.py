"""`labledger hook` against an archive unpacked ABOVE a protected folder whose members land in
it: the members' names are read (`labledger.reconcile.archive_members`) and each is the write
it is.

They passed unread: ``unzip -o runs.zip`` at the project's top, runs.zip holding
``capsules/c2/metrics.json`` (an agent restoring results it zipped on the box), overwrote c2's
file; ``tar xzf backup.tgz`` holding ``.labledger/config.toml`` replaced the settings; ``tar
-xf a.tar -C capsules`` with a member ``c2/train.log`` overwrote it. Each blocked case is
paired with a near miss that passes: the same archive of ``src/`` files, members landing in
``capsules/c3`` (its stored copy verifies), new files only, a tool that keeps existing files.

The archives are made by the real ``zip`` and ``tar`` (a name they will not store, ``..`` or
an absolute one, by Python's zipfile/tarfile); how the tools map names was checked with GNU
tar 1.34 and Info-ZIP unzip 6.0 (leading ``/`` stripped by both; a ``..`` member refused by
tar, its ``..`` parts dropped by unzip; ``unzip`` without ``-o``, standard input at its end,
answers "[N]one" and keeps the file). Project: `test_hook_writes`'s (``capsules/c2``
unverified, ``capsules/c3`` verified, ``results`` an export root).
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from labledger.reconcile import archive_members
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


def _tree(root: Path, files: dict[str, bytes]) -> Path:
    """A staging folder beside the project holding ``files`` (relative names)."""
    root.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def _zip(archive: Path, files: dict[str, bytes]) -> None:
    stage = _tree(archive.parent.parent / ("stage-" + archive.name), files)
    subprocess.run(["zip", "-qr", str(archive), *files], cwd=stage, check=True)


def _tar(archive: Path, files: dict[str, bytes], *options: str, whole: str = "") -> None:
    """``archive`` of ``files`` (with ``whole``, a folder: it and all it holds, its folders
    too, as ``tar czf restore.tgz capsules`` stores them)."""
    stage = _tree(archive.parent.parent / ("stage-" + archive.name), files)
    subprocess.run(["tar", *options, "-cf", str(archive), *([whole] if whole else files)],
                   cwd=stage, check=True)


RESULTS = {"capsules/c2/metrics.json": b'{"acc": 0.5}\n', "src/train.py": b"print(2)\n"}
SETTINGS = {".labledger/config.toml": b"[hook]\n", "src/train.py": b"print(2)\n"}


@pytest.fixture
def archives(box: Path) -> Path:  # noqa: F811
    """The project with its archives at its top."""
    _zip(box / "runs.zip", RESULTS)
    _zip(box / "src.zip", {"src/train.py": b"print(2)\n", "src/util.py": b"x = 1\n"})
    _zip(box / "verified.zip", {"capsules/c3/metrics.json": b"{}\n"})
    _zip(box / "new.zip", {"capsules/c2/extra.json": b"{}\n", "capsules/c4/m.json": b"{}\n"})
    _zip(box / "config.zip", {".labledger/new.toml": b"x = 1\n"})
    _tar(box / "backup.tgz", SETTINGS, "-z")
    _tar(box / "src.tgz", {"src/train.py": b"print(2)\n"}, "-z")
    _tar(box / "a.tar", {"c2/train.log": b"step 9\n", "c9/new.log": b"x\n"})
    _tar(box / "c3.tar", {"c3/train.log": b"step 9\n", "c9/new.log": b"x\n"})
    _tar(box / "nested.tgz", {"backup/capsules/c2/metrics.json": b"{}\n"}, "-z")
    _tar(box / "restore.tgz", {"capsules/c2/metrics.json": b"{}\n"}, "-z", whole="capsules")
    _tar(box / "added.tgz", {"capsules/c2/extra.json": b"{}\n"}, "-z", whole="capsules")
    with tarfile.open(box / "all.tar.xz", "w:xz") as tar:  # (xz(1) may not be installed)
        for name, data in RESULTS.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(box / "up.zip", "w") as z:  # (zip itself will not store a `..` name)
        z.writestr("../capsules/c2/metrics.json", "{}\n")
    with tarfile.open(box / "abs.tar", "w") as tar:  # (tar strips the `/` when it makes one)
        info = tarfile.TarInfo("/capsules/c2/metrics.json")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"{}\n"))
    with tarfile.open(box / "dots.tar", "w") as tar:
        info = tarfile.TarInfo("src/../capsules/c2/metrics.json")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"{}\n"))
    os.symlink("runs.zip", box / "link.zip")
    os.symlink("capsules/c2", box / "c2link")  # a folder through a link: the kernel follows it
    _zip(box / "linked.zip", {"c2link/metrics.json": b"{}\n"})
    _zip(box / "linked-new.zip", {"c2link/new.json": b"{}\n"})
    return box


@pytest.mark.parametrize(("command", "what"), [
    ("unzip -o runs.zip", "capsules/c2"),
    ("unzip -qo runs.zip -d .", "capsules/c2"),
    ("unzip -o runs", "capsules/c2"),  # unzip reads runs.zip
    ("unzip -o runs.zip 'capsules/*'", "capsules/c2"),
    ("cd capsules && unzip -o ../runs.zip -d ..", "capsules/c2"),
    ("unzip -o -: up.zip -d src", "capsules/c2"),  # -: keeps `..`
    ("unzip config.zip", "the labledger ledger"),  # a new file in the ledger, even kept
    ("tar xzf backup.tgz", "the labledger ledger"),
    ("tar -xzf backup.tgz .labledger", "the labledger ledger"),
    ("tar -xf a.tar -C capsules", "capsules/c2"),
    ("tar --extract --file a.tar --directory=capsules", "capsules/c2"),
    ("tar xzf nested.tgz --strip-components=1", "capsules/c2"),
    ("tar -xJf all.tar.xz", "capsules/c2"),
    ("tar -xf all.tar.xz capsules", "capsules/c2"),  # a folder named: all it holds
    ("tar -xf abs.tar", "capsules/c2"),  # the leading `/` stripped
    ("tar -xPf dots.tar", "capsules/c2"),  # -P keeps `..`
    ("tar xzf restore.tgz", "capsules/c2"),
    ("unzip -o linked.zip", "capsules/c2"),
    ("tar xzf backup.tgz --exclude=src", "the labledger ledger"),
    ("unzip -o runs.zip -x 'src/*'", "capsules/c2"),
])
def test_an_archive_whose_members_land_on_protected_files_is_blocked(
        archives: Path, command: str, what: str) -> None:
    verdict = _judged(archives, command)
    assert not verdict.allowed, command
    assert any(what in r for r in verdict.reasons), verdict.reasons
    assert not any("may overwrite what is in" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "unzip -o src.zip",  # src/ files at the top
    "unzip -o verified.zip",  # lands in capsules/c3: its stored copy verifies
    "unzip -o new.zip",  # new files only
    "unzip runs.zip",  # without -o it keeps existing files
    "unzip -n runs.zip",
    "unzip -o runs.zip 'src/*'",  # only src/ is unpacked
    "unzip -o runs.zip src/train.py",
    "unzip -oj runs.zip",  # -j: metrics.json lands at the top
    "unzip -o up.zip -d src",  # `..` dropped: src/capsules/c2/metrics.json
    "unzip -o src.zip -d .labledger/cache",  # the ledger's cache is not protected
    "tar xzf src.tgz",
    "unzip -o linked-new.zip",
    "tar xzf added.tgz",  # capsules/ and capsules/c2/ are there (folders), extra.json new
    "tar -xzf backup.tgz src",
    "tar -xf c3.tar -C capsules",  # c3's stored copy verifies; c9 is new
    "tar -xkf a.tar -C capsules",  # -k keeps existing files
    "tar --skip-old-files -xf a.tar -C capsules",
    "tar xzf nested.tgz",  # backup/capsules/c2/metrics.json: a new file
    "tar xzf nested.tgz --strip-components=2",  # c2/metrics.json at the top: new
    "tar -xf dots.tar",  # tar refuses a `..` member
    "tar -xf a.tar -C capsules --transform 's,c2,c5,'",  # names rewritten: not read (as before)
    "unzip -o link.zip",  # an archive through a link is not read (as before)
    "curl -o runs.zip https://example.com/r.zip && unzip -o runs.zip",  # written first
    "unzip -o missing.zip",
    "tar xzf backup.tgz --exclude=.labledger",  # (unanchored: any part of the name)
    "tar xzf backup.tgz --exclude '.lab*' --exclude=src",
    "unzip -o runs.zip -x 'capsules/*'",
    "unzip -o runs.zip -x capsules/c2/metrics.json",
])
def test_an_archive_whose_members_miss_protected_files_passes(
        archives: Path, command: str) -> None:
    verdict = _judged(archives, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("limit", ["BYTE_LIMIT", "UNPACKED_LIMIT"])
def test_a_tar_past_the_read_limit_is_judged_by_the_members_before_it(
        archives: Path, monkeypatch: pytest.MonkeyPatch, limit: str) -> None:
    """A compressed tar is read through to find its headers: past `BYTE_LIMIT` bytes of it
    (or `UNPACKED_LIMIT` unpacked) the members after are not read, and unpacked above the
    capsules they pass (documented), as before; the members before are judged (tar unpacks
    them), and into a protected folder the rest may overwrite anything in it, as before."""
    noise = {"z/noise.bin": os.urandom(256 << 10)}
    _tar(archives / "late.tgz", {**noise, **RESULTS}, "-z")
    _tar(archives / "early.tgz", {**RESULTS, **noise}, "-z")
    _tar(archives / "notes.tgz", {**noise, "r1/new.txt": b"x\n"}, "-z")
    assert not _judged(archives, "tar xzf late.tgz").allowed
    assert _judged(archives, "tar xzf notes.tgz -C results").allowed  # a new file
    monkeypatch.setattr(archive_members, limit, 64 << 10)
    assert _judged(archives, "tar xzf late.tgz").allowed
    assert not _judged(archives, "tar xzf early.tgz").allowed
    verdict = _judged(archives, "tar xzf notes.tgz -C results")
    assert not verdict.allowed
    assert any("may overwrite what is in" in r for r in verdict.reasons), verdict.reasons


def test_member_names_are_read_without_writing_anything(archives: Path) -> None:
    """The readers list names only: nothing is unpacked (`_judged` checks the project's
    bytes), and a link is not followed."""
    read = archive_members.members(archives / "runs.zip", "zip")
    assert read == archive_members.Read(["capsules/c2/metrics.json", "src/train.py"])
    assert archive_members.members(archives / "link.zip", "zip") is None
    assert archive_members.members(archives / "src.tgz", "tar") == archive_members.Read(
        ["src/train.py"])
    assert archive_members.members(archives / "runs.zip", "tar") is None  # not a tar
