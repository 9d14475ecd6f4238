"""`pull` through the local-directory transport and a real sshd: real files, real checkpoints."""

from __future__ import annotations

import hashlib
import os
import pickle
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.errors import TransportError
from labledger.ingest.pull import PullReport, load_roster, pull
from labledger.ingest.transport import LocalTransport, RemoteHash, Transport
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.artifacts import open_store
from labledger.ledger.check import check_ledger
from labledger.ledger.ledger import Ledger
from tests.ingest.conftest import Forwarding

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch


def state_dict(seed: int = 0) -> dict[str, Any]:
    torch.manual_seed(seed)
    out: dict[str, Any] = torch.nn.Linear(4, 2).state_dict()
    return out


def save_safetensors(tensors: dict[str, Any], path: Path) -> None:
    """The safetensors format by hand (safetensors' writer needs numpy, absent here)."""
    import json
    import struct

    header: dict[str, Any] = {}
    data = b""
    for name, t in tensors.items():
        raw = bytes(t.contiguous().untyped_storage())
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    encoded = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + data)


def make_box(root: Path) -> Path:
    """A canonical capsule: top-level files, checkpoints, nested results, empty directories."""
    (root / "ckpt").mkdir(parents=True)
    (root / "test" / "t1").mkdir(parents=True)
    (root / "logs").mkdir()
    (root / "vis" / "empty").mkdir(parents=True)
    (root / "run.json").write_text('{"run": "r1", "seed": 0}\n')
    (root / "config.yaml").write_text("lr: 0.001\n")
    torch.save(state_dict(1), root / "ckpt" / "best.pth")
    torch.save({"model_state_dict": state_dict(2), "step": 7}, root / "ckpt" / "last.pth")
    save_safetensors(state_dict(3), root / "ckpt" / "ema.safetensors")
    (root / "test" / "t1" / "metrics.json").write_text('{"psnr": 31.05}\n')
    (root / "test" / "t1" / "big.bin.dat").write_bytes(os.urandom(3 * 1024 * 1024 + 17))
    return root


def events(ledger: Ledger, kind: str) -> list[dict[str, Any]]:
    return [r.body_dict() for r in ledger.records() if r.kind == kind]


def ssh(sshd: Any, root: Path, tmp_path: Path, *, accept_new: bool = True,
        **kw: Any) -> SshTransport:
    return SshTransport(parse_target(sshd.target(root)), known_hosts=tmp_path / "known_hosts",
                        accept_new=accept_new, identity=sshd.client_key,
                        ssh_config=tmp_path / "no_ssh_config",
                        user_known_hosts=tmp_path / "no_user_known_hosts", use_agent=False,
                        backoff=0.05, **kw)


class Cut(Forwarding):
    """Wraps a transport; the first read of ``path`` dies after ``after`` bytes.

    Over SSH the cut is real: the paramiko connection is closed under the running read.
    """

    def __init__(self, inner: Transport, path: str, after: int) -> None:
        super().__init__(inner)
        self.path, self.after = path, after
        self.offsets: list[int] = []
        self.cut = False

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        for rel, offset in items:  # file by file: the cut is in `read`
            yield rel, offset, self.read(rel, offset)

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        if rel != self.path:
            yield from self.inner.read(rel, offset)
            return
        self.offsets.append(offset)
        sent = offset
        for chunk in self.inner.read(rel, offset):
            if not self.cut and sent + len(chunk) >= self.after:
                yield chunk[: self.after - sent]
                self.cut = True
                if isinstance(self.inner, SshTransport):
                    for t in self.inner._chain:
                        t.close()  # the connection dies mid-file
                    yield from self.inner.read(rel, self.after)  # raises TransportError
                raise TransportError(self.source, "connection reset (test)")
            sent += len(chunk)
            yield chunk


# -- full pulls ----------------------------------------------------------------------------------
def check_full(ledger: Ledger, report: PullReport, box: Path) -> None:
    assert report.ok, report.to_json()
    listed = events(ledger, "pull.listed")[-1]
    types = {e["path"]: e.get("type", "file") for e in listed["entries"]}
    assert types["logs"] == "dir"
    assert types["vis/empty"] == "dir"
    assert types["run.json"] == "file"
    assert types["test/t1/big.bin.dat"] == "file"
    files = sorted(str(p.relative_to(box)) for p in box.rglob("*") if p.is_file()
                   and ".labledger" not in p.parts)
    pulled = events(ledger, "artifact.pulled")
    assert sorted(e["path"] for e in pulled) == files
    for e in pulled:
        want = hashlib.sha256((box / e["path"]).read_bytes()).hexdigest()
        assert e["ok"] is True
        assert e["remote_sha256"] == want
        assert e["local_sha256"] == want
        assert open_store(ledger).read_bytes(e["digest"]) == (box / e["path"]).read_bytes()
    verified = {e["path"]: e for e in events(ledger, "checkpoint.verified")}
    assert sorted(verified) == ["ckpt/best.pth", "ckpt/ema.safetensors", "ckpt/last.pth"]
    assert all(v["ok"] for v in verified.values())
    assert verified["ckpt/ema.safetensors"]["loader"] == "safetensors"
    assert verified["ckpt/best.pth"]["loader"] == "torch.load(weights_only=True)"


def test_local_full_pull_records_dirs_top_level_files_and_verifies(
        ledger: Ledger, tmp_path: Path) -> None:
    box = make_box(tmp_path / "box")
    report = pull(ledger, LocalTransport(box), run="r1", instance="box1")
    check_full(ledger, report, box)
    counts = report.counts()
    assert counts["expected"]["files"] == 7
    assert counts["pulled"]["files"] == 7
    assert counts["verified"]["files"] == 3
    assert counts["failed"]["files"] == 0


def test_second_pull_transfers_nothing(ledger: Ledger, tmp_path: Path) -> None:
    box = make_box(tmp_path / "box")
    pull(ledger, LocalTransport(box), run="r1")
    again = pull(ledger, LocalTransport(box), run="r1")
    assert again.ok
    assert again.bytes_transferred == 0
    assert {f.status for f in again.files} == {"present"}


@pytest.mark.parametrize("hasher", ["python", "coreutils"])
def test_ssh_full_pull_hashes_on_the_box(ledger: Ledger, tmp_path: Path, sshd: Any,
                                         hasher: str) -> None:
    box = make_box(tmp_path / "box")
    transport = ssh(sshd, box, tmp_path, hasher=hasher)
    try:
        report = pull(ledger, transport, run="r1", instance="box1")
    finally:
        transport.close()
    check_full(ledger, report, box)
    assert report.source == f"ssh://{sshd.user}@127.0.0.1:{sshd.port}{box}"


# -- resume ----------------------------------------------------------------------------------------
def test_ssh_cut_mid_file_resumes_at_the_offset(ledger: Ledger, tmp_path: Path,
                                                sshd: Any) -> None:
    box = make_box(tmp_path / "box")
    cut = Cut(ssh(sshd, box, tmp_path), "test/t1/big.bin.dat", after=1_000_003)
    try:
        report = pull(ledger, cut, run="r1", backoff=0.01)
    finally:
        cut.close()
    assert report.ok, report.to_json()
    assert cut.offsets == [0, 1_000_003]
    big = [e for e in events(ledger, "artifact.pulled") if e["path"] == "test/t1/big.bin.dat"]
    assert big[0]["local_sha256"] == big[0]["remote_sha256"]


class StreamCut(Cut):
    """The OpenSSH bulk stream's ``ssh`` process is SIGKILLed after ``after`` bytes of
    ``path``; the pull must resume that file (and the rest) at their offsets over SFTP."""

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        assert isinstance(self.inner, SshTransport)
        inner = self.inner
        for rel, offset, chunks in inner.read_many(items):
            yield rel, offset, (self._cut(chunks, inner) if rel == self.path else chunks)

    def _cut(self, chunks: Iterator[bytes], inner: SshTransport) -> Iterator[bytes]:
        if self.cut:  # only the first stream dies
            yield from chunks
            return
        sent = 0
        for chunk in chunks:
            if self.cut:
                continue  # what the dead client had buffered never arrives
            if sent + len(chunk) >= self.after:
                yield chunk[: self.after - sent]
                self.cut = True
                inner.stream.proc.kill()  # a real cut: the ssh client dies mid-file
                continue
            sent += len(chunk)
            yield chunk


@pytest.mark.parametrize("bulk", ["openssh", "sftp"])
def test_ssh_pull_matches_over_either_channel(ledger: Ledger, tmp_path: Path, sshd: Any,
                                              bulk: str) -> None:
    """The OpenSSH stream (the default when it can start) and paramiko's SFTP (the fallback)
    deliver the same verified pull."""
    box = make_box(tmp_path / "box")
    transport = ssh(sshd, box, tmp_path, bulk=bulk)
    try:
        report = pull(ledger, transport, run="r1")
    finally:
        transport.close()
    check_full(ledger, report, box)
    assert transport.bulk_note is None
    assert report.bulk_error is None
    assert (transport.stream is not None) == (bulk == "openssh")


def test_ssh_bulk_stream_killed_mid_file_resumes_over_sftp(ledger: Ledger, tmp_path: Path,
                                                          sshd: Any) -> None:
    box = make_box(tmp_path / "box")
    cut = StreamCut(ssh(sshd, box, tmp_path, bulk="openssh"), "test/t1/big.bin.dat",
                    after=1_000_003)
    try:
        report = pull(ledger, cut, run="r1", backoff=0.01)
    finally:
        cut.close()
    check_full(ledger, report, box)
    assert report.bulk_error is not None
    assert cut.offsets == []  # a second stream carried the rest: no file was read from zero
    big = [f for f in report.files if f.path == "test/t1/big.bin.dat"]
    assert big[0].resumed_from == 1_000_003
    assert big[0].attempts == 1


def test_pull_after_an_abandoned_one_resumes_the_partial_file(ledger: Ledger,
                                                              tmp_path: Path) -> None:
    box = make_box(tmp_path / "box")
    cut = Cut(LocalTransport(box), "test/t1/big.bin.dat", after=2_000_000)
    with pytest.raises(TransportError, match="connection reset"):
        pull(ledger, cut, run="r1", retries=0)
    big = [e for e in events(ledger, "artifact.pulled") if e["path"] == "test/t1/big.bin.dat"]
    assert big == []  # a transport failure claims nothing
    # Files received before the cut wait, whole and unjudged, for the next pull; the cut one
    # holds exactly what arrived.
    partials = sorted(p.stat().st_size for p in open_store(ledger).tmp_dir.glob("pull-*.partial"))
    assert 2_000_000 in partials
    assert len(partials) <= 7
    again = Cut(LocalTransport(box), "test/t1/big.bin.dat", after=10**12)
    report = pull(ledger, again, run="r1")
    assert report.ok, report.to_json()
    assert again.offsets == [2_000_000]
    assert [f.resumed_from for f in report.files if f.path == "test/t1/big.bin.dat"] == [2_000_000]
    assert list(open_store(ledger).tmp_dir.glob("pull-*.partial")) == []


# -- changed bytes, rosters, symlinks --------------------------------------------------------------
def flip(path: Path, at: int) -> None:
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0x01
    path.write_bytes(bytes(raw))


def test_byte_changed_after_listing_is_retried_once_then_failed(ledger: Ledger, tmp_path: Path,
                                                                sshd: Any) -> None:
    """A file seen before at this path and size waits for the box's hash, then transfers: a
    change after the hash makes both attempts differ, and the file is recorded as failed."""
    box = make_box(tmp_path / "box")
    target = box / "test" / "t1" / "metrics.json"
    assert pull(ledger, LocalTransport(box), run="r0").ok
    flip(target, 2)  # new bytes, same size: not in the store, so it must be transferred

    transport = ssh(sshd, box, tmp_path)
    try:
        report = pull(ledger, transport, run="r1", on_listed=lambda _: flip(target, 3))
    finally:
        transport.close()
    assert not report.ok
    failed = [f for f in report.files if f.status == "failed"]
    assert [f.path for f in failed] == ["test/t1/metrics.json"]
    assert failed[0].attempts == 2
    event = [e for e in events(ledger, "artifact.pulled")
             if e["path"] == "test/t1/metrics.json" and not e["ok"]][0]
    assert event["error"].startswith("SHA-256 mismatch after 2 attempts")
    assert "digest" not in event
    assert not open_store(ledger).exists("blake3:" + __import__("blake3").blake3(
        target.read_bytes()).hexdigest())


class TamperBeforeHash(Cut):
    """The box's hash runs only after the early stream delivered ``path``; the file changes in
    between (so the box hashes bytes other than those already received)."""

    def __init__(self, inner: Transport, path: Path, rel: str) -> None:
        super().__init__(inner, rel, after=10**12)
        self.file = path
        self.delivered = __import__("threading").Event()

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        for rel, offset, chunks in self.inner.read_many(items):
            yield rel, offset, (self._mark(chunks) if rel == self.path else chunks)

    def _mark(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        yield from chunks
        self.delivered.set()

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        assert self.delivered.wait(30)
        flip(self.file, 2)
        return self.inner.hash_files(rels)


@pytest.mark.parametrize("over", ["ssh", "dir"])
def test_bytes_received_before_the_hash_are_compared_with_it(
        ledger: Ledger, tmp_path: Path, sshd: Any, over: str) -> None:
    box = make_box(tmp_path / "box")
    target = box / "test" / "t1" / "metrics.json"
    inner: Transport = ssh(sshd, box, tmp_path) if over == "ssh" else LocalTransport(box)
    transport = TamperBeforeHash(inner, target, "test/t1/metrics.json")
    try:
        report = pull(ledger, transport, run="r1")
    finally:
        transport.close()
    assert report.ok, report.to_json()
    [got] = [f for f in report.files if f.path == "test/t1/metrics.json"]
    assert got.attempts == 2  # the early copy differed from the box's hash: received again
    assert open_store(ledger).read_bytes(got.digest or "") == target.read_bytes()


def test_roster_names_missing_and_unexpected_files(ledger: Ledger, tmp_path: Path) -> None:
    box = make_box(tmp_path / "box")
    roster = tmp_path / "roster.txt"
    roster.write_text("# expected\nrun.json\nconfig.yaml\nckpt/best.pth\nckpt/last.pth\n"
                      "ckpt/ema.safetensors\ntest/t1/metrics.json\nbest_metrics.json\n")
    report = pull(ledger, LocalTransport(box), run="r1", roster=load_roster(roster))
    assert not report.ok
    listed = events(ledger, "pull.listed")[-1]
    assert listed["missing"] == ["best_metrics.json"]
    assert listed["unexpected"] == ["test/t1/big.bin.dat"]
    assert listed["roster_digest"] == load_roster(roster).digest
    assert report.counts()["failed"]["files"] == 1


def test_with_only_the_roster_is_compared_inside_the_globs(ledger: Ledger,
                                                          tmp_path: Path) -> None:
    box = make_box(tmp_path / "box")
    roster = tmp_path / "roster.txt"
    roster.write_text("run.json\nconfig.yaml\nckpt/best.pth\nckpt/gone.pth\n")
    report = pull(ledger, LocalTransport(box), run="r1", roster=load_roster(roster),
                  only=["ckpt/*"])
    listed = events(ledger, "pull.listed")[-1]
    assert listed["missing"] == ["ckpt/gone.pth"]  # run.json, config.yaml: left out, not missing
    assert listed["only"] == ["ckpt/*"]
    assert not report.ok


def test_pull_v1_roster_with_a_wrong_hash_is_mismatched(ledger: Ledger, tmp_path: Path) -> None:
    import json

    box = make_box(tmp_path / "box")
    files = [{"path": str(p.relative_to(box)), "bytes": p.stat().st_size,
              "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
             for p in sorted(box.rglob("*")) if p.is_file()]
    files[0]["sha256"] = "0" * 64
    manifest = tmp_path / "PULL_MANIFEST.json"
    manifest.write_text(json.dumps({"schema": "remote-gpu-trainer/PULL/v1", "run_id": "r1",
                                    "files": files}))
    report = pull(ledger, LocalTransport(box), run="r1", roster=load_roster(manifest))
    assert report.roster_mismatched == [files[0]["path"]]
    assert report.missing == []
    assert report.unexpected == []


@pytest.mark.parametrize("allow", [False, True])
def test_symlink_escaping_the_root_is_refused_and_never_followed(
        ledger: Ledger, tmp_path: Path, sshd: Any, allow: bool) -> None:
    box = make_box(tmp_path / "box")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("do not pull me\n")
    (box / "leak").symlink_to(outside / "secret.txt")
    (box / "logs" / "up").symlink_to("../../outside")
    (box / "alias.json").symlink_to("run.json")
    transport = ssh(sshd, box, tmp_path)
    try:
        report = pull(ledger, transport, run="r1", allow_symlinks=allow)
    finally:
        transport.close()
    assert not report.ok
    refused = "\n".join(report.refused)
    assert "leak: symlink to" in refused
    assert "escapes the root" in refused
    assert "logs/up: symlink to ../../outside escapes the root" in refused
    assert ("alias.json" in refused) is not allow
    paths = {e["path"] for e in events(ledger, "artifact.pulled")}
    assert not paths & {"leak", "logs/up", "alias.json", "logs/up/secret.txt"}
    import blake3

    secret = "blake3:" + blake3.blake3(b"do not pull me\n").hexdigest()
    assert not open_store(ledger).exists(secret)
    entries = {e["path"]: e for e in events(ledger, "pull.listed")[-1]["entries"]}
    if allow:
        assert entries["alias.json"]["type"] == "symlink"
        assert entries["alias.json"]["target"] == "run.json"


def test_unsafe_names_are_refused(ledger: Ledger, tmp_path: Path) -> None:
    box = make_box(tmp_path / "box")
    (box / "bad\nname.txt").write_text("x")
    report = pull(ledger, LocalTransport(box), run="r1")
    assert report.refused == ["'bad\\nname.txt': unsafe name (contains a control character)"]


# -- checkpoints -----------------------------------------------------------------------------------
class Evil:
    def __init__(self, side: Path) -> None:
        self.side = side

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (open, (str(self.side), "w"))


def test_bad_checkpoints_fail_with_the_exact_reason_and_no_code_runs(
        ledger: Ledger, tmp_path: Path, sshd: Any) -> None:
    box = tmp_path / "box"
    box.mkdir()
    side = tmp_path / "SIDE_EFFECT"
    torch.save(state_dict(1), box / "good.pth")
    raw = (box / "good.pth").read_bytes()
    (box / "truncated.pth").write_bytes(raw[: len(raw) // 2])
    nan = state_dict(2)
    nan["weight"][0, 0] = float("nan")
    torch.save({"model_state_dict": nan}, box / "nan.pt")
    (box / "evil.pth").write_bytes(pickle.dumps({"model": Evil(side)}))
    torch.save({"optimizer": {"lr": 0.1}, "t": torch.zeros(2)}, box / "nokey.ckpt")
    transport = ssh(sshd, box, tmp_path)
    try:
        report = pull(ledger, transport, run="r1")
    finally:
        transport.close()
    assert not side.exists()
    assert not report.ok
    verified = {e["path"]: e for e in events(ledger, "checkpoint.verified")}
    assert verified["good.pth"]["ok"] is True
    assert verified["truncated.pth"]["ok"] is False
    assert verified["truncated.pth"]["error"].startswith("torch.load(weights_only=True) failed: ")
    assert verified["nan.pt"]["error"] == "1 of 2 tensors hold NaN or infinity"
    assert verified["evil.pth"]["error"].startswith(
        "torch.load(weights_only=True) failed: UnpicklingError")
    assert verified["nokey.ckpt"]["error"].startswith("no weights key")
    assert all("allow_pickle" not in e for e in verified.values())  # False: the default
    for e in verified.values():
        assert e["digest"] == [p["digest"] for p in events(ledger, "artifact.pulled")
                               if p["path"] == e["path"]][0]


def test_allow_pickle_is_recorded(ledger: Ledger, tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    torch.save({"state_dict": state_dict(1), "note": "plain"}, box / "best.pth")
    report = pull(ledger, LocalTransport(box), run="r1", allow_pickle=True)
    assert report.ok
    [event] = events(ledger, "checkpoint.verified")
    assert event["allow_pickle"] is True
    assert event["loader"] == "torch.load(weights_only=False)"


def test_memory_limit_fails_the_load_not_the_caller(ledger: Ledger, tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    torch.save({"state_dict": {"w": torch.zeros(64, 1024, 1024)}}, box / "big.pth")
    report = pull(ledger, LocalTransport(box), run="r1", memory_limit=32 * 1024 * 1024)
    [event] = events(ledger, "checkpoint.verified")
    assert event["ok"] is False
    assert "can't allocate memory" in event["error"]
    assert not report.ok


# -- the box's ledger ----------------------------------------------------------------------------
def box_ledger(box: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABLEDGER_WRITER", "box-writer")
    with Ledger.init(box) as led:
        led.append("run.launched", run="r1", command=["python", "train.py"])
        led.append("checkpoint.saved", run="r1", path="ckpt/best.pth",
                   digest="blake3:" + "0" * 64, size=1)
    monkeypatch.setenv("LABLEDGER_WRITER", "test-writer")


def test_box_ledger_segments_are_merged_and_chains_checked(
        ledger: Ledger, tmp_path: Path, sshd: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    box = make_box(tmp_path / "box")
    box_ledger(box, monkeypatch)
    transport = ssh(sshd, box, tmp_path)
    try:
        report = pull(ledger, transport, run="r1")
        again = pull(ledger, transport, run="r1")
    finally:
        transport.close()
    assert report.ok, report.to_json()
    assert [m.split("/")[0] for m in report.merged_segments] == ["box-writer"]
    kinds = [(r.writer, r.kind) for r in ledger.records() if r.writer == "box-writer"]
    assert kinds == [("box-writer", "run.launched"), ("box-writer", "checkpoint.saved")]
    assert check_ledger(ledger.paths).ok
    assert again.merged_segments == []
    assert again.merge_problems == []
    assert all(not e["path"].startswith(".labledger") for e in events(ledger, "artifact.pulled"))


@pytest.mark.parametrize("over", ["ssh", "dir"])
def test_the_box_ledger_is_found_above_the_pulled_folder(
        ledger: Ledger, tmp_path: Path, sshd: Any, monkeypatch: pytest.MonkeyPatch,
        over: str) -> None:
    """A box's project root holds .labledger/ and export/<run>/: pulling the capsule folder
    alone still merges the box's ledger (so its announcements become expectations)."""
    project = tmp_path / "boxproject"
    capsule = make_box(project / "export" / "r1")
    box_ledger(project, monkeypatch)
    transport: Transport = (ssh(sshd, capsule, tmp_path) if over == "ssh"
                            else LocalTransport(tmp_path / "boxproject" / "export" / ".." /
                                                "export" / "r1"))
    try:
        report = pull(ledger, transport, run="r1")
    finally:
        transport.close()
    assert report.ok, report.to_json()
    assert report.box_ledger == "../../.labledger"
    assert [m.split("/")[0] for m in report.merged_segments] == ["box-writer"]
    if over == "dir":  # recorded normalised, as the user would look it up
        assert transport.source == f"dir:{capsule}"


def test_a_corrupt_box_ledger_is_not_merged(ledger: Ledger, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    box = make_box(tmp_path / "box")
    box_ledger(box, monkeypatch)
    [segment] = (box / ".labledger" / "ledger" / "box-writer").glob("*.jsonl")
    segment.write_bytes(segment.read_bytes().replace(b"train.py", b"evil.py"))
    report = pull(ledger, LocalTransport(box), run="r1")
    assert not report.ok
    assert report.merged_segments == []
    assert report.merge_problems[0].startswith("box ledger: corruption")
    assert not (ledger.paths.segments / "box-writer").exists()
