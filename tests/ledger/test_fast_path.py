"""`labledger emit`'s fast path (no click, no msgspec) must be indistinguishable from the full one.

Differential: whenever `_fast_body.encode_body` accepts a body, msgspec must accept it too and
write the very same bytes; whatever it refuses goes to the full path, which reports the error.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger import _fast_body, _kinds_table, events
from labledger.ledger._fast_emit import try_emit
from labledger.ledger.check import check_ledger
from labledger.ledger.ledger import Ledger


def test_the_generated_table_matches_the_body_structs() -> None:
    assert events.fast_table() == _kinds_table.TABLE
    source = Path(_kinds_table.__file__).read_text(encoding="utf-8")
    assert source == events.render_fast_table(), "run: python -m labledger.ledger.events"


def test_limits_agree() -> None:
    assert _fast_body.MAX_BODY_BYTES == events.MAX_BODY_BYTES
    assert _kinds_table.SCHEMA_VERSION == events.SCHEMA_VERSION


# Numbers as `--set` passes them, with the spellings msgspec's lax mode refuses or reads its own
# way: leading zeros, negative zero, a bare sign, a leading or trailing point, white space.
_NUMERIC_TEXT = st.builds(
    lambda sign, zeros, digits, frac: sign + zeros + digits + frac,
    st.sampled_from(["", "-", "+"]), st.sampled_from(["", "0", "00"]),
    st.sampled_from(["", "0", "7", "12", "9" * 18, "9" * 19]),
    st.sampled_from(["", ".", ".5", ".0", ".50", " "]))
_text = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["", "best", "true", "false", "null", "12", "-3", "3.25", "1e5", "blake3:" + "a" * 64,
     "a" * 64, "file", "tree", "latest", "\u00e9\n\"\\", "x" * 300]) | _NUMERIC_TEXT
_scalar = (_text | st.integers(-(2**70), 2**70) | st.booleans() | st.none()
           | st.floats(allow_nan=True, allow_infinity=True))
_value = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(_text, inner, max_size=3), max_leaves=6)


@st.composite
def kind_and_body(draw: st.DrawFn) -> tuple[str, dict[str, Any], bool]:
    kind = draw(st.sampled_from(sorted(_kinds_table.TABLE)))
    names = [f[0] for f in _kinds_table.TABLE[kind]]
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    body = {name: draw(_value) for name in chosen}
    if draw(st.booleans()):
        body[draw(_text)] = draw(_scalar)  # maybe an unknown field
    return kind, body, draw(st.booleans())


def _full_path(kind: str, body: dict[str, Any], coerce: bool) -> bytes | None:
    try:
        typed = events.validate_body(kind, body, coerce_strings=coerce)
    except Exception:
        return None
    return msgspec.json.encode(typed)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind_and_body())
def test_fast_body_never_accepts_what_msgspec_refuses_and_writes_the_same_bytes(
    case: tuple[str, dict[str, Any], bool],
) -> None:
    kind, body, coerce = case
    fast = _fast_body.encode_body(kind, body, coerce=coerce)
    if fast is None:
        return
    assert _full_path(kind, body, coerce) == fast
    decoded = json.loads(fast)
    assert all(not isinstance(v, float) or math.isfinite(v) for v in decoded.values())


@pytest.mark.parametrize(("kind", "body", "coerce"), [
    ("note", {"text": "eval done"}, True),
    ("run.heartbeat", {"step": "1200"}, True),
    ("run.exited", {"exit_code": "0", "duration_s": "5400"}, True),
    ("checkpoint.saved", {"path": "best.pth", "digest": "blake3:" + "ab" * 32, "size": "12",
                          "step": "5", "role": "best", "metrics": {"psnr": "31.42"}}, True),
    ("run.launched", {"command": ["python", "train.py"], "host": "box", "gpus": []}, False),
    ("instance.rented", {"profile": "runpod", "price_per_hour": 1.89, "spot": False}, False),
])
def test_common_bodies_take_the_fast_path(kind: str, body: dict[str, Any], coerce: bool) -> None:
    fast = _fast_body.encode_body(kind, body, coerce=coerce)
    assert fast is not None
    assert fast == _full_path(kind, body, coerce)


def _lines(ledger: Ledger) -> list[bytes]:
    return [p.read_bytes() for p in sorted((ledger.paths.segments / ledger.writer).glob("*.jsonl"))]


def test_fast_and_full_emits_share_one_chain(ledger: Ledger, capsys: pytest.CaptureFixture[str]
                                             ) -> None:
    ledger.append("note", text="full path first")
    assert try_emit(["emit", "note", "--run", "r1", "--set", "text=fast"]) == 0
    fast_id = capsys.readouterr().out.strip()
    ledger.append("run.exited", run="r1", exit_code=0)
    records = list(Ledger.open(ledger.paths.project).records())
    assert [r.kind for r in records] == ["note", "note", "run.exited"]
    assert records[1].id == fast_id
    assert records[1].body_dict() == {"text": "fast"}
    assert records[2].prev == fast_id
    assert check_ledger(ledger.paths).ok


@pytest.mark.parametrize("args", [
    ["emit", "run.exited", "--set", "exit_code=x"],          # invalid: the full path reports it
    ["emit", "nope.kind", "--set", "a=b"],                   # unknown kind
    ["emit", "note", "--set", "text=t", "--json"],           # options the fast path leaves alone
    ["emit", "note", "--set", "text=t", "--at", "2026-01-01T00:00:00Z"],
    ["emit", "note", "--run", "bad id", "--set", "text=t"],  # invalid run id
    ["emit", "note", "--data", "[1]"],                       # not an object
    ["emit", "run.exited", "--set", "duration_s=1e30"],       # exponent float: msgspec's format
])
def test_anything_unusual_goes_to_the_full_path_before_writing(
    ledger: Ledger, snapshot: Any, args: list[str]
) -> None:
    before = snapshot(ledger.paths.home)
    assert try_emit(args) is None
    assert snapshot(ledger.paths.home) == before


def test_outside_a_ledger_the_fast_path_defers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    monkeypatch.setenv("LABLEDGER_ROOT", str(tmp_path / "nowhere"))
    assert try_emit(["emit", "note", "--set", "text=t"]) is None


def test_emit_imports_neither_click_nor_msgspec(ledger: Ledger) -> None:
    probe = ("import sys\nfrom labledger.ledger._main import main\n"
             "try:\n    main(['emit', 'note', '--set', 'text=x'])\nexcept SystemExit as e:\n"
             "    code = e.code\n"
             "heavy = sorted(m for m in ('click', 'msgspec', 'duckdb', 'pyarrow', 'torch', "
             "'typing', 'datetime', 'tomllib') if m in sys.modules)\n"
             "print(code, heavy, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ledger.paths.project, check=False, timeout=60)
    assert done.stderr.strip() == "0 []"
    assert len(done.stdout.strip()) == 64


def _valid(spec: tuple[Any, ...], coerce: bool) -> st.SearchStrategy[Any]:
    tag = spec[0]
    if tag == "opt":
        return st.none() | _valid(spec[1], coerce)
    if tag == "str":
        if spec[3] is not None:
            return st.from_regex(spec[3].replace("(?!\\n)$", r"\Z"), fullmatch=True)
        return st.text(st.characters(codec="utf-8"), min_size=spec[1] or 0,
                       max_size=min(spec[2] or 20, 20))
    if tag == "int":
        ints = st.integers(min_value=spec[1], max_value=2**40)
        return ints.map(str) | ints | _NUMERIC_TEXT if coerce else ints
    if tag == "float":
        floats = st.floats(min_value=spec[1], allow_nan=False, allow_infinity=False)
        return (floats.map(repr) | floats | st.integers(0, 10**6) | _NUMERIC_TEXT if coerce
                else floats)
    if tag == "bool":
        return st.sampled_from(["true", "false", True, False]) if coerce else st.booleans()
    if tag == "lit":
        return st.sampled_from(spec[1])
    if tag == "list":
        return st.lists(_valid(spec[1], coerce), max_size=3)
    if tag == "dict":
        return st.dictionaries(st.text(max_size=5), _valid(spec[1], coerce), max_size=3)
    return st.just(object())  # "other": never valid for the fast path


@st.composite
def valid_kind_and_body(draw: st.DrawFn) -> tuple[str, dict[str, Any], bool]:
    kind = draw(st.sampled_from(sorted(_kinds_table.TABLE)))
    coerce = draw(st.booleans())
    body = {}
    for name, spec, required, _default in _kinds_table.TABLE[kind]:
        if spec[0] == "other" or (spec[0] == "opt" and spec[1][0] in ("other", "dict")
                                  and spec[1][1:] == (("other",),)):
            continue
        if required or draw(st.booleans()):
            body[name] = draw(_valid(spec, coerce))
    return kind, body, coerce


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_kind_and_body())
def test_fast_body_agrees_with_msgspec_on_mostly_valid_bodies(
    case: tuple[str, dict[str, Any], bool],
) -> None:
    kind, body, coerce = case
    fast = _fast_body.encode_body(kind, body, coerce=coerce)
    full = _full_path(kind, body, coerce)
    if fast is not None:
        assert fast == full
