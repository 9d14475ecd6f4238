"""`Ledger.ingest` (what `labledger ingest` runs): the old decode-then-`append_batch` path, faster.

Differential: with the clock fixed, ingesting a JSON-lines batch writes the very bytes the general
path writes for it (decode every line into an `EventInput`, `draft` each, one `append_drafts`),
and refuses exactly what it refuses, with the same message: the fast typed decode in
`labledger.ledger._bulk` is only a shortcut for lines it can prove valid.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger import _bulk
from labledger.ledger import events as ev
from labledger.ledger.check import check_ledger
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import EventInput, Ledger, event_input_problem
from labledger.ledger.root import Config, render_config

NOW = "2026-01-02T03:04:05.000006Z"
DIGEST = "blake3:" + "ab" * 32
Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ev, "now_ts", lambda: NOW)


def reference(ledger: Ledger, data: bytes, source: str | None = None) -> int:
    """What `labledger ingest` did before `_bulk`: decode all lines, then draft, then append."""
    decoder = msgspec.json.Decoder(EventInput)
    try:
        data.decode("utf-8")
        all_utf8 = True
    except UnicodeDecodeError:
        all_utf8 = False
    items = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        if not all_utf8:
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidEventError(f"invalid UTF-8 at byte {exc.start}", line=number,
                                        source=source) from None
        try:
            item = decoder.decode(line)
        except msgspec.ValidationError as exc:
            invalid: msgspec.ValidationError | None = exc
        except msgspec.DecodeError as exc:  # in the words ingest uses (a BOM, a lone surrogate)
            raise InvalidEventError(_bulk._not_json(line, number, exc), line=number,
                                    source=source) from None
        else:
            invalid = None
        twice = _bulk.duplicate_key(line)  # every line, checked exactly
        if twice is not None:
            raise InvalidEventError(_bulk.twice_problem(twice[1]), field=twice[0], line=number,
                                    source=source)
        if invalid is not None:
            # in the words ingest uses (what an event line holds, when its envelope is wrong)
            raise InvalidEventError(event_input_problem(invalid), line=number,
                                    source=source) from None
        items.append((number, item))
    drafts = []
    for number, e in items:
        try:
            drafts.append(ledger.draft(e.kind, e.body, run=e.run, instance=e.instance, at=e.at,
                                       actor=e.actor))
        except InvalidEventError as exc:
            raise InvalidEventError(exc.problem, kind=exc.kind, field=exc.field, line=number,
                                    source=source) from None
    return len(ledger.append_drafts(drafts))


def outcome(run: Callable[[Ledger], Any], root: Path) -> tuple[str, object]:
    """('ok', every file of the ledger) or ('error', the message): one fresh ledger per call."""
    ledger = Ledger.init(root)
    try:
        run(ledger)
    except InvalidEventError as exc:
        return "error", str(exc)
    finally:
        ledger.close()
    return "ok", {str(p.relative_to(root)): p.read_bytes()
                  for p in sorted((root / ".labledger").rglob("*")) if p.is_file()}


def both(data: bytes, *, parallel: bool = False
         ) -> tuple[tuple[str, object], tuple[str, object]]:
    def ingest(led: Ledger) -> None:
        if parallel:  # what the CLI runs: the second half parsed in a forked child
            led.append_parsed(_bulk.parse_lines(data, actor=led.actor, source="in.jsonl",
                                                parallel=True))
        else:
            led.ingest(data, source="in.jsonl")

    with tempfile.TemporaryDirectory() as tmp:
        new = outcome(ingest, Path(tmp) / "new")
        old = outcome(lambda led: reference(led, data, source="in.jsonl"), Path(tmp) / "old")
    return new, old


# --- differential ---------------------------------------------------------------------------------
_text = st.sampled_from(["", "x", "best", "ünï ✓", "a b", "r1", "\n\"\\", "%s%d", "null",
                         "blake3:" + "a" * 64, "a" * 64, "p" * 257, "latest", "file"])
_scalar = (_text | st.integers(-(2**70), 2**70) | st.booleans() | st.none()
           | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.1234, 31.42]))
_value = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(_text, inner, max_size=3), max_leaves=5)
_GOOD_BODIES: dict[str, list[dict[str, Any]]] = {
    "run.heartbeat": [{"pid": 4242, "step": 100}, {}],
    "checkpoint.saved": [{"path": "ckpt/s.pth", "digest": DIGEST, "size": 12, "step": 5,
                          "role": "latest", "metrics": {"loss": 0.1234, "psnr": 31}}],
    "run.launched": [{"command": ["python", "train.py"], "cwd": "/w", "pid": 1,
                      "git_dirty": False, "gpus": ["H100"], "env": {"A": "b"}}],
    "run.exited": [{"exit_code": 0, "duration_s": 3600.5}],
    "note": [{"text": "x"}, {"text": "x", "extra": {"k": [1, None, {"n": 2.5}]}}],
    "pull.listed": [{"source": "s", "entries": [{"path": "a", "size": 3}]}],
    "instance.rented": [{"profile": "p", "spot": False, "price_per_hour": 1.5}],
}


@st.composite
def event_line(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from([*_GOOD_BODIES, "nope", "claim.declared", "artifact.recorded"]))
    body: Any = dict(draw(st.sampled_from(_GOOD_BODIES.get(kind, [{}]))))
    if draw(st.integers(0, 3)) == 0:  # change, add or drop one member
        if body and draw(st.booleans()):
            del body[draw(st.sampled_from(sorted(body)))]
        else:
            names = [*ev.KINDS[kind].__struct_fields__] if kind in ev.KINDS else ["text"]
            body[draw(st.sampled_from([*names, "colour"]))] = draw(_value)
    if draw(st.integers(0, 30)) == 0:
        body = draw(_value)  # not even an object
    event: dict[str, Any] = {"kind": kind, "body": body}
    if kind.startswith("run.") or kind == "checkpoint.saved":  # mostly with the run they need
        event["run"] = "run-000001"
    for name, choices in (("run", ["r1", "run-000001", "bad run", "r" * 257, "", None]),
                          ("instance", ["box-1", "../etc", None]),
                          ("at", ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00+01:00",
                                  "2024-01-01T00:00:00", "soon"]),
                          ("actor", ["agent@laptop", "", None])):
        if draw(st.integers(0, 5)) == 0:
            event[name] = draw(st.sampled_from(choices))
    if draw(st.integers(0, 30)) == 0:
        event["colour"] = "red"
    if draw(st.integers(0, 30)) == 0:
        del event["kind"]
    style = draw(st.integers(0, 2))
    line = (msgspec.json.encode(event) if style == 0 and not _non_finite(event)
            else json.dumps(event, ensure_ascii=style == 1).encode())
    mutation = draw(st.integers(0, 40))
    if mutation == 0:
        line = line.replace(b'"x"', b'"\\ud800"')  # a lone surrogate
    elif mutation == 1:
        line = line.replace(b"3600.5", b"1e400")  # out of range
    elif mutation == 2:
        line = line.replace(b'"x"', b'"caf\xe9"')  # not UTF-8
    elif mutation == 3:
        line = line[:-1]  # truncated
    elif mutation == 4:
        line = b"  " + line + b"\r"
    elif mutation == 5:
        line = line + b' {"kind": "note"}'
    elif mutation == 6:
        line = line.replace(b'"step"', b'"step": 1, "step"')  # a duplicate member
    return line


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return False


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(event_line() | st.sampled_from([b"", b"   ", b"\t"]), max_size=6))
def test_ingest_writes_and_refuses_exactly_what_the_general_path_does(lines: list[bytes]
                                                                      ) -> None:
    data = b"\n".join(lines) + b"\n"
    new, old = both(data)
    assert new == old


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(event_line() | st.sampled_from([b"", b"   "]), min_size=2, max_size=8))
def test_parsing_in_two_processes_changes_nothing(lines: list[bytes]) -> None:
    data = b"\n".join(lines) + b"\n"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bulk, "PARALLEL_MIN", 0)  # split even the smallest input
        new, old = both(data, parallel=True)
    assert new == old


ERRORS_ACROSS_HALVES = [
    # (first half, second half, line and words of the error): which error wins
    ([b'{"kind":"note","body":{"text":1}}'], [b'not json'], 2, "not a JSON event"),
    ([b'not json'], [b'{"kind":"note","body":{"text":1}}'], 1, "not a JSON event"),
    ([b'not json'], [b'{"kind":"note","body":{"text":1}}', b"[]"], 1, "not a JSON event"),
    ([b'{"kind":"note","body":{"text":1}}'], [b'{"kind":"note","body":{}}'], 1, "`str`"),
    ([b'{"kind":"note","body":{"text":"a"}}'], [b'{"kind":"note","body":{}}', b"[]"], 3,
     "Expected `object`"),
    ([b'{"kind":"note","body":{"text":"a"}}'], [b'{"kind":"note","body":{"text":2}}'], 2,
     "`str`"),
    ([b'{"kind":"note","body":{"text":"a"}}'] * 3, [b"", b'{"kind":"note","body":{"text":2}}'],
     5, "`str`"),
]


@pytest.mark.parametrize(("first", "second", "line", "words"), ERRORS_ACROSS_HALVES)
def test_errors_across_the_two_halves_keep_their_precedence(
    monkeypatch: pytest.MonkeyPatch, first: list[bytes], second: list[bytes], line: int,
    words: str,
) -> None:
    monkeypatch.setattr(_bulk, "PARALLEL_MIN", 0)
    tail = b"\n".join(second) + b"\n"
    # Trailing spaces (JSON whitespace) put the middle of the input in the first part's last line.
    spaces = b" " * (len(b"\n".join(first[:-1])) + len(tail) + 4)
    head = b"\n".join([*first[:-1], first[-1] + spaces])
    data = head + b"\n" + tail
    assert data.find(b"\n", len(data) // 2) == len(head)  # the split falls between the parts
    _, old = both(data)
    new = both(data, parallel=True)[0]
    assert new == old
    assert new[0] == "error"
    assert str(new[1]).startswith(f"in.jsonl:{line}")
    assert words in str(new[1])


def test_a_child_that_dies_leaves_its_half_to_the_parent(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(_bulk, "PARALLEL_MIN", 0)
    real = _bulk._parse_range
    parent = __import__("os").getpid()

    def dying(*args: Any) -> Any:
        if __import__("os").getpid() != parent:
            raise MemoryError  # the child: it exits 1 without an answer
        return real(*args)

    monkeypatch.setattr(_bulk, "_parse_range", dying)
    data = b"".join(b'{"kind":"note","body":{"text":"t%d"}}\n' % i for i in range(50))
    new, old = both(data, parallel=True)
    assert new[0] == "ok"
    assert new == old


def test_realistic_batch_is_byte_identical_to_the_general_path() -> None:
    events = []
    for r in range(3):
        run = f"run-{r:06d}"
        events.append({"kind": "run.launched", "run": run, "instance": f"box-{r}",
                       "body": {"command": ["python", "train.py"], "host": "gpu", "pid": 4242,
                                "git_commit": f"{r:040x}", "git_dirty": False, "gpus": ["H"]}})
        for i in range(1, 60):
            if i % 5 == 0:
                events.append({"kind": "checkpoint.saved", "run": run,
                               "body": {"path": f"ckpt/{i}.pth", "digest": DIGEST,
                                        "size": 1_234_567_890, "step": i, "role": "latest",
                                        "metrics": {"loss": 0.1234, "psnr": 31.42}}})
            else:
                events.append({"kind": "run.heartbeat", "run": run,
                               "body": {"pid": 4242, "step": i * 100}})
        events.append({"kind": "run.exited", "run": run, "body": {"exit_code": 0,
                                                                   "duration_s": 3600.5}})
    events.append({"kind": "note", "body": {"text": "ünïcode ✓"}, "at": "2024-01-01T00:00:00Z",
                   "actor": "agent@laptop"})
    events.append({"kind": "pull.listed", "body": {"source": "s", "entries": [{"path": "a"}]}})
    events.append({"kind": "note", "body": {"text": "n", "extra": {"none": None}}})
    data = b"".join(msgspec.json.encode(e) + b"\n" for e in events)
    new, old = both(data)
    assert new[0] == "ok"
    assert new == old
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bulk, "PARALLEL_MIN", 0)
        assert both(data, parallel=True)[0] == old


# --- the batch on disk ----------------------------------------------------------------------------
def _segments(ledger: Ledger) -> list[Path]:
    return sorted((ledger.paths.segments / ledger.writer).glob("*.jsonl"))


def test_big_batch_round_trips(ledger: Ledger) -> None:
    ledger.append("note", text="history")
    n = 30_000
    data = b"".join(b'{"kind":"run.heartbeat","run":"r%d","body":{"step":%d}}\n' % (i % 7, i)
                    for i in range(n))
    done = ledger.ingest(data)
    assert (done.appended, done.first_seq, done.last_seq) == (n, 1, n)
    records = list(ledger.records())
    assert [r.seq for r in records] == list(range(n + 1))
    assert [r.body_dict()["step"] for r in records[1:]] == list(range(n))
    assert [r.more for r in records[1:]] == [True] * (n - 1) + [False]
    assert all(r.ts == NOW and r.recorded is None for r in records[1:])
    assert records[-1].id == done.last_id
    assert check_ledger(ledger.paths).ok
    assert ledger.append("note", text="after").seq == n + 1


def test_a_batch_larger_than_a_segment_stays_in_one_segment(project: Path) -> None:
    led = Ledger.init(project)
    led.paths.config.write_text(render_config(Config(segment_max_events=3)), encoding="utf-8")
    led = Ledger.open(project)
    led.append("note", text="first")
    led.ingest(b"".join(b'{"kind":"note","body":{"text":"b%d"}}\n' % i for i in range(5)))
    assert [p.read_bytes().count(b"\n") for p in _segments(led)] == [6]
    led.ingest(b'{"kind":"note","body":{"text":"next"}}\n')
    assert [p.read_bytes().count(b"\n") for p in _segments(led)] == [6, 1]
    assert check_ledger(led.paths).ok


def test_empty_input_appends_nothing(ledger: Ledger) -> None:
    done = ledger.ingest(b"\n  \n")
    assert (done.appended, done.first_seq, done.last_seq) == (0, None, None)
    assert _segments(ledger) == []


def test_another_writer_between_validation_and_append_is_chained(ledger: Ledger) -> None:
    batch = _bulk.parse_lines(b'{"kind":"note","body":{"text":"a"}}\n'
                              b'{"kind":"note","body":{"text":"b"}}\n', actor=ledger.actor)
    other = Ledger.open(ledger.paths.project)
    between = other.append("note", text="meanwhile")
    other.close()
    done = ledger.append_parsed(batch)
    assert done.first_seq == 1
    records = list(ledger.records())
    assert [r.prev for r in records] == [None, between.id, records[1].id]
    assert check_ledger(ledger.paths).ok


# --- refusals -------------------------------------------------------------------------------------
BAD_LAST_LINES: list[tuple[bytes, str | None, str]] = [
    (b'{"kind": "nope", "body": {}}', None, "unknown event kind 'nope'"),
    (b'{"kind": "note", "body": {}}', None, "missing required field `text`"),
    (b'{"kind": "note", "body": {"text": 1}}', "text", "Expected `str`, got `int`"),
    (b'{"kind": "note", "body": {"text": "x", "colour": 1}}', "colour", "unknown field colour"),
    (b'{"kind": "pull.listed", "body": {"source": "s", "entries": [{"path": "a", "c": 1}]}}',
     "entries[0].c", "unknown field 'c'"),
    (b'{"kind": "note", "body": {"text": "x"}, "colour": 1}', None, "colour"),
    (b'{"kind": "note", "body": {"text": "x"}, "run": "a b"}', "run", "not a valid run id"),
    (b'{"kind": "note", "body": {"text": "x"}, "at": "2024-01-01T00:00:00"}', "at",
     "no timezone"),
    (b'{"kind": "run.exited", "body": {"duration_s": 1e400}}', None, "Number out of range"),
    (b'{"kind": "run.exited", "body": {"duration_s": NaN}}', None, "not a JSON event"),
    (b'{"kind": "checkpoint.saved", "body": {"path": "p", "digest": "blake3:x", "size": 1}}',
     "digest", "blake3"),
    (b'{"kind": "note", "body": {"text": "' + b"y" * ev.MAX_BODY_BYTES + b'"}}', None,
     "over the 65536-byte limit"),
    (b'{"kind": "note", "body": {"text": "caf\xe9"}}', None, "invalid UTF-8 at byte"),
    (b'{"kind": "note", "body": {"text": "\\ud800"}}', None, "not a JSON event"),
    (b'{"kind": "note", "body": {"text": "x"}', None, "not a JSON event"),
    (b"[1, 2]", None, "Expected `object`"),
]


@pytest.mark.parametrize(("bad", "field", "words"), BAD_LAST_LINES)
def test_a_bad_line_at_the_end_of_a_big_batch_leaves_the_ledger_unchanged(
    ledger: Ledger, snapshot: Snapshot, bad: bytes, field: str | None, words: str,
) -> None:
    ledger.append("note", text="history")
    good = b"".join(b'{"kind":"run.heartbeat","run":"r1","body":{"step":%d}}\n' % i
                    for i in range(20_000))
    before = snapshot(ledger.paths.home)
    with pytest.raises(InvalidEventError) as info:
        ledger.ingest(good + bad + b"\n", source="big.jsonl")
    assert info.value.line == 20_001
    assert info.value.field == field
    assert str(info.value).startswith("big.jsonl:20001")
    assert words in str(info.value)
    assert str(info.value).endswith("nothing was written")
    assert snapshot(ledger.paths.home) == before


def test_lines_are_numbered_in_the_input_blank_lines_included(ledger: Ledger) -> None:
    data = b'\n{"kind":"note","body":{"text":"a"}}\n\n   \n{"kind":"note","body":{"text":2}}\n'
    with pytest.raises(InvalidEventError) as info:
        ledger.ingest(data)
    assert (info.value.line, info.value.field) == (5, "text")
    assert str(info.value).startswith("<input>:5, event 'note', field 'text'")


def test_a_line_that_does_not_decode_is_reported_before_an_earlier_body_error(
    ledger: Ledger,
) -> None:
    """As when every line was decoded before any body was validated."""
    data = (b'{"kind":"note","body":{"text":2}}\n' + b'{"kind":"note","body":{"text":"a"}}\n' * 3
            + b'{"kind":"note","body":{"text":"x"}, "colour": 1}\n'
            + b'{"kind":"note","body":{}}\n')
    with pytest.raises(InvalidEventError) as info:
        ledger.ingest(data)
    assert info.value.line == 5
    assert "colour" in str(info.value)


def test_the_first_body_error_wins_when_every_line_decodes(ledger: Ledger) -> None:
    data = (b'{"kind":"note","body":{"text":"a"}}\n{"kind":"note","body":{"txt":"a"}}\n'
            b'{"kind":"note","body":{"text":3}}\n')
    with pytest.raises(InvalidEventError) as info:
        ledger.ingest(data)
    assert (info.value.line, info.value.field) == (2, "txt")


def test_strict_decoders_cover_every_kind_without_nested_structs() -> None:
    decoders = _bulk._decoders()
    # pull.listed nests structs; instance.rented's profile_snapshot is free-form (like extra,
    # which _parse_range checks itself): both take the general path.
    assert set(decoders) == set(ev.KINDS) - {"pull.listed", "instance.rented"}
    with pytest.raises(msgspec.DecodeError):
        decoders["note"].decode(b'{"text": "x", "colour": 1}')
    with pytest.raises(msgspec.DecodeError):
        decoders["pull.listed"].decode(b"{}")  # not taken: the general path checks it


# --- progress -------------------------------------------------------------------------------------
@pytest.mark.parametrize("count", [1, 2, 3, 4, _bulk._RENDER_BLOCK + 3])
def test_progress_counts_every_byte_and_record_once_and_changes_no_byte(
    count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`labledger ingest`'s bar is fed by these callbacks: bytes validated add up to the input,
    records rendered to the batch, in one process or two, and the bytes written are the same."""
    monkeypatch.setattr(_bulk, "CHUNK", 64)  # many chunks from a small input
    data = b"".join(b'{"kind":"run.heartbeat","run":"r%d","body":{"step":%d}}\n' % (i % 3, i)
                    for i in range(count))
    for parallel in (False, True):
        monkeypatch.setattr(_bulk, "PARALLEL_MIN", 0 if parallel else 1 << 40)
        seen: list[int] = []
        batch = _bulk.parse_lines(data, actor="me@here", parallel=parallel, progress=seen.append)
        assert len(batch) == count
        total = sum(seen)
        # in two processes this one's half stands for the whole: within a line of the input
        assert total == len(data) if not parallel or count == 1 else \
            abs(total - len(data)) <= 2 * len(data) // count + 2, (parallel, total, len(data))
        rendered: list[int] = []
        with_bar = batch.render(7, None, "w", progress=rendered.append)
        assert sum(rendered) == count
        assert with_bar == batch.render(7, None, "w")


def test_a_lone_surrogate_after_a_good_line_is_refused_in_the_same_words() -> None:
    """Found by Hypothesis in CI: the general path's reference said msgspec's "Input data was
    truncated" where ingest names the lone surrogate; both now say what is wrong."""
    lines = [b'{"kind":"note","body":{"text":"fine"}}', b'{"body":{"text":"\\ud800"}}']
    new, old = both(b"\n".join(lines) + b"\n")
    assert new == old
    assert new[0] == "error"
    assert "in.jsonl:2: not a JSON event (invalid text: a lone surrogate" in str(new[1])
