"""Malformed events are refused with the field named, and the ledger stays byte-for-byte the same.

API-level; the same rejections through the command line (exit 2) are in tests/cli/.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from labledger.ledger import events as ev
from labledger.ledger.errors import InvalidEventError, LedgerError
from labledger.ledger.ledger import EventInput, Ledger

DIGEST = "blake3:" + "ab" * 32
Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture
def seeded(ledger: Ledger) -> Ledger:
    """A ledger with history, so 'unchanged' covers an existing segment, not just no segment."""
    ledger.append("run.launched", run="r1", host="gpu1")
    ledger.append("checkpoint.saved", run="r1", path="best.pth", digest=DIGEST, size=10)
    return ledger


# (kind, body, field named in the error, words the message must contain)
BAD_BODIES: list[tuple[str, dict[str, Any], str | None, str]] = [
    ("no.such.kind", {"text": "x"}, None, "unknown event kind 'no.such.kind'"),
    ("note", {}, None, "missing required field `text`"),
    ("checkpoint.saved", {"path": "p", "size": 1}, None, "missing required field `digest`"),
    ("note", {"text": 5}, "text", "Expected `str`, got `int`"),
    ("note", {"text": None}, "text", "Expected `str`, got `null`"),
    ("run.exited", {"exit_code": "1"}, "exit_code", "Expected `int | null`, got `str`"),
    ("run.exited", {"exit_code": 1.5}, "exit_code", "got `float`"),
    ("run.exited", {"exit_code": True}, "exit_code", "got `bool`"),
    ("run.exited", {"duration_s": -1.0}, "duration_s", ">= 0"),
    ("checkpoint.saved", {"path": "p", "digest": DIGEST, "size": -1}, "size", ">= 0"),
    ("checkpoint.saved", {"path": "p", "digest": "sha256:" + "ab" * 32, "size": 1}, "digest",
     "blake3"),
    ("checkpoint.saved", {"path": "p", "digest": DIGEST.upper(), "size": 1}, "digest", "blake3"),
    ("checkpoint.saved", {"path": "", "digest": DIGEST, "size": 1}, "path", "length >= 1"),
    ("checkpoint.saved", {"path": "p" * 257, "digest": DIGEST, "size": 1}, "path",
     "length <= 256"),
    ("checkpoint.saved", {"path": "p", "digest": DIGEST, "size": 1, "role": "worst"}, "role",
     "Invalid enum value 'worst'"),
    ("checkpoint.saved", {"path": "p", "digest": DIGEST, "size": 1, "metrics": {"a": "x"}},
     "metrics[...]", "Expected `float`"),
    ("checkpoint.saved", {"path": "p", "digest": DIGEST, "size": 1, "metrics": [1.0]},
     "metrics", "Expected `object`, got `array`"),
    ("pull.listed", {"source": "s", "entries": [{"path": "a"}, {"path": "b", "size": -2}]},
     "entries[1].size", ">= 0"),
    ("pull.listed", {"source": "s", "entries": [{"path": "a", "sha256": "x"}]},
     "entries[0].sha256", "[0-9a-f]{64}"),
    ("pull.listed", {"source": "s", "entries": [{"path": "a"}, {"path": "b", "colour": "red"}]},
     "entries[1].colour", "unknown field 'colour'"),
    ("note", {"text": "x", "txt": "typo"}, "txt", "unknown field txt"),
    ("note", {"text": "x", "b": 1, "a": 2}, "a", "unknown fields a, b"),
    ("run.launched", {"command": "python train.py"}, "command", "Expected `array`, got `str`"),
    ("run.launched", {"env": {"A": 1}}, "env[...]", "Expected `str`, got `int`"),
    ("claim.declared", {"claim": "c", "metric": "m", "value": 1.0, "direction": "up",
                        "source_digest": DIGEST}, "direction", "Invalid enum value 'up'"),
    ("note", {"text": "x", "extra": [1]}, "extra", "Expected `object | null`, got `array`"),
]


@pytest.mark.parametrize(("kind", "body", "field", "words"), BAD_BODIES)
def test_malformed_body_is_refused_and_nothing_written(
    seeded: Ledger, snapshot: Snapshot, kind: str, body: dict[str, Any], field: str | None,
    words: str,
) -> None:
    before = snapshot(seeded.paths.home)
    with pytest.raises(InvalidEventError) as info:
        seeded.append(kind, run="r1", **body)
    error = info.value
    assert words in str(error)
    assert error.field == field
    if field is not None:
        assert f"field {field!r}" in str(error)
    assert error.kind == kind
    assert str(error).endswith("nothing was written")
    assert snapshot(seeded.paths.home) == before
    # and the ledger still takes good events afterwards, continuing the chain
    assert seeded.append("note", text="after").seq == 2


@pytest.mark.parametrize("kind", sorted(ev.KINDS))
def test_unknown_field_is_refused_for_every_kind(seeded: Ledger, snapshot: Snapshot,
                                                 kind: str) -> None:
    before = snapshot(seeded.paths.home)
    with pytest.raises(InvalidEventError) as info:
        seeded.append(kind, zz_not_a_field=1)
    assert info.value.field == "zz_not_a_field"
    assert "put free-form values under 'extra'" in str(info.value)
    assert snapshot(seeded.paths.home) == before


def test_free_form_values_go_under_extra(seeded: Ledger) -> None:
    record = seeded.append("note", text="x", extra={"anything": [1, {"nested": None}]})
    assert record.body_dict() == {"text": "x", "extra": {"anything": [1, {"nested": None}]}}


@pytest.mark.parametrize(("body", "field"), [
    ({"text": "\ud800"}, "text"),
    ({"text": "ok\udcffok"}, "text"),
    ({"text": "ok", "extra": {"k": ["fine", "\udfff"]}}, "extra.k[1]"),
    ({"text": "ok", "extra": {"\ud83d": 1}}, "extra"),
])
def test_lone_surrogates_are_refused(seeded: Ledger, snapshot: Snapshot, body: dict[str, Any],
                                     field: str) -> None:
    before = snapshot(seeded.paths.home)
    with pytest.raises(InvalidEventError, match="not valid UTF-8") as info:
        seeded.append("note", **body)
    assert info.value.field == field
    assert snapshot(seeded.paths.home) == before


@pytest.mark.parametrize(("kind", "body", "field"), [
    ("claim.declared", {"claim": "c", "metric": "m", "value": float("nan"), "direction": "higher",
                        "source_digest": DIGEST}, "value"),
    ("run.exited", {"duration_s": float("inf")}, "duration_s"),
    ("checkpoint.saved", {"path": "p", "digest": DIGEST, "size": 1,
                          "metrics": {"loss": float("-inf")}}, "metrics.loss"),
    ("note", {"text": "x", "extra": {"a": [1.0, float("nan")]}}, "extra.a[1]"),
])
def test_non_finite_numbers_are_refused(seeded: Ledger, snapshot: Snapshot, kind: str,
                                        body: dict[str, Any], field: str) -> None:
    """JSON has no NaN/Infinity: stored they would become null and the body would not decode."""
    before = snapshot(seeded.paths.home)
    with pytest.raises(InvalidEventError, match="NaN and infinity") as info:
        seeded.append(kind, **body)
    assert info.value.field == field
    assert snapshot(seeded.paths.home) == before


def test_non_finite_text_values_coerced_from_the_command_line_are_refused(seeded: Ledger) -> None:
    with pytest.raises(InvalidEventError, match="NaN and infinity") as info:
        seeded.draft("run.exited", {"duration_s": "inf"}, coerce_strings=True)
    assert info.value.field == "duration_s"


def test_oversize_body_is_refused(seeded: Ledger, snapshot: Snapshot) -> None:
    before = snapshot(seeded.paths.home)
    with pytest.raises(InvalidEventError, match="over the 65536-byte limit") as info:
        seeded.append("note", text="x" * ev.MAX_BODY_BYTES)
    assert "labledger cas put" in str(info.value)
    # escaping counts: 11,000 control characters are 66,000 bytes of JSON
    with pytest.raises(InvalidEventError, match="over the"):
        seeded.append("note", text="\x01" * 11_000)
    assert snapshot(seeded.paths.home) == before


def test_body_at_the_limit_is_accepted(seeded: Ledger) -> None:
    overhead = len(b'{"text":""}')
    record = seeded.append("note", text="x" * (ev.MAX_BODY_BYTES - overhead))
    assert len(bytes(record.body)) == ev.MAX_BODY_BYTES
    with pytest.raises(InvalidEventError, match=f"{ev.MAX_BODY_BYTES + 1} bytes"):
        seeded.append("note", text="x" * (ev.MAX_BODY_BYTES - overhead + 1))


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"run": "bad run"}, "run"),
    ({"run": "r" * 257}, "run"),
    ({"run": "r1\n"}, "run"),
    ({"instance": "../etc"}, "instance"),
    ({"instance": ""}, "instance"),
    ({"at": "not a time"}, "at"),
    ({"at": "2024-01-01T00:00:00"}, "at"),
])
def test_bad_envelope_values_are_refused(seeded: Ledger, snapshot: Snapshot,
                                         kwargs: dict[str, str], field: str) -> None:
    before = snapshot(seeded.paths.home)
    with pytest.raises(InvalidEventError) as info:
        seeded.append("note", text="x", **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field
    assert f"field {field!r}" in str(info.value)
    assert snapshot(seeded.paths.home) == before


# --- batches ---------------------------------------------------------------------------------
def good(n: int) -> dict[str, Any]:
    return {"kind": "note", "body": {"text": f"event {n}"}, "run": "r2"}


@pytest.mark.parametrize(("bad", "field", "words"), [
    ({"kind": "nope", "body": {}}, None, "unknown event kind"),
    ({"kind": "note", "body": {"text": 1}}, "text", "Expected `str`"),
    ({"kind": "note", "body": {"text": "x"}, "run": "a b"}, "run", "not a valid run id"),
    ({"kind": "note", "body": {"text": "x"}, "at": "soon"}, "at", "not a timestamp"),
    ({"kind": "note", "body": {"text": "x"}, "colour": "red"}, None, "colour"),
    ({"body": {"text": "x"}}, None, "kind"),
])
def test_batch_is_all_or_nothing_and_names_the_line(
    seeded: Ledger, snapshot: Snapshot, bad: dict[str, Any], field: str | None, words: str
) -> None:
    before = snapshot(seeded.paths.home)
    items = [good(1), good(2), bad, good(4)]
    with pytest.raises(InvalidEventError) as info:
        seeded.append_batch(items)
    assert info.value.line == 3
    assert info.value.field == field
    assert words in str(info.value)
    assert ":3" in str(info.value)
    assert snapshot(seeded.paths.home) == before


def test_batch_of_event_inputs_is_appended_in_order(seeded: Ledger) -> None:
    items = [EventInput(kind="note", body={"text": str(i)}, run="r2") for i in range(5)]
    records = seeded.append_batch(items)
    assert [r.seq for r in records] == [2, 3, 4, 5, 6]
    assert [r.body_dict()["text"] for r in records] == ["0", "1", "2", "3", "4"]
    assert [r.id for r in seeded.records()][2:] == [r.id for r in records]


def test_event_input_refuses_unknown_members() -> None:
    with pytest.raises(msgspec.ValidationError, match="colour"):
        msgspec.convert({"kind": "note", "colour": 1}, EventInput)


def test_validate_body_returns_the_typed_struct() -> None:
    typed = ev.validate_body("checkpoint.saved", {"path": "p", "digest": DIGEST, "size": 3})
    assert typed == ev.CheckpointSaved(path="p", digest=DIGEST, size=3)
    assert ev.validate_body("run.exited", {"exit_code": "3"}, coerce_strings=True) == \
        ev.RunExited(exit_code=3)


def test_invalid_event_error_is_a_ledger_error_with_json_fields() -> None:
    error = InvalidEventError("bad", kind="note", field="text", line=4, source="f.jsonl")
    assert isinstance(error, LedgerError)
    assert str(error) == "f.jsonl:4, event 'note', field 'text': bad; nothing was written"
    assert error.to_json() == {"error": "InvalidEventError", "message": str(error),
                               "kind": "note", "field": "text", "line": 4}


@pytest.mark.parametrize(("kind", "body", "field"), [
    ("checkpoint.saved", {"path": "x", "digest": "blake3:" + "0" * 64, "size": 2**63},
     "size"),
    ("run.heartbeat", {"step": 1, "extra": {"a": [1, -(2**63) - 1]}}, "extra.a[1]"),
    ("run.heartbeat", {"extra": {"deep": {"n": 10**30}}}, "extra.deep.n"),
])
def test_integers_a_query_cannot_hold_are_refused(ledger: Ledger, kind: str,
                                                  body: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidEventError, match="integer out of range") as info:
        ledger.append(kind, run="r1", **body)
    assert info.value.field == field
    assert list(ledger.records()) == []
    ledger.append("run.heartbeat", run="r1", step=2**63 - 1, extra={"low": -(2**63)})  # fit
