"""`labledger hook` against downloads and archives unpacked over files: ``curl -o``/``-O``,
``wget -O``/``-P``/``-N``/``-r``, ``tar -x`` (``-C DIR``), ``tar -c -f FILE``, ``unzip -o``
(``-d DIR``), ``7z x -oDIR``.

They passed unjudged: ``curl -o .labledger/hook.toml URL`` replaced the rules the agent is
judged by, ``tar -xf a.tar -C capsules/c2`` wrote over a capsule whose stored copy does not
verify. Each is now the write it is (curl(1), wget(1), tar(1), unzip(1), 7z's ``-o``/``-ao``
switches): a download overwrites its file (``curl --no-clobber`` and ``wget`` without
``-N``/``-O`` keep an existing one, a resumed one appends); an archive's members are not read,
so unpacking into a folder may overwrite anything it holds (the ledger: any file at all), but
unpacked above it (``tar xf a.tar`` at the project's top) it passes. Project:
`test_hook_writes`'s (``capsules/c2`` unverified, ``capsules/c3`` verified, ``results`` an
export root).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture

URL = "https://example.com/files/metrics.json"


@pytest.mark.parametrize(("command", "what"), [
    (f"curl -o .labledger/config.toml {URL}", "the labledger ledger"),
    (f"curl -fsSLo .labledger/hook.toml {URL}", "the labledger ledger"),
    (f"curl --output=.labledger/hook.toml {URL}", "the labledger ledger"),
    (f"curl -o x.json {URL} -o .labledger/hook.toml {URL}", "the labledger ledger"),
    (f"curl -o capsules/c2/metrics.json {URL}", "capsules/c2"),
    (f"curl --output capsules/c2/metrics.json {URL}", "capsules/c2"),
    (f"cd capsules/c2 && curl -O {URL}", "capsules/c2"),
    (f"curl --output-dir capsules/c2 -O {URL}?v=2", "capsules/c2"),
    (f"curl -D capsules/c2/train.log {URL}", "capsules/c2"),
    (f"wget -O capsules/c2/train.log {URL}", "capsules/c2"),
    (f"wget -q -O .labledger/hook.toml {URL}", "the labledger ledger"),
    (f"wget -P .labledger {URL}", "the labledger ledger"),  # a new file in the ledger
    (f"wget -N -P capsules/c2 {URL}", "capsules/c2"),
    (f"wget -r -np -nH -P capsules/c2 {URL}", "capsules/c2"),
    (f"wget -O results/r1/notes.txt {URL}", "an export root"),
    ("tar -xf a.tar -C capsules/c2", "capsules/c2"),
    ("tar xzf a.tgz -C capsules/c2", "capsules/c2"),
    ("tar -xzvf a.tgz --directory=capsules/c2/", "capsules/c2"),
    ("cd capsules/c2 && tar xf ../../a.tar", "capsules/c2"),
    ("tar -xf a.tar capsules/c2/metrics.json", "capsules/c2"),
    ("tar -xf a.tar -C .labledger", "the labledger ledger"),
    ("tar --extract --file=a.tar --directory=results", "an export root"),
    ("tar -czf capsules/c2/metrics.json src", "capsules/c2"),
    ("unzip -o a.zip -d capsules/c2", "capsules/c2"),
    ("unzip -qo a.zip -d results/r1", "an export root"),
    ("unzip a.zip -d .labledger", "the labledger ledger"),  # new files in the ledger
    ("7z x a.7z -ocapsules/c2 -y", "capsules/c2"),
    ("7z x -o capsules/c2 a.7z", "capsules/c2"),
    (f"curl -sSL {URL}.tgz | tar -xz -C capsules/c2", "capsules/c2"),
])
def test_a_download_or_unpack_over_protected_files_is_blocked(
        box: Path, command: str, what: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any(what in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    f"curl -o data/new.json {URL}",
    f"curl -O {URL}",  # a new file at the project's top
    f"curl -o capsules/c2/extra.json {URL}",  # a new file in the capsule
    f"curl -C - -o capsules/c2/train.log {URL}",  # resumed: appends
    f"curl --no-clobber -o capsules/c2/metrics.json {URL}",
    f"curl -o - {URL}",
    f"curl -s {URL} | jq .",
    f"curl -o capsules/c3/metrics.json {URL}",  # c3's stored copy verifies
    f"wget -P capsules/c2 {URL}",  # wget saves metrics.json.1 beside it
    f"wget -O - {URL}",
    f"wget -c -P capsules/c2 {URL}",  # continues: appends
    "tar xf a.tar",  # unpacked above the capsules: its members are not read (documented)
    "tar -xf a.tar -C ../scratch",
    "tar -tf a.tar -C capsules/c2",
    "tar -xkf a.tar -C capsules/c2",  # keeps existing files
    "tar -xOf a.tar -C capsules/c2",  # to standard output
    "tar -xf a.tar -C .labledger/cache",
    "tar -czf backup.tgz capsules/c2",
    "unzip a.zip -d capsules/c2",  # without -o it keeps existing files
    "unzip -l a.zip",
    "unzip -o a.zip -d capsules/c3",
    "7z x a.7z -ocapsules/c2 -aos",
    "7z l a.7z",
])
def test_a_download_or_unpack_that_destroys_nothing_protected_passes(
        box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)
