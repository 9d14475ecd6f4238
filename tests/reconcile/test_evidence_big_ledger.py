"""Reading only the latest heartbeats (`load_events(..., latest_heartbeats=True)`) judges exactly
as reading every event: PULL_VERIFIED per run (anywhere, and at each instance's gate), the
teardown gate, and EVIDENCE.json; and a damaged record the judgement needs still raises as the
full read raises it.

The property test writes random ledgers through `Ledger.append`/`append_batch` (several writers,
out-of-order and tied timestamps, small segments, some sealed to Parquet by `compact` midway)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger.check import check_ledger
from labledger.ledger.errors import CorruptionError
from labledger.ledger.ledger import Ledger
from labledger.ledger.read import iter_writer_records, iter_writer_records_latest
from labledger.ledger.seal import compact
from labledger.reconcile.drift import evidence_document
from labledger.reconcile.evidence import build_evidence, render
from labledger.reconcile.pull_verified import (
    HEARTBEAT,
    ObjectChecker,
    evaluate_gate,
    ledger_head,
    load_events,
    open_store,
    verify_run,
)

RUNS = ("r1", "r2", "r3")
INSTANCES = (None, "box-a", "box-b")
WRITERS = ("w-a", "w-b", "w-c")
# Few distinct times: ties across writers, and times that go back within one writer's chain.
TIMES = tuple(f"2025-03-01T10:00:{s:02d}.000000Z" for s in range(12))
PATHS = ("best.pth", "train.csv", "test/t1/metrics.json")
VERSIONS = (0, 1)


def content(path: str, version: int) -> bytes:
    if path.endswith("metrics.json"):
        return json.dumps({"psnr": 30.0 + version, "seeds": [0, 1], "psnr_std": 0.1}).encode()
    return f"{path} version {version}\n".encode() * 20


def sha(path: str, version: int) -> str:
    return hashlib.sha256(content(path, version)).hexdigest()


# --- writing a ledger -------------------------------------------------------------------------
@dataclass(frozen=True)
class Action:
    """One event to append: which writer, when (None: now), and the event itself."""

    writer: str
    at: str | None
    kind: str
    run: str | None
    instance: str | None
    body: dict[str, Any]


class Project:
    """A ledger with one `Ledger` per writer and every file version in the store."""

    def __init__(self, folder: Path, segment_events: int = 200_000) -> None:
        self.first = Ledger.init(folder)
        config = self.first.paths.config
        config.write_text(config.read_text().replace(
            "segment_max_events = 200000", f"segment_max_events = {segment_events}"))
        self.folder = folder
        self.ledgers: dict[str, Ledger] = {}
        store = open_store(self.first)
        self.digests = {(p, v): store.put_bytes(content(p, v)).digest
                        for p in PATHS for v in VERSIONS}

    def writer(self, name: str) -> Ledger:
        if name not in self.ledgers:
            led = Ledger.open(self.folder)
            led.writer = name
            self.ledgers[name] = led
        return self.ledgers[name]

    def write(self, actions: list[Action], batched: bool) -> None:
        """Append ``actions`` (one writer's run of them) one by one or as one batch."""
        led = self.writer(actions[0].writer)
        if batched:
            led.append_batch([{"kind": a.kind, "run": a.run, "instance": a.instance,
                               "at": a.at, "body": a.body} for a in actions])
        else:
            for a in actions:
                led.append(a.kind, run=a.run, instance=a.instance, at=a.at, **a.body)

    def close(self) -> None:
        for led in self.ledgers.values():
            led.close()
        self.first.close()


# --- the random events ------------------------------------------------------------------------
runs = st.sampled_from(RUNS)
instances = st.sampled_from(INSTANCES)
versions = st.sampled_from(VERSIONS)
paths = st.sampled_from(PATHS)


def entry(path: str, version: int, with_blake3: bool, digests: dict[Any, str]) -> dict[str, Any]:
    found = {"path": path, "size": len(content(path, version)), "sha256": sha(path, version)}
    if with_blake3:
        found["blake3"] = digests[(path, version)]
    return found


@st.composite
def bodies(draw: st.DrawFn, kind: str, digests: dict[Any, str]) -> dict[str, Any]:
    if kind == HEARTBEAT:
        body: dict[str, Any] = {"step": draw(st.integers(0, 1000))}
        if draw(st.booleans()):  # the kind's text in a body must not make it a heartbeat
            body["extra"] = {"kind": "note"}
        return body
    if kind == "note":
        return {"text": "x", "extra": {"kind": HEARTBEAT}}
    if kind == "run.launched":
        return {"command": ["python", "train.py"], "git_commit": "0123456789ab",
                "git_dirty": draw(st.booleans())}
    if kind == "run.exited":
        return {"exit_code": draw(st.sampled_from([0, 1]))}
    if kind == "pull.listed":
        shown = draw(st.lists(st.tuples(paths, versions, st.booleans()), max_size=3,
                              unique_by=lambda t: t[0]))
        body = {"source": draw(st.sampled_from(["ssh://u@h:22/~/run", "dir:/data/run"])),
                "entries": [entry(p, v, b3, digests) for p, v, b3 in shown]}
        if draw(st.booleans()):  # partial: `pull --only`
            body["only"] = draw(st.lists(st.sampled_from(["*.pth", "test/*", "*.csv"]),
                                         min_size=1, max_size=2, unique=True))
        if draw(st.booleans()):
            body["missing"] = draw(st.lists(paths, max_size=1))
            body["roster_digest"] = digests[(PATHS[0], 0)]
        return body
    if kind == "artifact.pulled":
        path, version, ok = draw(paths), draw(versions), draw(st.booleans())
        if not ok:
            return {"path": path, "ok": False, "error": "connection reset"}
        local = draw(versions)  # the bytes here may differ from the box's
        return {"path": path, "ok": True, "size": len(content(path, version)),
                "remote_sha256": sha(path, version), "local_sha256": sha(path, local),
                "digest": digests[(path, local)]}
    if kind in ("checkpoint.saved", "artifact.recorded"):
        path, version = draw(paths), draw(versions)
        body = {"path": path, "digest": digests[(path, version)],
                "size": len(content(path, version))}
        if kind == "checkpoint.saved":
            body["role"] = draw(st.sampled_from(["best", "last", "latest"]))
        return body
    if kind == "checkpoint.verified":
        path, version = draw(paths), draw(versions)
        return {"path": path, "digest": digests[(path, version)], "ok": draw(st.booleans())}
    if kind == "claim.declared":
        version = draw(versions)
        return {"claim": draw(st.sampled_from(["C1", "C2"])), "metric": "psnr",
                "value": 30.0 + version, "direction": "higher",
                "source_digest": digests[("test/t1/metrics.json", version)],
                "source_path": "test/t1/metrics.json", "seeds": [0], "n": 24}
    if kind == "claim.retracted":
        return {"claim": draw(st.sampled_from(["C1", "C2"])), "reason": "wrong checkpoint"}
    assert kind == "instance.rented"
    return {"profile": "local", "host": "u@h:22"}


KINDS = st.sampled_from([HEARTBEAT] * 12 + ["full pull"] * 2 + [
    "run.launched", "run.exited", "pull.listed", "pull.listed", "artifact.pulled",
    "artifact.pulled", "checkpoint.saved", "artifact.recorded", "checkpoint.verified",
    "claim.declared", "claim.retracted", "instance.rented", "note"])


def full_pull(writer: str, at: str | None, run: str, instance: str | None, version: int,
              digests: dict[Any, str]) -> list[Action]:
    """A full listing of every file, each pulled intact, the checkpoint verified: the run holds
    until it is seen active again."""
    listing = {"source": "dir:/data/run",
               "entries": [entry(p, version, True, digests) for p in PATHS]}
    pulls = [{"path": p, "ok": True, "size": len(content(p, version)),
              "remote_sha256": sha(p, version), "local_sha256": sha(p, version),
              "digest": digests[(p, version)]} for p in PATHS]
    verified = {"path": PATHS[0], "digest": digests[(PATHS[0], version)], "ok": True}
    return [Action(writer, at, "pull.listed", run, instance, listing)] + [
        Action(writer, at, "artifact.pulled", run, instance, b) for b in pulls] + [
        Action(writer, at, "checkpoint.verified", None, None, verified)]


@st.composite
def actions(draw: st.DrawFn, digests: dict[Any, str]) -> list[Action]:
    """One event, or the few of a complete pull."""
    kind = draw(KINDS)
    if kind == "full pull":
        return full_pull(draw(st.sampled_from(WRITERS)), draw(st.sampled_from(TIMES)),
                         draw(runs), draw(instances), draw(versions), digests)
    run = None if kind in ("instance.rented", "note", "checkpoint.verified", "claim.retracted") \
        else draw(runs)
    instance = draw(st.sampled_from(INSTANCES[1:])) if kind == "instance.rented" \
        else draw(instances)
    if kind == HEARTBEAT and draw(st.integers(0, 9)) == 0:
        run = None  # a box's heartbeat that names no run (instances only)
        kind = "note"
    return [Action(writer=draw(st.sampled_from(WRITERS)),
                   at=draw(st.one_of(st.none(), st.sampled_from(TIMES))), kind=kind, run=run,
                   instance=instance, body=draw(bodies(kind, digests)))]


@dataclass
class Plan:
    """How a ledger is written: runs of actions per writer, each batched or not, and after
    which run `compact` seals every segment written so far (None: never)."""

    chunks: list[tuple[list[Action], bool]]
    seal_after: int | None
    segment_events: int


DIGESTS = {(p, v): "blake3:" + hashlib.sha256(f"{p}{v}".encode()).hexdigest()
           for p in PATHS for v in VERSIONS}  # replaced by the store's digests when written


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    drawn = draw(st.lists(st.tuples(st.lists(actions(DIGESTS), min_size=1, max_size=8),
                                    st.booleans()), min_size=1, max_size=12))
    # one writer per chunk (its first action's), as a batch goes to one writer's segment
    chunks = [([Action(group[0][0].writer, x.at, x.kind, x.run, x.instance, x.body)
                for one in group for x in one], batched) for group, batched in drawn]
    seal = draw(st.one_of(st.none(), st.integers(0, len(chunks) - 1)))
    return Plan(chunks, seal, draw(st.sampled_from([3, 7, 200_000])))


def real_digests(body: dict[str, Any], digests: dict[Any, str]) -> dict[str, Any]:
    """``body`` with the placeholder digests replaced by the store's."""
    text = json.dumps(body)
    for key, placeholder in DIGESTS.items():
        text = text.replace(placeholder, digests[key])
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def written(plan: Plan, folder: Path) -> Project:
    project = Project(folder, plan.segment_events)
    for number, (chunk, batched) in enumerate(plan.chunks):
        project.write([Action(a.writer, a.at, a.kind, a.run, a.instance,
                              real_digests(a.body, project.digests)) for a in chunk], batched)
        if plan.seal_after == number:
            compact(project.first.paths)
    return project


# --- what must be the same ----------------------------------------------------------------------
def assert_same_judgements(led: Ledger) -> None:
    full = load_events(led)
    thin = load_events(led, latest_heartbeats=True)
    assert [e for e in thin if e.kind != HEARTBEAT] == [e for e in full if e.kind != HEARTBEAT]
    assert all(e in full for e in thin)
    assert ledger_head(thin) == ledger_head(full)
    store = open_store(led)
    for run in RUNS:
        for instance in INSTANCES:
            got = verify_run(run, thin, ObjectChecker(store), instance=instance)
            want = verify_run(run, full, ObjectChecker(store), instance=instance)
            assert got.to_json() == want.to_json(), (run, instance)
    for instance in INSTANCES[1:]:
        got_gate = evaluate_gate(led, instance, events=thin, checker=ObjectChecker(store))
        want_gate = evaluate_gate(led, instance, events=full, checker=ObjectChecker(store))
        assert got_gate.to_json() == want_gate.to_json()
    document = build_evidence(led, events=full, checker=ObjectChecker(store))
    assert build_evidence(led, events=thin, checker=ObjectChecker(store)) == document
    assert render(build_evidence(led)) == render(document)  # the default reads the latest only


@settings(max_examples=120, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(plan=plans())
def test_latest_heartbeats_judge_as_every_event(plan: Plan) -> None:
    with tempfile.TemporaryDirectory(prefix="labledger-thin-") as name:
        project = written(plan, Path(name))
        try:
            assert_same_judgements(project.first)
        finally:
            project.close()


# --- a real ledger of many heartbeats -----------------------------------------------------------
def beats(led: Ledger, run: str, instance: str | None, times: Sequence[str]) -> None:
    led.append_batch([{"kind": HEARTBEAT, "run": run, "instance": instance, "at": t,
                       "body": {"step": i}} for i, t in enumerate(times)])


def a_busy_run(folder: Path) -> Project:
    """r1 on box-a: launched, listed and pulled in full, claimed, then beating on (so it is
    not pull-verified: active after the listing); r2 beating on two boxes, and on none."""
    project = Project(folder)
    led = project.writer("w-a")
    led.append("run.launched", run="r1", instance="box-a", command=["python", "t.py"],
               git_commit="0123456789ab", git_dirty=False)
    beats(led, "r1", "box-a", [TIMES[1], TIMES[2], TIMES[3]])
    metrics = ("test/t1/metrics.json", 0)
    led.append("pull.listed", run="r1", instance="box-a", at=TIMES[4], source="dir:/data/r1",
               entries=[entry(*metrics, True, project.digests)])
    led.append("artifact.pulled", run="r1", instance="box-a", at=TIMES[4],
               path=metrics[0], ok=True, size=len(content(*metrics)),
               remote_sha256=sha(*metrics), local_sha256=sha(*metrics),
               digest=project.digests[metrics])
    led.append("claim.declared", run="r1", claim="C1", metric="psnr", value=30.0,
               direction="higher", source_digest=project.digests[metrics],
               source_path=metrics[0])
    # the latest beat of r1 on box-a is in the middle of the chain: times went back after it
    beats(led, "r1", "box-a", [TIMES[5], TIMES[9], TIMES[6], TIMES[7]])
    other = project.writer("w-b")
    beats(other, "r2", "box-a", TIMES[:6])
    beats(other, "r2", "box-b", TIMES[3:8])
    beats(other, "r2", None, TIMES[2:4])
    return project


def heartbeat_lines(led: Ledger, writer: str) -> list[tuple[int, dict[str, Any]]]:
    segment = led.paths.segments / writer / "000000000000.jsonl"
    out, offset = [], 0
    for line in segment.read_bytes().split(b"\n")[:-1]:
        record = json.loads(line)
        if record["kind"] == HEARTBEAT:
            out.append((offset, record))
        offset += len(line) + 1
    return out


def test_only_the_latest_heartbeat_of_each_run_and_instance_is_read(tmp_path: Path) -> None:
    project = a_busy_run(tmp_path)
    led = project.first
    # r1 on box-a keeps two: the last in ledger time (TIMES[9], mid-chain) and the last in
    # the chain (TIMES[7]); every other (writer, run, instance) one
    thin = [e for e in load_events(led, latest_heartbeats=True) if e.kind == HEARTBEAT]
    assert sorted((e.writer, e.run or "", e.instance or "", e.ts) for e in thin) == [
        ("w-a", "r1", "box-a", TIMES[7]), ("w-a", "r1", "box-a", TIMES[9]),
        ("w-b", "r2", "", TIMES[3]), ("w-b", "r2", "box-a", TIMES[5]),
        ("w-b", "r2", "box-b", TIMES[7])]
    result = verify_run("r1", load_events(led, latest_heartbeats=True),
                        ObjectChecker(open_store(led)))
    assert any(f"run.heartbeat at {TIMES[9]}" in p for p in result.problems), result.problems
    assert_same_judgements(led)
    project.close()


def test_the_same_from_sealed_segments(tmp_path: Path) -> None:
    project = a_busy_run(tmp_path)
    led = project.first
    before = load_events(led, latest_heartbeats=True)
    assert compact(led.paths)
    assert load_events(led, latest_heartbeats=True) == before
    assert_same_judgements(led)
    project.close()


def test_the_evidence_projection_is_the_full_one(tmp_path: Path) -> None:
    project = a_busy_run(tmp_path)
    led = project.first
    full = build_evidence(led, events=load_events(led), checker=ObjectChecker(open_store(led)))
    assert full["claims"][0]["evidence"][0]["pull_verified"] is False
    assert evidence_document(led, locations=False) == full
    assert build_evidence(led) == full
    project.close()


def test_a_torn_final_line_is_skipped_as_by_the_full_read(tmp_path: Path) -> None:
    project = a_busy_run(tmp_path)
    led = project.first
    segment = led.paths.segments / "w-b" / "000000000000.jsonl"
    with segment.open("ab") as fh:
        fh.write(b'{"id":"00","v":1,"seq":99,"kind":"run.heartbeat"')  # never acknowledged
    assert_same_judgements(led)
    project.close()


# --- damage -------------------------------------------------------------------------------------
def damage_jsonl(led: Ledger, writer: str, offset: int, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` in the line at ``offset``: the line no longer verifies."""
    segment = led.paths.segments / writer / "000000000000.jsonl"
    data = bytearray(segment.read_bytes())
    end = data.index(b"\n", offset)
    at = data.index(old, offset, end)
    data[at:at + len(old)] = new
    os.chmod(segment, 0o644)
    segment.write_bytes(bytes(data))


def raised(read: Any) -> CorruptionError:
    with pytest.raises(CorruptionError) as caught:
        read()
    return caught.value


def assert_raises_as_the_full_read(led: Ledger) -> CorruptionError:
    want = raised(lambda: load_events(led))
    got = raised(lambda: load_events(led, latest_heartbeats=True))
    assert (str(got), got.segment, got.seq, got.offset, got.problem) == (
        str(want), want.segment, want.seq, want.offset, want.problem)
    return got


def test_a_damaged_latest_heartbeat_raises_as_today(tmp_path: Path) -> None:
    project = a_busy_run(tmp_path)
    led = project.first
    offset, _ = next((o, r) for o, r in heartbeat_lines(led, "w-a") if r["ts"] == TIMES[9])
    damage_jsonl(led, "w-a", offset, b'"step":', b'"stap":')
    error = assert_raises_as_the_full_read(led)
    assert error.offset == offset
    project.close()


def test_a_damaged_listing_raises_as_today(tmp_path: Path) -> None:
    project = a_busy_run(tmp_path)
    led = project.first
    segment = led.paths.segments / "w-a" / "000000000000.jsonl"
    data = segment.read_bytes()
    offset = data.rfind(b"\n", 0, data.index(b'"kind":"pull.listed"')) + 1
    damage_jsonl(led, "w-a", offset, b"dir:/data/r1", b"dir:/data/r9")
    assert assert_raises_as_the_full_read(led).offset == offset
    project.close()


def test_a_damaged_superseded_heartbeat_is_not_read(tmp_path: Path) -> None:
    """The documented trade: a beat a later one of its run and instance supersedes decides
    nothing and is not verified here; `labledger check` finds it."""
    project = a_busy_run(tmp_path)
    led = project.first
    offset, _ = next((o, r) for o, r in heartbeat_lines(led, "w-a") if r["ts"] == TIMES[2])
    damage_jsonl(led, "w-a", offset, b'"step":', b'"stap":')
    raised(lambda: load_events(led))
    thin = load_events(led, latest_heartbeats=True)
    assert TIMES[2] not in {e.ts for e in thin if e.kind == HEARTBEAT}
    assert [f.offset for f in check_ledger(led.paths).corrupt] == [offset]
    project.close()


def rewrite_sealed(segment: Path, change: Any) -> None:
    """Rewrite a sealed segment's table through ``change`` (a dict of columns -> new one)."""
    columns = pq.read_table(segment).to_pydict()
    change(columns)
    os.chmod(segment, stat.S_IRUSR | stat.S_IWUSR)
    pq.write_table(pa.table(columns, schema=pq.read_schema(segment)), segment)


def sealed_beats(folder: Path) -> tuple[Project, Path, dict[str, int]]:
    """The busy run sealed; the segment of w-a and, per time, the file row of r1's beat."""
    project = a_busy_run(folder)
    compact(project.first.paths)
    segment = project.first.paths.segments / "w-a" / "000000000000.parquet"
    table = pq.read_table(segment).to_pydict()
    rows = {ts: i for i, (k, ts) in enumerate(zip(table["kind"], table["ts"], strict=True))
            if k == HEARTBEAT}
    return project, segment, rows


def test_a_damaged_sealed_latest_heartbeat_raises_as_today(tmp_path: Path) -> None:
    project, segment, rows = sealed_beats(tmp_path)

    def damage(columns: dict[str, list[Any]]) -> None:
        row = rows[TIMES[9]]
        columns["record"][row] = columns["record"][row].replace('"step":', '"stap":')

    rewrite_sealed(segment, damage)
    assert "row " in assert_raises_as_the_full_read(project.first).problem
    project.close()


def test_a_sealed_column_that_lies_sends_the_writer_to_the_full_read(tmp_path: Path) -> None:
    """The ``ts`` column of r1's last beat in the chain says it is the newest of all: the pass
    selects it, finds its verified record says otherwise, and reads the writer as usual."""
    project, segment, rows = sealed_beats(tmp_path)
    led = project.first

    def damage(columns: dict[str, list[Any]]) -> None:
        columns["ts"][rows[TIMES[7]]] = TIMES[11]

    rewrite_sealed(segment, damage)
    writer = led.paths.segments / "w-a"
    assert list(iter_writer_records_latest(writer, HEARTBEAT)) == list(
        iter_writer_records(writer))
    assert_same_judgements(led)
    project.close()
