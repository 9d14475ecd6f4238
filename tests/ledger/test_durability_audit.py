"""Durability audit: "nothing acknowledged is ever lost", tried against real processes.

What the older crash tests (test_crash, test_concurrency, test_disk_full, test_seal) do not
cover, tried here with real `labledger` processes, real SIGKILLs and real filesystems:

* many writers (`emit`, `ingest`, a library appender) while other processes `compact`, `sql`
  and `check`, some of every kind killed at random moments: every acknowledged event (an id
  printed with exit 0, an `ingest` that exited 0, an `append` that returned) is present exactly
  once, `check` never reports corruption (only the documented ``torn``/``recovered`` kinds of
  an unfinished tail), `sql` never fails, and later appends need no repair;
* `compact` killed at many points: every event is read exactly once, by `sql` and by the
  Python reader (no duplicates between Parquet and JSON lines, none missing);
* a full disk (a small tmpfs) under `compact` and `ingest`: a clear error, the documented
  exit code, nothing acknowledged lost;
* a read-only project (a read-only bind mount): reads work, writes fail clearly.

Randomized with fixed seeds, so a failure reproduces in kind (process scheduling still varies).
No timed assertions: deadlines only stop loops.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from labledger.ledger.check import check_ledger
from labledger.ledger.ledger import Ledger
from labledger.ledger.root import LedgerPaths

EXE = str(Path(sys.executable).with_name("labledger"))
# Findings `check` may report on a healthy ledger that crashed mid-append (docs/ledger.md)
BENIGN = {"torn", "recovered"}


def _set_max_events(project: Path, n: int) -> None:
    config = project / ".labledger" / "config.toml"
    text = config.read_text().replace("segment_max_events = 200000", f"segment_max_events = {n}")
    assert f"segment_max_events = {n}" in text
    config.write_text(text)


def _texts(project: Path) -> list[str]:
    """The body text of every event, read by the Python reader (verifies every record)."""
    out = []
    for record in Ledger.open(project).records():
        body = json.loads(bytes(record.body))
        out.append(body.get("text", ""))
    return out


def _sql_texts(project: Path) -> list[str]:
    proc = subprocess.run([EXE, "--json", "sql", "select body->>'text' as t from events"],
                          cwd=project, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return [row["t"] for row in json.loads(proc.stdout)]


def _assert_check_clean(project: Path) -> None:
    report = check_ledger(LedgerPaths(project))
    bad = [str(f) for f in report.findings if f.severity not in BENIGN]
    assert bad == [], bad
    records = list(Ledger.open(project).records())
    assert [r.seq for r in records] == list(range(len(records)))
    assert all(b.prev == a.id for a, b in zip(records, records[1:], strict=False))


def _exactly_once(acknowledged: list[str], present: list[str]) -> None:
    counts: dict[str, int] = {}
    for text in present:
        counts[text] = counts.get(text, 0) + 1
    duplicated = sorted(t for t, n in counts.items() if n > 1)
    assert duplicated == [], f"events present more than once: {duplicated[:5]}"
    missing = [t for t in acknowledged if t not in counts]
    assert missing == [], f"acknowledged events lost: {missing[:5]}"


# -- many writers, compact, sql and check at once; SIGKILLs at random ---------------------------

APPENDER = textwrap.dedent("""
    import os, sys
    from labledger.ledger.ledger import Ledger

    acks = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    led = Ledger.open()
    i = 0
    while True:
        if i % 4 == 3:
            texts = [f"lib-{os.getpid()}-{i}-{j}" for j in range(5)]
            led.append_batch([{"kind": "note", "body": {"text": t}} for t in texts])
        else:
            texts = [f"lib-{os.getpid()}-{i}"]
            led.append("note", text=texts[0])
        os.write(acks, "".join(t + "\\n" for t in texts).encode())  # acknowledged from here
        i += 1
""")


class _Storm:
    """Threads that each run one kind of `labledger` process in a loop until ``stop``."""

    def __init__(self, project: Path, tmp: Path, seed: int) -> None:
        self.project, self.tmp, self.seed = project, tmp, seed
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acknowledged: list[str] = []
        self.failures: list[str] = []
        self.counts = {"emit": 0, "emit-killed": 0, "ingest": 0, "ingest-killed": 0,
                       "compact": 0, "compact-killed": 0, "check": 0, "sql": 0, "log": 0,
                       "check-killed": 0}

    def _run(self, args: list[str], rng: random.Random, kill_chance: float,
             ) -> tuple[int, str, str]:
        proc = subprocess.Popen([EXE, *args], cwd=self.project, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        if rng.random() < kill_chance:
            time.sleep(rng.uniform(0.0, 0.4))
            proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
        return proc.returncode, out, err

    def _count(self, name: str) -> None:
        with self.lock:
            self.counts[name] += 1

    def _fail(self, what: str) -> None:
        with self.lock:
            self.failures.append(what)

    def emitter(self, index: int) -> None:
        rng = random.Random(self.seed * 100 + index)
        n = 0
        while not self.stop.is_set():
            text = f"emit-{index}-{n}"
            n += 1
            code, out, err = self._run(["emit", "note", "--set", f"text={text}"], rng, 0.3)
            if code == 0:
                self._count("emit")
                with self.lock:
                    self.acknowledged.append(text)
            elif code == -signal.SIGKILL:
                self._count("emit-killed")
            else:
                self._fail(f"emit {text}: exit {code}: {err}")

    def ingester(self) -> None:
        rng = random.Random(self.seed * 100 + 50)
        n = 0
        while not self.stop.is_set():
            texts = [f"ingest-{n}-{j}" for j in range(rng.randint(1, 30))]
            n += 1
            source = self.tmp / f"ingest-{n}.jsonl"
            source.write_text("".join(json.dumps({"kind": "note", "body": {"text": t}}) + "\n"
                                      for t in texts))
            code, out, err = self._run(["ingest", str(source)], rng, 0.3)
            if code == 0:
                self._count("ingest")
                with self.lock:
                    self.acknowledged.extend(texts)
            elif code == -signal.SIGKILL:
                self._count("ingest-killed")
            else:
                self._fail(f"ingest {source.name}: exit {code}: {err}")

    def compacter(self) -> None:
        rng = random.Random(self.seed * 100 + 60)
        while not self.stop.is_set():
            code, out, err = self._run(["compact"], rng, 0.5)
            if code == 0:
                self._count("compact")
            elif code == -signal.SIGKILL:
                self._count("compact-killed")
            else:
                self._fail(f"compact: exit {code}: {err}")

    def reader(self) -> None:
        rng = random.Random(self.seed * 100 + 70)
        while not self.stop.is_set():
            if rng.random() < 0.5:
                code, out, err = self._run(["--json", "check"], rng, 0.2)
                if code == -signal.SIGKILL:
                    self._count("check-killed")
                    continue
                if code != 0:
                    self._fail(f"check: exit {code}: {out[-2000:]} {err}")
                    continue
                self._count("check")
                bad = [f for f in json.loads(out)["findings"] if f["severity"] not in BENIGN]
                if bad:
                    self._fail(f"check found {bad}")
            else:
                args = rng.choice([["sql", "select count(*) from events"],
                                   ["log", "--kind", "note", "--limit", "5"]])
                code, out, err = self._run(args, rng, 0.0)
                if code != 0:
                    self._fail(f"{args[0]}: exit {code}: {err}")
                self._count(args[0])


def _storm(project: Path, tmp: Path, seed: int, seconds: float) -> _Storm:
    storm = _Storm(project, tmp, seed)
    threads = [threading.Thread(target=storm.emitter, args=(i,)) for i in range(2)]
    threads += [threading.Thread(target=t) for t in (storm.ingester, storm.compacter,
                                                     storm.reader)]
    rng = random.Random(seed)
    appenders: list[tuple[subprocess.Popen[bytes], Path]] = []
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            acks = tmp / f"lib-acks-{len(appenders)}.txt"
            child = subprocess.Popen([sys.executable, "-c", APPENDER, str(acks)], cwd=project,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            appenders.append((child, acks))
            time.sleep(rng.uniform(0.3, 1.5))
            child.send_signal(signal.SIGKILL)  # a library appender dies mid-training
            child.wait()
    finally:
        storm.stop.set()
        for thread in threads:
            thread.join()
    for child, acks in appenders:
        err = child.stderr.read().decode() if child.stderr else ""
        if child.stderr:
            child.stderr.close()
        assert child.returncode == -signal.SIGKILL, err
        if acks.exists():
            # a line cut short by the kill was being reported: acknowledged all the same
            lines = acks.read_text().split("\n")
            storm.acknowledged.extend(t for t in lines[:-1] if t)
    return storm


@pytest.mark.slow
def test_writers_compact_and_readers_at_once_with_sigkills(tmp_path: Path, project: Path
                                                             ) -> None:
    Ledger.init(project)
    _set_max_events(project, 25)  # rollovers, closed segments and seals all the time
    storm = _storm(project, tmp_path, seed=2207, seconds=8)
    assert storm.failures == [], "\n".join(storm.failures[:6])
    assert storm.counts["emit"]
    assert storm.counts["compact"]
    assert storm.counts["ingest"]

    _assert_check_clean(project)
    _exactly_once(storm.acknowledged, _texts(project))
    # later appends need no repair: the next one cuts any torn tail, and all of it seals
    Ledger.open(project).append("note", text="after the storm")
    proc = subprocess.run([EXE, "compact"], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    _assert_check_clean(project)
    texts = _sql_texts(project)
    _exactly_once([*storm.acknowledged, "after the storm"], texts)
    assert sorted(texts) == sorted(_texts(project))
    print(storm.counts, len(storm.acknowledged))  # noqa: T201


# -- compact killed at many points --------------------------------------------------------------

def test_compact_killed_at_many_points_never_loses_or_doubles_an_event(project: Path) -> None:
    led = Ledger.init(project)
    _set_max_events(project, 20)
    led = Ledger.open(project)
    acknowledged: list[str] = []
    rng = random.Random(2208)
    for round_ in range(10):
        for i in range(rng.randint(30, 70)):  # closed segments for compact to seal
            text = f"r{round_}-{i}-" + "x" * rng.randint(0, 300)
            led.append("note", text=text)
            acknowledged.append(text)
        proc = subprocess.Popen([EXE, "compact"], cwd=project, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        time.sleep(0.05 * round_)  # from right at its start to well into the sealing
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode in (0, -signal.SIGKILL), err
        _assert_check_clean(project)
        _exactly_once(acknowledged, _texts(project))
        if round_ % 3 == 2:
            texts = _sql_texts(project)
            _exactly_once(acknowledged, texts)
            assert len(texts) == len(acknowledged)
    done = subprocess.run([EXE, "compact"], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    led.append("note", text="after")
    _assert_check_clean(project)
    texts = _sql_texts(project)
    assert sorted(texts) == sorted([*acknowledged, "after"])
    assert not list((project / ".labledger" / "ledger").rglob("*.tmp"))


# -- a full disk: a small tmpfs -------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project on its own 4 MiB tmpfs (root only: the audit runs as root in CI)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    try:
        project = mount / "project"
        project.mkdir()
        monkeypatch.setenv("LABLEDGER_ROOT", str(project))
        yield project
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def _fill(disk: Path) -> Path:
    """Write a file until the filesystem is full; returns it (remove it to make room)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (65536, 4096, 1):  # then the last pages, then the last bytes
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def test_compact_on_a_full_tmpfs_fails_clearly_and_keeps_every_event(small_disk: Path) -> None:
    project = small_disk
    led = Ledger.init(project)
    _set_max_events(project, 10)
    led = Ledger.open(project)
    texts = [f"event {i} " + "y" * 1500 for i in range(45)]
    for text in texts:
        led.append("note", text=text)
    led.close()
    filler = _fill(project.parent)
    proc = subprocess.run([EXE, "compact"], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "cannot seal" in proc.stderr
    _assert_check_clean(project)
    _exactly_once(texts, _texts(project))
    filler.unlink()
    proc = subprocess.run([EXE, "compact"], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    _assert_check_clean(project)
    assert sorted(_sql_texts(project)) == sorted(texts)


def test_ingest_that_appended_on_a_full_disk_exits_0_even_when_sealing_fails(
    small_disk: Path, tmp_path: Path,
) -> None:
    """`ingest` seals closed segments after its append. On a disk with room for the append but
    not for the Parquet, the events were acknowledged (fsynced): exit 1 would read as "not
    recorded" and a retry would record them twice."""
    project = small_disk
    led = Ledger.init(project)
    _set_max_events(project, 10)
    led = Ledger.open(project)
    for i in range(12):  # segment 0 closed (waits to be sealed), segment 10 open, 2 records
        led.append("note", text=f"before {i} " + "z" * 800)
    led.close()
    source = tmp_path / "more.jsonl"  # off the full disk
    source.write_text(json.dumps({"kind": "note", "body": {"text": "ingested"}}) + "\n")
    _fill(project.parent)
    proc = subprocess.run([EXE, "ingest", str(source)], cwd=project, capture_output=True,
                          text=True, timeout=120, check=False)
    present = _texts(project)
    assert "ingested" in present, proc.stderr  # the append fit in the open segment's last page
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "cannot seal" in proc.stderr  # said, as a warning
    _assert_check_clean(project)
    _exactly_once(["ingested"], present)


# -- a read-only project ------------------------------------------------------------------

@pytest.fixture
def read_only_project(project: Path) -> Iterator[Path]:
    """A ledger with sealed and open segments and a torn tail, then bind-mounted read-only
    (chmod would not stop root)."""
    led = Ledger.init(project)
    _set_max_events(project, 5)
    led = Ledger.open(project)
    for i in range(12):
        led.append("note", run="r1", text=f"ro {i}")
    led.close()
    subprocess.run([EXE, "compact"], cwd=project, check=True, capture_output=True)
    led = Ledger.open(project)
    led.append("note", run="r1", text="ro open")
    led.close()
    subprocess.run(["mount", "--bind", str(project), str(project)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(project)], check=True)
        yield project
    finally:
        subprocess.run(["umount", "-l", str(project)], check=True)


@pytest.mark.parametrize("args", [["log"], ["sql", "select count(*) from events"], ["check"],
                                  ["--json", "sql", "select run, events from runs"]])
def test_read_commands_work_on_a_read_only_project(read_only_project: Path,
                                                   args: list[str]) -> None:
    proc = subprocess.run([EXE, *args], cwd=read_only_project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [["emit", "note", "--set", "text=x"],
                                  ["emit", "note", "--set", "text=x", "--json"],
                                  ["compact"]])
def test_write_commands_fail_clearly_on_a_read_only_project(read_only_project: Path,
                                                            args: list[str]) -> None:
    before = _texts(read_only_project)
    proc = subprocess.run([EXE, *args], cwd=read_only_project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "read-only" in proc.stderr.lower(), proc.stderr
    assert _texts(read_only_project) == before


@pytest.mark.parametrize("args", [["emit", "note", "--set", "text=x"], ["ingest", "-"]])
def test_a_new_writers_first_append_fails_clearly_on_a_read_only_project(
        read_only_project: Path, args: list[str]) -> None:
    """A project opened on another machine appends under a writer of its own, whose folder
    does not exist yet: creating it on a read-only filesystem was a traceback (review)."""
    before = _texts(read_only_project)
    proc = subprocess.run([EXE, *args], cwd=read_only_project, capture_output=True, text=True,
                          input='{"kind": "note", "body": {"text": "x"}}\n', timeout=120,
                          check=False, env={**os.environ, "LABLEDGER_WRITER": "newbox"})
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "read-only filesystem" in proc.stderr, proc.stderr
    assert "newbox" in proc.stderr, proc.stderr
    assert not (read_only_project / ".labledger" / "ledger" / "newbox").exists()
    assert _texts(read_only_project) == before
