"""`pull` against a box that misbehaves: torn ledger tails, names that are not UTF-8, files that
vanish mid-pull, malformed rosters. Real folders, a real sshd, the real ledger."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.errors import PullSourceError
from labledger.ingest.pull import load_roster, pull
from labledger.ingest.transport import LocalTransport, RemoteHash, RemoteStat, Transport
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.artifacts import open_store
from labledger.ledger.check import check_ledger
from labledger.ledger.ledger import Ledger
from tests.ingest.conftest import Forwarding


def events(ledger: Ledger, kind: str) -> list[dict[str, Any]]:
    return [r.body_dict() for r in ledger.records() if r.kind == kind]


def ssh(sshd: Any, root: Path, tmp_path: Path, **kw: Any) -> SshTransport:
    return SshTransport(parse_target(sshd.target(root)), known_hosts=tmp_path / "known_hosts",
                        accept_new=True, identity=sshd.client_key,
                        ssh_config=tmp_path / "no_ssh_config",
                        user_known_hosts=tmp_path / "no_user_known_hosts", use_agent=False,
                        backoff=0.05, **kw)


def small_box(root: Path) -> Path:
    (root / "ckpt").mkdir(parents=True)
    (root / "run.json").write_text('{"run": "r1"}\n')
    for i in range(1, 5):
        (root / "ckpt" / f"f{i}.dat").write_bytes(os.urandom(2000 + i))
    return root


# -- the box's ledger: torn tails are never copied ------------------------------------------------
def box_writer(box: Path, monkeypatch: pytest.MonkeyPatch, *texts: str) -> Path:
    """Append notes as the box's writer; returns its open segment."""
    monkeypatch.setenv("LABLEDGER_WRITER", "box-writer")
    with (Ledger.open(box) if (box / ".labledger").is_dir() else Ledger.init(box)) as led:
        for text in texts:
            led.append("note", text=text)
    monkeypatch.setenv("LABLEDGER_WRITER", "test-writer")
    [segment] = sorted((box / ".labledger" / "ledger" / "box-writer").glob("*.jsonl"))
    return segment


def local_copy(ledger: Ledger, segment: Path) -> Path:
    return ledger.paths.segments / "box-writer" / segment.name


def test_a_torn_box_tail_is_not_copied_and_a_later_append_still_merges(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    box = small_box(tmp_path / "box")
    segment = box_writer(box, monkeypatch, "hello")
    acknowledged = segment.read_bytes()
    with open(segment, "ab") as fh:  # a crash mid-append: never acknowledged
        fh.write(b'{"id":"abc","v":1,"seq":9')
    first = pull(ledger, LocalTransport(box), run="r1")
    assert first.ok, first.to_json()
    assert local_copy(ledger, segment).read_bytes() == acknowledged
    assert [f.severity for f in check_ledger(ledger.paths).findings] == []

    box_writer(box, monkeypatch, "after-restart")  # the box's append cuts its torn tail
    again = pull(ledger, LocalTransport(box), run="r1")
    assert again.merge_problems == []
    assert again.ok, again.to_json()
    assert local_copy(ledger, segment).read_bytes() == segment.read_bytes()
    texts = [r.body_dict()["text"] for r in ledger.records() if r.writer == "box-writer"]
    assert texts == ["hello", "after-restart"]
    assert check_ledger(ledger.paths).ok


def test_an_unfinished_box_batch_is_not_copied(ledger: Ledger, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash inside a batch write leaves complete lines flagged ``more``: never acknowledged
    either (the box's next append cuts them all), so they are not merged."""
    box = small_box(tmp_path / "box")
    segment = box_writer(box, monkeypatch, "before")
    acknowledged = segment.read_bytes()
    monkeypatch.setenv("LABLEDGER_WRITER", "box-writer")
    with Ledger.open(box) as led:
        led.append_drafts([led.draft("note", {"text": "batch 1"}),
                           led.draft("note", {"text": "batch 2"})])
    monkeypatch.setenv("LABLEDGER_WRITER", "test-writer")
    lines = segment.read_bytes().splitlines(keepends=True)
    assert b'"more":true' in lines[1]
    segment.write_bytes(b"".join(lines[:2]))  # the batch's last record never reached the disk
    assert pull(ledger, LocalTransport(box), run="r1").ok
    assert local_copy(ledger, segment).read_bytes() == acknowledged

    box_writer(box, monkeypatch, "after")
    again = pull(ledger, LocalTransport(box), run="r1")
    assert again.ok, again.to_json()
    texts = [r.body_dict()["text"] for r in ledger.records() if r.writer == "box-writer"]
    assert texts == ["before", "after"]


def test_a_torn_tail_an_older_pull_copied_is_cut_and_kept(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ledgers merged before this fix hold the box's torn bytes: the next merge that finds the
    box's segment extended past them replaces them, keeping the cut bytes as evidence."""
    box = small_box(tmp_path / "box")
    segment = box_writer(box, monkeypatch, "hello")
    torn = b'{"id":"abc","v":1,"seq":9'
    copy = local_copy(ledger, segment)
    copy.parent.mkdir(parents=True)
    copy.write_bytes(segment.read_bytes() + torn)  # what the old merge left behind
    at = segment.stat().st_size
    box_writer(box, monkeypatch, "after-restart")
    report = pull(ledger, LocalTransport(box), run="r1")
    assert report.ok, report.to_json()
    assert copy.read_bytes() == segment.read_bytes()
    [kept] = (ledger.paths.recovered / "box-writer").glob("*.torn")
    assert kept.name == f"{segment.stem}-at-{at}-{len(torn)}bytes.torn"
    assert kept.read_bytes() == torn
    assert check_ledger(ledger.paths).ok


def test_a_local_copy_that_really_differs_is_still_never_overwritten(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two boxes whose writers share a name: the second one's segment is not an extension of
    the first one's acknowledged bytes, torn tail or not."""
    other = small_box(tmp_path / "other")
    box_writer(other, monkeypatch, "from the other box")
    assert pull(ledger, LocalTransport(other), run="r0").ok
    box = small_box(tmp_path / "box")
    segment = box_writer(box, monkeypatch, "hello", "world")
    with open(segment, "ab") as fh:
        fh.write(b'{"id":"abc"')
    before = local_copy(ledger, segment).read_bytes()
    report = pull(ledger, LocalTransport(box), run="r1")
    assert [p.endswith("never overwritten") for p in report.merge_problems] == [True]
    assert local_copy(ledger, segment).read_bytes() == before
    assert not ledger.paths.recovered.exists()


# -- names that are not UTF-8 ---------------------------------------------------------------------
@pytest.mark.parametrize("bulk", ["openssh", "sftp"])
def test_a_name_that_is_not_utf8_is_refused_over_ssh(ledger: Ledger, tmp_path: Path, sshd: Any,
                                                    bulk: str) -> None:
    box = small_box(tmp_path / "box")
    raw = os.fsencode(box)
    with open(raw + b"/caf\xe9.txt", "wb") as fh:
        fh.write(b"x")
    os.mkdir(raw + b"/d\xff")
    with open(raw + b"/d\xff/inside.txt", "wb") as fh:
        fh.write(b"never listed")
    os.symlink(b"t\xe9rget", raw + b"/link")
    transport = ssh(sshd, box, tmp_path, bulk=bulk)
    try:
        report = pull(ledger, transport, run="r1", allow_symlinks=True)
    finally:
        transport.close()
    assert sorted(report.refused) == [
        "'caf\\udce9.txt': unsafe name (is not valid UTF-8)",
        "'d\\udcff': unsafe name (is not valid UTF-8)",
        "link: symlink to 't\\udce9rget', which is not valid UTF-8; never followed"]
    assert sorted(e["path"] for e in events(ledger, "artifact.pulled") if e["ok"]) == [
        "ckpt/f1.dat", "ckpt/f2.dat", "ckpt/f3.dat", "ckpt/f4.dat", "run.json"]
    assert events(ledger, "pull.listed")[-1]["refused"] == report.refused


def test_the_same_names_are_refused_from_a_folder(ledger: Ledger, tmp_path: Path) -> None:
    box = small_box(tmp_path / "box")
    with open(os.fsencode(box) + b"/caf\xe9.txt", "wb") as fh:
        fh.write(b"x")
    report = pull(ledger, LocalTransport(box), run="r1")
    assert report.refused == ["'caf\\udce9.txt': unsafe name (is not valid UTF-8)"]
    assert len([f for f in report.files if f.ok]) == 5


# -- files that vanish mid-pull -------------------------------------------------------------------
class Vanish(Forwarding):
    """Wraps a transport; ``path`` is deleted on the box right before the box hashes (``when=
    "hash"``), or right after it hashed and before any of its bytes are read (``when="read"``):
    a training loop rotating an old checkpoint away after the listing."""

    def __init__(self, inner: Transport, box: Path, rel: str, when: str) -> None:
        super().__init__(inner)
        self.box, self.rel, self.when = box, rel, when
        self.hashed = threading.Event()

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        if self.when == "hash":
            (self.box / self.rel).unlink()
        try:
            return self.inner.hash_files(rels)
        finally:
            if self.when == "read":
                (self.box / self.rel).unlink()
            self.hashed.set()

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        assert self.hashed.wait(30)
        return self.inner.read(rel, offset)

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        assert self.hashed.wait(30)  # the early stream waits: every read finds the file gone
        return self.inner.read_many(items)


def check_vanished(ledger: Ledger, report: Any, box: Path, monkeypatch: pytest.MonkeyPatch,
                   when: str) -> None:
    assert not report.ok
    [failed] = [f for f in report.files if not f.ok]
    assert failed.path == "ckpt/f4.dat"
    assert failed.error.startswith("vanished from the box after ")
    [event] = [e for e in events(ledger, "artifact.pulled") if e["path"] == "ckpt/f4.dat"]
    assert event["ok"] is False
    assert "digest" not in event
    assert event["error"] == failed.error
    good = [e for e in events(ledger, "artifact.pulled") if e["ok"]]
    assert sorted(e["path"] for e in good) == ["ckpt/f1.dat", "ckpt/f2.dat", "ckpt/f3.dat",
                                               "ckpt/f4.pth", "run.json"]
    for e in good:
        assert open_store(ledger).read_bytes(e["digest"]) == (box / e["path"]).read_bytes()
    # The later steps ran: the checkpoint that arrived was verified, the box's ledger merged.
    assert [v["path"] for v in events(ledger, "checkpoint.verified") if v["ok"]] == [
        "ckpt/f4.pth"]
    assert report.merged_segments == ["box-writer/000000000000.jsonl"]
    listed = [e["path"] for e in events(ledger, "pull.listed")[-1]["entries"]]
    # Hashed on the box means listed in the manifest; gone before that means not in it.
    assert ("ckpt/f4.dat" in listed) is (when == "read")
    assert report.counts()["failed"] == {"files": 1, "bytes": 2004}
    assert list(open_store(ledger).tmp_dir.glob("pull-*.partial")) == []


def vanishing_box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torch: Any) -> Path:
    box = small_box(tmp_path / "box")
    torch.save({"model_state_dict": {"w": torch.ones(2)}}, box / "ckpt" / "f4.pth")
    box_writer(box, monkeypatch, "checkpoint rotated")
    return box


@pytest.mark.parametrize("when", ["hash", "read"])
def test_a_file_vanishing_from_a_folder_fails_alone(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str,
        torch: Any) -> None:
    box = vanishing_box(tmp_path, monkeypatch, torch)
    report = pull(ledger, Vanish(LocalTransport(box), box, "ckpt/f4.dat", when), run="r1")
    check_vanished(ledger, report, box, monkeypatch, when)


@pytest.mark.parametrize(("when", "kw"), [
    ("hash", {"hasher": "python"}), ("hash", {"hasher": "coreutils"}),
    ("read", {"bulk": "openssh"}), ("read", {"bulk": "sftp"})])
def test_a_file_vanishing_over_ssh_fails_alone(ledger: Ledger, tmp_path: Path, sshd: Any,
                                               monkeypatch: pytest.MonkeyPatch, when: str,
                                               kw: dict[str, str], torch: Any) -> None:
    box = vanishing_box(tmp_path, monkeypatch, torch)
    inner = ssh(sshd, box, tmp_path, **kw)
    try:
        report = pull(ledger, Vanish(inner, box, "ckpt/f4.dat", when), run="r1")
    finally:
        inner.close()
    check_vanished(ledger, report, box, monkeypatch, when)


def test_a_folder_vanishing_while_listed_is_refused(ledger: Ledger, tmp_path: Path) -> None:
    box = small_box(tmp_path / "box")

    class Rotating(LocalTransport):
        def list_dir(self, rel: str) -> list[RemoteStat]:
            out = super().list_dir(rel)
            if rel == "":
                for f in (box / "ckpt").iterdir():
                    f.unlink()
                (box / "ckpt").rmdir()
            return out

    report = pull(ledger, Rotating(box), run="r1")
    assert report.refused == ["ckpt: the folder vanished while the tree was listed"]
    assert [e["path"] for e in events(ledger, "pull.listed")[-1]["entries"]] == ["run.json"]
    assert [f.path for f in report.files if f.ok] == ["run.json"]


# -- rosters: the grammar -------------------------------------------------------------------------
def test_roster_forms_that_are_accepted(tmp_path: Path) -> None:
    sha = hashlib.sha256(b"x").hexdigest()
    cases = {
        "r.txt": "# expected\n\n./best.pth\r\n  ckpt/last.pth  \n",
        "r.json": json.dumps(["best.pth", "ckpt/last.pth"]),
        "m.json": json.dumps({"schema": "remote-gpu-trainer/PULL/v1", "run_id": "r1",
                              "files": [{"path": "best.pth", "bytes": 1,
                                         "sha256": sha.upper()},
                                        {"path": "ckpt/last.pth", "size": 0, "sha256": None}],
                              "totals": {"files": 2, "bytes": 1}}),
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    assert load_roster(tmp_path / "r.txt").files == {"best.pth": (None, None),
                                                     "ckpt/last.pth": (None, None)}
    assert load_roster(tmp_path / "r.json").files == load_roster(tmp_path / "r.txt").files
    manifest = load_roster(tmp_path / "m.json", manifest=True)
    assert manifest.files == {"best.pth": (1, sha), "ckpt/last.pth": (0, None)}
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps({"files": ["best.pth"]}).encode())
    roster = load_roster(bom)
    assert roster.files == {"best.pth": (None, None)}
    assert roster.digest == "blake3:" + __import__("blake3").blake3(bom.read_bytes()).hexdigest()


BAD_ROSTERS = [
    (b"best.pth\n", True, "it is not valid JSON"),
    (b"\xff\xfebest.pth\n", False, "it is not UTF-8 text (byte 0xff at offset 0)"),
    (b'{"files":[{"path":"best.pth","sha256":"zz"}]}', False,
     'files[0]: sha256 must be 64 hex digits, not "zz"'),
    (b'{"files":[{"path":"best.pth","bytes":"1620"}]}', False,
     'files[0]: bytes must be a non-negative integer, not "1620"'),
    (b'{"files":[{"path":"best.pth","bytes":true}]}', False,
     "files[0]: bytes must be a non-negative integer, not true"),
    (b'{"files":[{"path":"best.pth","bytes":-1}]}', False,
     "files[0]: bytes must be a non-negative integer, not -1"),
    (b'["/etc/passwd"]', False, "files[0]: path '/etc/passwd' is absolute"),
    (b'["../x"]', False, "files[0]: path '../x' leaves the pulled folder"),
    (b"best.pth\nckpt/../../x\n", False, "line 2: path 'ckpt/../../x' leaves the pulled folder"),
    (b'["a//b"]', False, "files[0]: path 'a//b' has an empty or '.' part"),
    (b'["a\\\\b"]', False, "files[0]: path 'a\\\\b' contains a backslash"),
    (b'["a\\tb"]', False, "files[0]: path 'a\\tb' contains a control character"),
    (b'\xef\xbb\xbf{"files": 3}', False, 'expected a "files" list'),
    (b"null", False, "it is the JSON value null"),
    (b"", False, "it is empty"),
    (b"# nothing\n\n", False, "it names no files"),
    (b"[]", False, "it names no files"),
    (b'["best.pth", "./best.pth"]', False, "files[1]: 'best.pth' is named twice (also files[0])"),
    (b'[{"path": "best.pth", "sha": "x"}]', False, "files[0]: unknown key 'sha'"),
    (b'[{"bytes": 3}]', False, 'files[0]: "path" must be a string, not null'),
    (b"[3]", False, "files[0]: an item is a path string or an object"),
    (b'{"files": ["a"], "totals": {"files": 2}}', False,
     'totals.files is 2 but "files" lists 1'),
]


@pytest.mark.parametrize(("raw", "manifest", "problem"), BAD_ROSTERS)
def test_a_malformed_roster_is_refused_naming_the_problem(
        tmp_path: Path, raw: bytes, manifest: bool, problem: str) -> None:
    path = tmp_path / "roster.json"
    path.write_bytes(raw)
    with pytest.raises(PullSourceError) as info:
        load_roster(path, manifest=manifest)
    assert info.value.source == str(path)
    assert problem in info.value.problem


@pytest.mark.parametrize(("data", "problem"), [
    ({"files": ["best.pth"]}, "it has no \"schema\""),
    ({"schema": "remote-gpu-trainer/PULL-VERIFIED/v1", "files": 3}, "its schema is "
     "'remote-gpu-trainer/PULL-VERIFIED/v1', not 'remote-gpu-trainer/PULL/v1'"),
    (["best.pth"], "it has no \"schema\""),
])
def test_an_imported_manifest_must_be_pull_v1(tmp_path: Path, data: Any, problem: str) -> None:
    path = tmp_path / "PULL_MANIFEST.json"
    path.write_text(json.dumps(data))
    with pytest.raises(PullSourceError, match="not a valid manifest") as info:
        load_roster(path, manifest=True)
    assert problem in info.value.problem


def test_a_file_the_box_cannot_read_stops_the_pull_and_is_never_left_out(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Permission denied is not "vanished": the file is still on the box, so a listing without
    it would let the teardown gate pass with the file never pulled."""
    import errno

    import labledger.ingest.transport as transport_module
    from labledger.ingest.errors import IngestError

    box = tmp_path / "box"
    (box / "ckpt").mkdir(parents=True)
    (box / "run.json").write_text("{}\n")
    (box / "ckpt" / "secret.dat").write_bytes(b"weights")
    real_open = os.open

    def denied(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith("secret.dat"):  # a root-owned 0600 file, seen by the box's user
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(transport_module.os, "open", denied)
    with pytest.raises(IngestError, match="Permission denied"):
        pull(ledger, LocalTransport(box), run="r1", instance="box1")
    listed = events(ledger, "pull.listed")
    assert all("ckpt/secret.dat" in [e["path"] for e in body["entries"]] for body in listed)
