"""Event validation at the right depth: every entry point (emit, ingest, the Python API) refuses
what the ledger cannot mean, with the same words, and data already in a ledger keeps working.

* A run event (``run.*``, ``checkpoint.saved``) without a run would never show in the runs view:
  `make_draft` refuses it, so `Ledger.append`/`draft`/`append_batch`, `Ledger.ingest` and
  `labledger ingest` refuse it as `labledger emit` always did. Old ledgers that hold such events
  still read, check and compact.
* A JSON line of `labledger ingest` with a key given twice in one object (JSON readers keep the
  last) is refused, naming the line and the key, whichever path (the chunk-at-once fast path,
  its line-by-line fallback, the general path) the line takes.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger import _bulk
from labledger.ledger._fast_emit import BadData, loads_object, runless_problem
from labledger.ledger.check import check_ledger
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from labledger.ledger.query import run_query
from labledger.ledger.seal import compact
from labledger.ledger.segment import Draft

DIGEST = "blake3:" + "ab" * 32
BODIES: dict[str, dict[str, Any]] = {
    "run.launched": {"command": ["python", "train.py"]},
    "run.heartbeat": {"step": 1},
    "run.exited": {"exit_code": 0},
    "checkpoint.saved": {"path": "best.pth", "digest": DIGEST, "size": 1},
}
Snapshot = Callable[[Path], dict[str, bytes]]
RunCli = Callable[..., subprocess.CompletedProcess[str]]


def line(event: dict[str, Any]) -> bytes:
    return json.dumps(event).encode()


# --- 1: a run event needs a run, at every entry point ---------------------------------------------
@pytest.mark.parametrize("kind", sorted(BODIES))
def test_the_python_api_refuses_a_run_event_without_a_run(ledger: Ledger, project: Path,
                                                          snapshot: Snapshot, kind: str) -> None:
    before = snapshot(project)
    for attempt in (lambda: ledger.append(kind, **BODIES[kind]),
                    lambda: ledger.draft(kind, BODIES[kind]),
                    lambda: ledger.append_batch([{"kind": "note", "body": {"text": "x"}},
                                                 {"kind": kind, "body": BODIES[kind]}])):
        with pytest.raises(InvalidEventError) as info:
            attempt()
        assert info.value.problem == runless_problem(kind)
        assert (info.value.kind, info.value.field) == (kind, "run")
    assert info.value.line == 2  # append_batch names the event
    assert snapshot(project) == before
    ledger.append(kind, run="r1", **BODIES[kind])  # with its run it is taken


@pytest.mark.parametrize("kind", sorted(BODIES))
def test_ingest_refuses_a_run_event_without_a_run_naming_the_line(
        ledger: Ledger, project: Path, snapshot: Snapshot, kind: str) -> None:
    good = [line({"kind": kind, "run": "r1", "body": BODIES[kind]})] * 2
    data = b"\n".join([*good, line({"kind": kind, "body": BODIES[kind]}), *good]) + b"\n"
    before = snapshot(project)
    with pytest.raises(InvalidEventError) as info:
        ledger.ingest(data, source="in.jsonl")
    assert str(info.value) == (f"in.jsonl:3, event {kind!r}, field 'run': "
                               f"{runless_problem(kind)}; nothing was written")
    assert snapshot(project) == before  # all or nothing: the good lines are not written either
    # `"run": null` is no run either
    with pytest.raises(InvalidEventError, match="belongs to a run"):
        ledger.ingest(line({"kind": kind, "run": None, "body": BODIES[kind]}))
    assert snapshot(project) == before


def test_a_big_batch_refuses_a_runless_event_deep_inside(ledger: Ledger, project: Path,
                                                         snapshot: Snapshot) -> None:
    """The chunk-at-once path (many chunks) sends the line the general way, which refuses it."""
    lines = [b'{"kind":"run.heartbeat","run":"r1","body":{"step":%d}}' % i for i in range(3000)]
    lines[2500] = b'{"kind":"run.heartbeat","body":{"step":1}}'
    before = snapshot(project)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bulk, "CHUNK", 4096)
        with pytest.raises(InvalidEventError) as info:
            ledger.ingest(b"\n".join(lines) + b"\n")
    assert (info.value.line, info.value.field) == (2501, "run")
    assert snapshot(project) == before


def test_a_body_mistake_is_named_before_the_missing_run(ledger: Ledger) -> None:
    with pytest.raises(InvalidEventError) as info:
        ledger.ingest(b'{"kind":"run.exited","body":{"exit_code":1.5}}\n')
    assert info.value.field == "exit_code"


def test_every_entry_point_refuses_it_in_the_same_words(ledger: Ledger, project: Path,
                                                        run_cli: RunCli) -> None:
    (project / "in.jsonl").write_bytes(b'{"kind":"run.heartbeat","body":{"step":1}}\n')
    expected = f"{runless_problem('run.heartbeat')}; nothing was written"
    fast = run_cli("emit", "run.heartbeat", "--set", "step=1")  # the fast path defers to...
    full = run_cli("emit", "run.heartbeat", "--at", "2024-01-01T00:00:00Z", "--set",
                   "step=1")  # (--at: only the full CLI takes it)
    bulk = run_cli("ingest", "in.jsonl")
    for proc in (fast, full, bulk):
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.rstrip("\n").endswith(expected), proc.stderr
    assert "in.jsonl:1, event 'run.heartbeat', field 'run'" in bulk.stderr
    with pytest.raises(InvalidEventError) as info:
        ledger.append("run.heartbeat", step=1)
    assert str(info.value).endswith(expected)
    assert list(ledger.records()) == []


def test_a_ledger_that_already_holds_runless_run_events_still_works(
        ledger: Ledger, project: Path, run_cli: RunCli) -> None:
    """Events written before the rule (drafted by hand here: the bytes an old labledger wrote)
    are data: they read, verify, query, compact, and the ledger takes new events after them."""
    old = [Draft(kind=kind, body=json.dumps(body, separators=(",", ":")).encode(),
                 ts="2026-01-01T00:00:00.000000Z", actor="old@box", v=1)
           for kind, body in sorted(BODIES.items())]
    ledger.append_drafts(old)
    assert [(r.kind, r.run) for r in ledger.records()] == [(k, None) for k in sorted(BODIES)]
    assert check_ledger(ledger.paths).ok
    ledger.ingest(b'{"kind":"run.heartbeat","run":"r1","body":{"step":2}}\n')
    _, rows = run_query(ledger.paths, "select count(*) from events where run is null")
    assert rows[0][0] == len(BODIES)
    proc = run_cli("check")
    assert proc.returncode == 0, proc.stderr
    compact(ledger.paths)
    report = check_ledger(ledger.paths)
    assert report.ok, report.findings
    assert report.events == len(BODIES) + 1
    assert [r.run for r in Ledger.open(project).records()] == [None] * len(BODIES) + ["r1"]
    assert run_cli("log").returncode == 0


# --- 2: a key given twice -------------------------------------------------------------------------
TWICE = [
    # (line, the path of the key given twice)
    (b'{"kind":"note","kind":"note","body":{"text":"x"}}', "kind"),
    (b'{"kind":"run.heartbeat","run":"r1","body":{"step":1,"step":2}}', "body.step"),
    (b'{"kind":"run.heartbeat","run":"r1","run":"r2","body":{"step":1}}', "run"),
    (b'{"kind":"checkpoint.saved","run":"r1","body":{"path":"p","digest":"' + DIGEST.encode()
     + b'","size":1,"metrics":{"loss":1.0,"loss":2.0}}}', "body.metrics.loss"),
    (b'{"kind":"note","body":{"text":"x","extra":{"a":[{"b":1,"b":1}]}}}', "body.extra.a[0].b"),
    (b'{"kind":"note","body":{"text":"x","extra":{"a":1,"\\u0061":1}}}', "body.extra.a"),
    (b'{"kind": "note", "body": {"text": "x", "text" : "y"}}', "body.text"),
    (b'{"kind":"note","body":{"text":"x"},"body":{"text":"y"}}', "body"),
    (b'{"kind":"nope","kind":"note","body":{"text":"y"}}', "kind"),  # would decode as a note
    (b'{"kind":"pull.listed","run":"r1","body":{"source":"s","entries":[{"path":"a",'
     b'"path":"b"}]}}', "body.entries[0].path"),
]


@pytest.mark.parametrize(("data", "path"), TWICE)
def test_ingest_refuses_a_key_given_twice_naming_line_and_key(
        ledger: Ledger, project: Path, snapshot: Snapshot, run_cli: RunCli, data: bytes,
        path: str) -> None:
    good = b'{"kind":"note","body":{"text":"fine"}}'
    (project / "in.jsonl").write_bytes(b"\n".join([good, good, data, good]) + b"\n")
    before = snapshot(project)
    proc = run_cli("ingest", "in.jsonl")
    assert proc.returncode == 2, proc.stderr
    key = path.rsplit(".", 1)[-1].split("[")[0]
    assert proc.stderr == (f"labledger: error: in.jsonl:3, field {path!r}: key {key!r} is given "
                           "twice in one object (a JSON reader would keep only the last); give "
                           "each key once; nothing was written\n")
    assert snapshot(project) == before


def test_a_key_given_twice_is_a_line_error_and_outranks_an_earlier_body_error(
        ledger: Ledger) -> None:
    data = (b'{"kind":"note","body":{"text":1}}\n'  # a body error: reported only if...
            b'{"kind":"note","body":{"text":"a","text":"b"}}\n')  # ...no line fails to decode
    with pytest.raises(InvalidEventError) as info:
        ledger.ingest(data)
    assert (info.value.line, info.value.field) == (2, "body.text")


@pytest.mark.parametrize("other", [
    b'{"kind":"run.heartbeat","run":"r1"}',  # no body: one colon fewer than counted
    b'{"kind":"note","body":{"text":"a\\u003ab"}}',  # an escaped colon: one more decoded
    b'{"kind":"note","body":{"text":"a\\"b"}}',  # an escaped quote
    b'{"kind":"note","run":null,"body":{"text":"a"}}',  # null: one colon more than decoded
    b'{"kind":"note","body":{"text":"a:b:c"},"at":"2024-01-01T00:00:00Z"}',
])
@pytest.mark.parametrize("chunk", [4096, 1 << 22])
def test_the_chunk_check_cannot_be_balanced_by_another_line(
        ledger: Ledger, project: Path, snapshot: Snapshot, other: bytes, chunk: int) -> None:
    """The fast path compares colon counts summed over a chunk: a line that decodes to more
    colons than it holds must not hide a line that holds a key twice (one colon too many)."""
    lines = [b'{"kind":"note","body":{"text":"t%d"}}' % i for i in range(200)]
    lines[50] = other
    lines[120] = b'{"kind":"note","body":{"text":"x","extra":{"k":1,"k":1}}}'
    before = snapshot(project)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bulk, "CHUNK", chunk)
        with pytest.raises(InvalidEventError) as info:
            ledger.ingest(b"\n".join(lines) + b"\n")
        assert (info.value.line, info.value.field) == (121, "body.extra.k")
        assert snapshot(project) == before
        lines[120] = b'{"kind":"note","body":{"text":"x","extra":{"k":1,"j":1}}}'
        assert ledger.ingest(b"\n".join(lines) + b"\n").appended == 200


def test_a_key_given_twice_in_a_big_batch_is_found_in_every_chunk(ledger: Ledger) -> None:
    lines = [b'{"kind":"run.heartbeat","run":"r%d","body":{"step":%d,"pid":7}}' % (i % 5, i)
             for i in range(5000)]
    for number in (1, 2345, 5000):
        bad = list(lines)
        bad[number - 1] = bad[number - 1].replace(b'"pid":7', b'"pid":7,"pid":8')
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_bulk, "CHUNK", 8192)
            with pytest.raises(InvalidEventError) as info:
                ledger.ingest(b"\n".join(bad) + b"\n")
        assert (info.value.line, info.value.field) == (number, "body.pid")
    assert list(ledger.records()) == []


# --- property: any object with a key twice is refused, any without is taken -----------------------
_keys = st.sampled_from(["a", "b", "k", "step", "text", "é", "a:b", 'q"', "s\\", " ", ""])
_leaf = (st.integers(-(2**63), 2**63 - 1) | st.booleans()
         | st.floats(allow_nan=False, allow_infinity=False)
         | st.text(st.sampled_from('ab:"\\ é\n{}'), max_size=4))
_tree = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(_keys, inner, max_size=3), max_leaves=8)


def _spell(key: str, escaped: bool) -> str:
    """A JSON string for ``key``; ``escaped`` spells every character as a \\u escape."""
    if escaped:
        return '"' + "".join(f"\\u{ord(c):04x}" for c in key) + '"'
    return json.dumps(key, ensure_ascii=False)


def _write(value: Any, twice: list[int], draw: st.DrawFn, spaced: bool) -> str:
    """``value`` as JSON text; the object numbered ``twice[0]`` (counting as they are written)
    gets one of its keys a second time (``twice[0]`` is then set to -1)."""
    colon, comma = (" : ", " , ") if spaced else (":", ",")
    if isinstance(value, dict):
        members = [[k, _write(v, twice, draw, spaced), False] for k, v in value.items()]
        twice[1] += 1
        if twice[1] == twice[0] and members:
            again = list(draw(st.sampled_from(members)))
            again[1] = _write(draw(_leaf), [-1, 0], draw, spaced)
            again[2] = draw(st.booleans())  # the same key, maybe spelled otherwise
            members.insert(draw(st.integers(0, len(members))), again)
            twice[0] = -1
        return "{" + comma.join(_spell(k, esc) + colon + v for k, v, esc in members) + "}"
    if isinstance(value, list):
        return "[" + comma.join(_write(v, twice, draw, spaced) for v in value) + "]"
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


@st.composite
def event_text(draw: st.DrawFn) -> tuple[str, bool]:
    """(a note event's JSON line, whether some object in it has a key twice)."""
    event = {"kind": "note", "body": {"text": draw(st.text(max_size=3)),
                                      "extra": {"x": draw(_tree)}}}
    if draw(st.booleans()):
        event["run"] = "r1"
    # the object (numbered as `_write` finishes them, 1 up) that gets a key twice; 0: none
    target = draw(st.integers(0, _count_objects(event))) if draw(st.booleans()) else 0
    state = [target if target > 0 else -1, 0]
    text = _write(event, state, draw, draw(st.booleans()))
    return text, state[0] == -1 and target > 0


def _count_objects(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_count_objects(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count_objects(v) for v in value)
    return 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.lists(event_text(), min_size=1, max_size=5), st.sampled_from([64, 1 << 22]))
def test_any_object_with_a_key_twice_is_refused_and_any_without_is_taken(
        events: list[tuple[str, bool]], chunk: int) -> None:
    data = "\n".join(text for text, _ in events).encode() + b"\n"
    first_twice = next((i + 1 for i, (_, twice) in enumerate(events) if twice), None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bulk, "CHUNK", chunk)
        if first_twice is None:
            assert len(_bulk.parse_lines(data, actor="me@here")) == len(events)
        else:
            with pytest.raises(InvalidEventError, match="is given twice in one object") as info:
                _bulk.parse_lines(data, actor="me@here")
            assert info.value.line == first_twice
    # emit --data reads with the same rule (its fast path and the full CLI share loads_object)
    for text, twice in events:
        if twice:
            with pytest.raises(BadData, match="given twice"):
                loads_object(text)
        else:
            assert loads_object(text) == json.loads(text)
