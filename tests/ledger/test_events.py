"""Event kinds: round-trip of every body type, the upcaster hook, timestamps and JSON Schemas.

The body strategies are derived from each struct's annotations (``msgspec.inspect``), so a kind
added to ``KINDS`` is covered here without touching this file.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger import events as ev
from labledger.ledger._fast_emit import needs_run
from labledger.ledger.check import check_ledger
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record, encode_record, verify_line
from labledger.ledger.segment import list_segments

FIXTURE_SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
INT64 = (-(2**63), 2**63 - 1)

# --- strategies from type annotations ------------------------------------------------------------
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(*INT64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=8,
)


def strategy_for(t: mi.Type) -> st.SearchStrategy[Any]:
    """A strategy of *typed* values (structs as instances) satisfying every constraint of ``t``."""
    if isinstance(t, mi.StrType):
        lo, hi = t.min_length or 0, t.max_length
        if t.pattern is not None:
            pattern = st.from_regex(t.pattern, fullmatch=True)
            return pattern.filter(lambda s: lo <= len(s) and (hi is None or len(s) <= hi))
        return st.text(min_size=lo, max_size=hi if hi is not None else max(lo, 30))
    if isinstance(t, mi.IntType):
        lo = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else INT64[0])
        hi = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else INT64[1])
        return st.integers(lo, hi)
    if isinstance(t, mi.FloatType):
        return st.floats(
            min_value=t.ge if t.ge is not None else t.gt,
            max_value=t.le if t.le is not None else t.lt,
            exclude_min=t.gt is not None, exclude_max=t.lt is not None,
            allow_nan=False, allow_infinity=False,
        )
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(t.values)
    if isinstance(t, mi.UnionType):
        return st.one_of([strategy_for(member) for member in t.types])
    if isinstance(t, mi.ListType):
        return st.lists(strategy_for(t.item_type), min_size=t.min_length or 0,
                        max_size=t.max_length if t.max_length is not None else 4)
    if isinstance(t, mi.DictType):
        return st.dictionaries(strategy_for(t.key_type), strategy_for(t.value_type), max_size=4)
    if isinstance(t, mi.AnyType):
        return json_values
    if isinstance(t, mi.StructType):
        return struct_strategy(t)
    raise NotImplementedError(f"no strategy for {t!r}: teach tests/ledger/test_events.py about it")


def struct_strategy(info: mi.StructType) -> st.SearchStrategy[Any]:
    required = {f.name: strategy_for(f.type) for f in info.fields if f.required}
    optional = {f.name: strategy_for(f.type) for f in info.fields if not f.required}
    cls = info.cls
    return st.fixed_dictionaries(required, optional=optional).map(lambda kw: cls(**kw))


def body_strategy(kind: str) -> st.SearchStrategy[Any]:
    info = mi.type_info(ev.KINDS[kind])
    assert isinstance(info, mi.StructType)
    return struct_strategy(info)


# --- helpers -------------------------------------------------------------------------------------
def segment_lines(led: Ledger) -> Iterator[bytes]:
    for segment in list_segments(led.paths.segments / led.writer):
        yield from segment.read_bytes().splitlines()


def last_record(led: Ledger) -> Record:
    *_, record = led.records()
    return record


# --- round trip ----------------------------------------------------------------------------------
API_KEYWORDS = {"kind", "run", "instance", "at"}


def test_body_fields_never_shadow_append_keywords() -> None:
    """`Ledger.append(kind, run=, instance=, at=, **body)` needs body names distinct from these."""
    for kind, cls in ev.KINDS.items():
        assert not API_KEYWORDS & set(cls.__struct_fields__), kind


def test_strategies_cover_every_kind() -> None:
    """Building a strategy fails loudly for a kind with a type this module does not know."""
    for kind in ev.KINDS:
        body_strategy(kind).validate()


@pytest.mark.parametrize("kind", sorted(ev.KINDS))
@FIXTURE_SETTINGS
@given(data=st.data())
def test_every_kind_round_trips(ledger: Ledger, kind: str, data: st.DataObject) -> None:
    typed = data.draw(body_strategy(kind), label="body")
    ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,40}", fullmatch=True)
    # a run event without a run is refused (tests/ledger/test_validation_depth.py)
    run = data.draw(ids if needs_run(kind) else st.none() | ids, label="run")
    body = msgspec.to_builtins(typed)
    before = list(ledger.records())

    written = ledger.append(kind, run=run, **body)

    read = last_record(ledger)
    assert read == written
    assert (read.kind, read.run, read.v) == (kind, run, ev.SCHEMA_VERSION)
    decoded = ev.decode_body(read.kind, read.v, read.body)
    assert type(decoded) is ev.KINDS[kind]
    assert decoded == typed
    assert read.body_dict() == json.loads(msgspec.json.encode(typed))
    # the stored line verifies against its own id and decodes to the same record
    *_, line = segment_lines(ledger)
    assert verify_line(line) == written
    # it extends the chain, and the whole ledger still verifies
    assert written.seq == len(before)
    assert written.prev == (before[-1].id if before else None)
    report = check_ledger(ledger.paths)
    assert report.ok, report.findings
    assert report.events == len(before) + 1


@FIXTURE_SETTINGS
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
       | st.sampled_from(['"', "\\", "\x00", "\n\r\t", "\u2028\u2029", '{"id":"x"}\n', "\ufeff",
                          "\U0001f600", "é" * 1000, "\x7f\x1b[31m"]))
def test_note_text_survives_any_unicode(ledger: Ledger, text: str) -> None:
    written = ledger.append("note", text=text)
    read = last_record(ledger)
    assert read == written
    body = ev.decode_body(read.kind, read.v, read.body)
    assert isinstance(body, ev.Note)
    assert body.text == text
    *_, line = segment_lines(ledger)
    assert b"\n" not in line  # one record, one line, whatever the text holds
    verify_line(line)


VALID_ID = r"[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,255}"


@FIXTURE_SETTINGS
@given(run=st.from_regex(VALID_ID, fullmatch=True)
       | st.sampled_from(["a" * 256, "0", "Z" + "-" * 255, "r.1:2@h+x=y"]),
       instance=st.none() | st.from_regex(VALID_ID, fullmatch=True))
def test_valid_run_and_instance_ids_up_to_256_chars(ledger: Ledger, run: str,
                                                    instance: str | None) -> None:
    written = ledger.append("note", text="t", run=run, instance=instance)
    assert (written.run, written.instance) == (run, instance)
    assert last_record(ledger) == written


@FIXTURE_SETTINGS
@given(run=st.sampled_from(["a" * 257, "", ".r", "-r", "r 1", "r/1", "r1\n", "\nr1", "r\x00",
                            "ŕ", "r\t"])
       | st.from_regex(VALID_ID, fullmatch=True).map(lambda s: s + "/")
       | st.text(alphabet="abc", min_size=257, max_size=400))
def test_invalid_run_ids_are_refused(ledger: Ledger, snapshot: Any, run: str) -> None:
    before = snapshot(ledger.paths.home)
    with pytest.raises(InvalidEventError) as info:
        ledger.append("note", text="t", run=run)
    assert info.value.field == "run"
    assert "run id" in str(info.value)
    assert snapshot(ledger.paths.home) == before


# --- upcasters -----------------------------------------------------------------------------------
def test_upcaster_upgrades_an_old_version_body(ledger: Ledger, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    """A v0 `note` stored its text as `message`; the registered upcaster renames it on read."""
    calls: list[dict[str, Any]] = []

    def v0_to_v1(body: dict[str, Any]) -> dict[str, Any]:
        calls.append(dict(body))
        body = dict(body)
        body["text"] = body.pop("message")
        return body

    monkeypatch.setitem(ev.UPCASTERS, ("note", ev.SCHEMA_VERSION - 1), v0_to_v1)
    old_version = ev.SCHEMA_VERSION - 1
    rid, line = encode_record(
        v=old_version, seq=0, prev=None, ts="2020-01-01T00:00:00.000000Z", writer=ledger.writer,
        actor="old@box", kind="note", run="r0", instance=None, recorded=None,
        body=b'{"message":"from the old days"}')
    writer_dir = ledger.paths.segments / ledger.writer
    writer_dir.mkdir(parents=True)
    (writer_dir / "000000000000.jsonl").write_bytes(line)

    (record,) = ledger.records()
    assert (record.id, record.v) == (rid, old_version)
    assert ev.decode_body(record.kind, record.v, record.body) == ev.Note(text="from the old days")
    assert calls == [{"message": "from the old days"}]
    # the stored bytes are never rewritten: the upcast happens on read only
    assert (writer_dir / "000000000000.jsonl").read_bytes() == line
    assert check_ledger(ledger.paths).ok

    # a new event chains after the old one and decodes without the upcaster
    new = ledger.append("note", text="now")
    assert (new.seq, new.prev, new.v) == (1, rid, ev.SCHEMA_VERSION)
    assert ev.decode_body(new.kind, new.v, new.body) == ev.Note(text="now")
    assert len(calls) == 1


def test_without_an_upcaster_an_old_body_must_still_fit() -> None:
    with pytest.raises(msgspec.ValidationError, match="text"):
        ev.decode_body("note", ev.SCHEMA_VERSION - 1, b'{"message":"x"}')
    assert ev.decode_body("note", ev.SCHEMA_VERSION - 1, b'{"text":"x"}') == ev.Note(text="x")


def test_unknown_kind_and_unknown_fields_survive_reading() -> None:
    """Old readers survive new writers: an unknown kind stays a dict, unknown fields are skipped."""
    assert ev.decode_body("future.kind", ev.SCHEMA_VERSION, b'{"a":[1]}') == {"a": [1]}
    body = ev.decode_body("note", ev.SCHEMA_VERSION, b'{"text":"x","added_later":1}')
    assert body == ev.Note(text="x")


# --- timestamps ----------------------------------------------------------------------------------
CANONICAL = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")


@pytest.mark.parametrize(("given_ts", "stored"), [
    ("2024-03-01T12:00:00Z", "2024-03-01T12:00:00.000000Z"),
    ("2024-03-01T12:00:00.5Z", "2024-03-01T12:00:00.500000Z"),
    ("2024-03-01T12:00:00.123456Z", "2024-03-01T12:00:00.123456Z"),
    ("2024-03-01T12:00:00z", "2024-03-01T12:00:00.000000Z"),
    ("2024-03-01T20:00:00+08:00", "2024-03-01T12:00:00.000000Z"),
    ("2024-03-01T07:30:00.25-04:30", "2024-03-01T12:00:00.250000Z"),
    ("2024-03-01T00:30:00+01:00", "2024-02-29T23:30:00.000000Z"),  # leap day, across midnight
    ("2024-03-01", "2024-03-01T00:00:00.000000Z"),
    ("2024-03-01 12:00:00+00:00", "2024-03-01T12:00:00.000000Z"),
])
def test_backfill_stores_ts_as_given_in_canonical_utc(ledger: Ledger, given_ts: str,
                                                      stored: str) -> None:
    before = datetime.now(UTC)
    record = ledger.append("note", text="late", at=given_ts)
    after = datetime.now(UTC)
    assert record.ts == stored
    assert record.recorded is not None
    assert CANONICAL.fullmatch(record.recorded)
    recorded = datetime.strptime(record.recorded, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert before - timedelta(microseconds=1) <= recorded <= after
    assert last_record(ledger) == record


def test_live_event_has_ts_now_and_no_recorded(ledger: Ledger) -> None:
    before = datetime.now(UTC)
    record = ledger.append("note", text="now")
    after = datetime.now(UTC)
    assert CANONICAL.fullmatch(record.ts)
    ts = datetime.strptime(record.ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert before - timedelta(microseconds=1) <= ts <= after
    assert record.recorded is None
    assert b'"recorded"' not in next(segment_lines(ledger))


@pytest.mark.parametrize("bad", [
    "2024-03-01T12:00:00",            # naive
    "2024-03-01T12:00:00.000000",     # naive, canonical digits
    "2024-03-01 12:00",               # naive
    "yesterday",
    "",
    "2024-13-01T00:00:00Z",
    "2024-02-30T00:00:00.000000Z",    # canonical shape, impossible date
    "2024-13-45T00:00:00.000000Z",
    "2024-01-01T25:00:00.000000Z",
    "1712000000",
])
def test_bad_or_naive_at_is_refused(ledger: Ledger, snapshot: Any, bad: str) -> None:
    before = snapshot(ledger.paths.home)
    with pytest.raises(InvalidEventError) as info:
        ledger.append("note", text="late", at=bad)
    assert info.value.field == "at"
    assert snapshot(ledger.paths.home) == before


def test_naive_time_message_asks_for_a_timezone() -> None:
    with pytest.raises(ValueError, match="no timezone"):
        ev.parse_ts("2024-03-01T12:00:00")
    with pytest.raises(ValueError, match="timezone-aware"):
        ev.format_ts(datetime(2024, 3, 1))


def test_canonical_input_with_trailing_newline_is_normalised() -> None:
    assert ev.parse_ts("2024-03-01T12:00:00.000000Z\n") == "2024-03-01T12:00:00.000000Z"


@given(when=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
                         timezones=st.just(UTC) | st.builds(
                             lambda m: timezone(timedelta(minutes=m)),
                             st.integers(-23 * 60, 23 * 60))))
def test_parse_ts_agrees_with_datetime(when: datetime) -> None:
    text = ev.parse_ts(when.isoformat())
    assert CANONICAL.fullmatch(text)
    back = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert back == when
    assert ev.parse_ts(text) == text  # canonical text is a fixed point
    assert ev.format_ts(when) == text


# --- JSON Schema ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(ev.KINDS))
def test_json_schema_names_the_kind_and_its_required_fields(kind: str) -> None:
    schema = ev.json_schema(kind)
    json.dumps(schema)  # plain JSON
    assert schema["title"] == kind
    assert schema["x-labledger-schema-version"] == ev.SCHEMA_VERSION
    name = schema["$ref"].rsplit("/", 1)[-1]
    definition = schema["$defs"][name]
    assert definition["type"] == "object"
    cls = ev.KINDS[kind]
    assert set(definition["properties"]) == set(cls.__struct_fields__)
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    assert set(definition.get("required", [])) == {f.name for f in info.fields if f.required}


def test_json_schema_of_unknown_kind_is_refused() -> None:
    with pytest.raises(InvalidEventError, match="unknown event kind 'nope'"):
        ev.json_schema("nope")


def test_kinds_include_the_documented_tags() -> None:
    documented = {
        "instance.rented", "instance.released", "code.pushed", "run.launched", "run.heartbeat",
        "run.exited", "checkpoint.saved", "artifact.recorded", "capsule.sealed",
        "capsule.quarantined", "pull.listed", "artifact.pulled", "checkpoint.verified",
        "teardown.approved", "teardown.requested", "teardown.confirmed", "claim.declared",
        "claim.retracted", "comparison.recorded", "probe.recorded", "note",
    }
    assert documented <= set(ev.KINDS)
    allowed = set(string.ascii_lowercase + "._")
    assert all(set(kind) <= allowed for kind in ev.KINDS)


def test_floats_round_trip_exactly(ledger: Ledger) -> None:
    values = {"a": 0.1, "b": -0.0, "c": 1e308, "d": 5e-324, "e": 31.52}
    ledger.append("checkpoint.saved", run="r1", path="p", digest="blake3:" + "0" * 64, size=0,
                  metrics=values)
    body = ev.decode_body("checkpoint.saved", ev.SCHEMA_VERSION, last_record(ledger).body)
    assert isinstance(body, ev.CheckpointSaved)
    assert body.metrics == values
    assert math.copysign(1, body.metrics["b"]) == -1

