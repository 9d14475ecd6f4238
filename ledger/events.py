"""Event kinds: the envelope every record carries and a typed body per kind.

Invariants
----------
* Tags (``kind``) are stable forever: never renamed, never reused. They are spelled here, not
  derived from class names, so moving a class never changes history.
* Bodies only grow: a new field gets a default; a field's type never changes. Unknown fields are
  skipped on read, so an old reader survives a newer writer. A breaking change bumps
  ``SCHEMA_VERSION`` and registers an upcaster (``dict -> dict``) from the old version, applied on
  read by :func:`decode_body`.
* On the way *in* a body is strict: unknown fields, missing required fields and wrong types
  are refused with the field named (see :func:`validate_body`); nothing is written.
* Timestamps are RFC 3339 UTC with exactly six fractional digits (``2026-12-02T14:01:22.000000Z``)
  so DuckDB reads them as one type and text order equals time order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
import msgspec.inspect

from labledger.ledger._time import FUTURE_TOLERANCE_S
from labledger.ledger._time import latest_ts as latest_ts  # re-exported
from labledger.ledger._time import now_ts as now_ts  # re-exported: part of this module's API
from labledger.ledger._words import noun_for
from labledger.ledger.errors import InvalidEventError

SCHEMA_VERSION = 1
MAX_BODY_BYTES = 64 * 1024  # bodies point at bytes in the CAS; they never carry them
# Objects and arrays nest at most this deep in a body (the body itself is level 1). Far past
# any real event, and far inside what the recursive decoders and walkers (msgspec, json, the
# checks below, DuckDB) can take, so a deeper body is refused with a message, never a crash.
MAX_DEPTH = 256

# msgspec matches patterns with re.search, where `$` also matches before a final newline;
# `(?!\n)` closes that gap in a form JSON Schema (ECMA) tools read too.
Digest = Annotated[str, msgspec.Meta(pattern=r"^blake3:[0-9a-f]{64}(?!\n)$")]
Sha256 = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}(?!\n)$")]
NonNeg = Annotated[int, msgspec.Meta(ge=0)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
Metrics = dict[str, float]

_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


def format_ts(when: datetime) -> str:
    """Render an aware datetime in the ledger's one timestamp format."""
    if when.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    utc = when.astimezone(UTC)
    # %Y does not pad years before 1000 on glibc ("26-12-02..."): the year is written by hand
    return f"{utc.year:04d}-" + utc.strftime("%m-%dT%H:%M:%S.%fZ")


def parse_ts(text: str) -> str:
    """Accept an RFC 3339 / ISO 8601 time (``Z`` or offset; a bare date means 00:00 UTC).

    Returns the canonical ledger form. Raises ``ValueError`` with a readable message.
    """
    if _TS_RE.fullmatch(text):  # fullmatch: `$` would let a trailing newline through
        try:
            datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")  # noqa: DTZ007 - the Z is matched
        except ValueError:
            raise ValueError(f"{text!r} is not a valid date and time") from None
        return text
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a timestamp; use RFC 3339, e.g. 2026-12-02T14:00:00Z"
        ) from None
    if when.tzinfo is None:
        if len(raw) == 10:  # a bare date
            when = when.replace(tzinfo=UTC)
        else:
            raise ValueError(f"{text!r} has no timezone; add Z for UTC or an offset like +08:00")
    try:
        return format_ts(when)
    except OverflowError:  # an offset that moves year 1 or 9999 out of range
        raise ValueError(f"{text!r} is out of range") from None


def future_problem(ts: str, latest: str) -> str | None:
    """Why canonical ``ts`` cannot be when something happened: after ``latest``
    (`_time.latest_ts`: now plus the clock-skew allowance), or None."""
    if ts > latest:  # canonical timestamps: text order is time order
        return (f"{ts} is in the future (more than {FUTURE_TOLERANCE_S // 60} minutes ahead of "
                "this clock); `at` records when something happened")
    return None


def too_deep(body: Any) -> str | None:
    """The top-level field under which ``body`` nests objects/arrays more than `MAX_DEPTH`
    levels deep (``"body"`` for the body itself), or None. Iterative: any depth is safe."""
    stack: list[tuple[Any, int, str]] = [(body, 1, "body")]
    while stack:
        value, depth, field = stack.pop()
        if isinstance(value, Mapping):
            children: Any = value.items()
        elif isinstance(value, list | tuple):
            children = ((None, item) for item in value)
        else:
            continue
        if depth > MAX_DEPTH:
            return field
        for key, item in children:
            if isinstance(item, Mapping | list | tuple):
                stack.append((item, depth + 1, str(key) if depth == 1 else field))
    return None


def may_be_too_deep(encoded: bytes) -> bool:
    """Cheap (C-speed) gate for `too_deep` on a body's JSON: it cannot nest more than
    `MAX_DEPTH` levels unless it holds more than `MAX_DEPTH` opening brackets."""
    return len(encoded) > 2 * MAX_DEPTH + 1 and (
        encoded.count(b"{") + encoded.count(b"[") > MAX_DEPTH)


TOO_DEEP = f"nested too deeply (more than {MAX_DEPTH} levels)"


class Body(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Base of every event body. ``extra`` carries user fields the schema does not name."""

    extra: dict[str, Any] | None = None


# --- instances ---------------------------------------------------------------------------------
class InstanceRented(Body, frozen=True, kw_only=True, omit_defaults=True):
    profile: Name
    host: str | None = None
    price_per_hour: Annotated[float, msgspec.Meta(ge=0)] | None = None
    currency: str | None = None
    spot: bool = False
    profile_snapshot: dict[str, Any] | None = None


class InstanceStopped(Body, frozen=True, kw_only=True, omit_defaults=True):
    reason: str | None = None


class InstanceStarted(Body, frozen=True, kw_only=True, omit_defaults=True):
    reason: str | None = None


class InstanceReleased(Body, frozen=True, kw_only=True, omit_defaults=True):
    reason: str | None = None
    override: bool = False


class CodePushed(Body, frozen=True, kw_only=True, omit_defaults=True):
    commit: str | None = None
    dirty: bool | None = None
    diff_digest: Digest | None = None
    tree_digest: Digest | None = None
    destination: str | None = None


# --- runs --------------------------------------------------------------------------------------
class RunLaunched(Body, frozen=True, kw_only=True, omit_defaults=True):
    command: list[str] = []
    cwd: str | None = None
    host: str | None = None
    user: str | None = None
    pid: NonNeg | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    git_diff_digest: Digest | None = None
    config_path: str | None = None
    config_digest: Digest | None = None
    python: str | None = None
    torch: str | None = None
    cuda: str | None = None
    gpus: list[str] = []
    env: dict[str, str] = {}
    heartbeat_interval_s: Annotated[float, msgspec.Meta(gt=0)] | None = None


class RunHeartbeat(Body, frozen=True, kw_only=True, omit_defaults=True):
    pid: NonNeg | None = None
    step: NonNeg | None = None
    message: str | None = None


class RunExited(Body, frozen=True, kw_only=True, omit_defaults=True):
    exit_code: int | None = None
    signal: int | None = None
    duration_s: Annotated[float, msgspec.Meta(ge=0)] | None = None
    peak_rss_bytes: NonNeg | None = None


class CheckpointSaved(Body, frozen=True, kw_only=True, omit_defaults=True):
    path: Name
    digest: Digest
    size: NonNeg
    stored: bool = True
    step: NonNeg | None = None
    epoch: NonNeg | None = None
    role: Literal["best", "last", "latest"] | None = None
    metrics: Metrics = {}


class ArtifactRecorded(Body, frozen=True, kw_only=True, omit_defaults=True):
    path: Name
    digest: Digest
    size: NonNeg
    type: Literal["file", "tree"] = "file"
    sha256: Sha256 | None = None
    role: str | None = None


class CapsuleSealed(Body, frozen=True, kw_only=True, omit_defaults=True):
    path: Name
    digest: Digest
    files: NonNeg
    bytes: NonNeg
    source: str | None = None  # the directory the capsule was closed from


class CapsuleQuarantined(Body, frozen=True, kw_only=True, omit_defaults=True):
    path: Name
    reason: str
    attempt: NonNeg = 1
    problems: list[str] = []  # every rule the candidate broke (reason joins them)
    source: str | None = None


# --- pulls and verification ----------------------------------------------------------------------
class BoxWriter(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A process on the box that held a listed file open for writing when the box hashed it."""

    pid: NonNeg
    command: str = ""


class ManifestEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    path: Name
    type: Literal["file", "dir", "symlink"] = "file"
    size: NonNeg = 0
    sha256: Sha256 | None = None
    blake3: Digest | None = None
    mode: NonNeg | None = None
    target: str | None = None
    # Still being written on the box at the listing: the bytes hashed may be a partial file,
    # so the file is not pull-verified by this listing (reconcile.pull_verified)
    writers: list[BoxWriter] = []


class PullListed(Body, frozen=True, kw_only=True, omit_defaults=True):
    source: str
    entries: list[ManifestEntry] = []
    manifest_digest: Digest | None = None
    missing: list[str] = []
    unexpected: list[str] = []
    roster_digest: Digest | None = None
    roster_mismatched: list[str] = []
    refused: list[str] = []
    # The --only globs when the listing was restricted to matching files: a partial listing
    # updates what it shows but never defines the expected set (reconcile.pull_verified).
    only: list[str] = []


class ArtifactPulled(Body, frozen=True, kw_only=True, omit_defaults=True):
    path: Name
    ok: bool
    size: NonNeg | None = None
    remote_sha256: Sha256 | None = None
    local_sha256: Sha256 | None = None
    digest: Digest | None = None
    error: str | None = None


class CheckpointVerified(Body, frozen=True, kw_only=True, omit_defaults=True):
    path: Name
    digest: Digest
    ok: bool
    error: str | None = None
    tensors: NonNeg | None = None
    loader: str | None = None  # the check that passed (or failed) it
    allow_pickle: bool = False
    # Checked as a trainer's resume state (optimizer, scheduler, RNG...), not as weights.
    resume_state: bool = False
    # weights_only's refusal of a resume-state file accepted on its whole archive alone.
    refused: str | None = None


class ObjectQuarantined(Body, frozen=True, kw_only=True, omit_defaults=True):
    digest: Digest
    path: str
    reason: str


# --- teardown ----------------------------------------------------------------------------------
class TeardownApproved(Body, frozen=True, kw_only=True, omit_defaults=True):
    approver: str
    state_digest: Digest | None = None
    override: bool = False
    reason: str | None = None
    unmet: list[str] = []  # the gate's unmet checks when approved by override


class TeardownRequested(Body, frozen=True, kw_only=True, omit_defaults=True):
    command: list[str] = []
    response: str | None = None
    acknowledged: bool = False
    exit_code: int | None = None


class TeardownConfirmed(Body, frozen=True, kw_only=True, omit_defaults=True):
    method: str
    evidence: str | None = None


# --- claims, comparisons, probes ----------------------------------------------------------------
class ClaimDeclared(Body, frozen=True, kw_only=True, omit_defaults=True):
    claim: Name
    metric: Name
    value: float
    direction: Literal["higher", "lower"]
    source_digest: Digest
    source_path: str | None = None
    # How the value was read from the object: a JSON pointer ("/test/psnr"), a dotted key, an
    # aggregate over a table column ("mean(psnr)"), or a table cell ("psnr[-1]",
    # "psnr[epoch=100]"); see labledger.reconcile.claim_values.
    selector: str | None = None
    statement: str | None = None
    split: str | None = None
    unit: str | None = None
    aliases: list[str] = []
    paper_anchor: str | None = None
    implementation: str | None = None
    # Read from the same object at declaration, never typed: the samples behind the value, the
    # split the result says it was evaluated on (a split folder or a `split` key), the seeds and
    # spread it reports, and the event that stored the object (capsule, pull, ingest).
    n: NonNeg | None = None
    evaluated_split: str | None = None
    seeds: list[int] = []
    variance_type: Literal["std", "sem"] | None = None
    variance: Annotated[float, msgspec.Meta(ge=0)] | None = None
    source_event: str | None = None


class ClaimRetracted(Body, frozen=True, kw_only=True, omit_defaults=True):
    claim: Name
    reason: str


class ComparisonRecorded(Body, frozen=True, kw_only=True, omit_defaults=True):
    metric: Name
    baseline_run: Name
    candidate_run: Name
    direction: Literal["higher", "lower"]
    baseline_value: float | None = None
    candidate_value: float | None = None
    verdict: str | None = None


class ProbeRecorded(Body, frozen=True, kw_only=True, omit_defaults=True):
    probe: Name
    ok: bool
    detail: str | None = None
    findings: list[str] = []


class Note(Body, frozen=True, kw_only=True, omit_defaults=True):
    text: str


KINDS: Mapping[str, type[Body]] = {
    "instance.rented": InstanceRented,
    "instance.stopped": InstanceStopped,
    "instance.started": InstanceStarted,
    "instance.released": InstanceReleased,
    "code.pushed": CodePushed,
    "run.launched": RunLaunched,
    "run.heartbeat": RunHeartbeat,
    "run.exited": RunExited,
    "checkpoint.saved": CheckpointSaved,
    "artifact.recorded": ArtifactRecorded,
    "capsule.sealed": CapsuleSealed,
    "capsule.quarantined": CapsuleQuarantined,
    "pull.listed": PullListed,
    "artifact.pulled": ArtifactPulled,
    "checkpoint.verified": CheckpointVerified,
    "object.quarantined": ObjectQuarantined,
    "teardown.approved": TeardownApproved,
    "teardown.requested": TeardownRequested,
    "teardown.confirmed": TeardownConfirmed,
    "claim.declared": ClaimDeclared,
    "claim.retracted": ClaimRetracted,
    "comparison.recorded": ComparisonRecorded,
    "probe.recorded": ProbeRecorded,
    "note": Note,
}

# (kind, from_version) -> function turning a body dict of that version into the next version.
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def body_type(kind: str) -> type[Body]:
    try:
        return KINDS[kind]
    except KeyError:
        raise InvalidEventError(
            f"unknown event kind {kind!r}; known kinds: {', '.join(sorted(KINDS))}", kind=kind
        ) from None


def _field_of(message: str) -> str | None:
    # msgspec ends messages with "- at `$.path[0].x`"; report the path without the "$."
    match = re.search(r"at `\$\.?([^`]*)`", message)
    return match.group(1) or None if match else None


_TYPE_INFO: dict[type[Body], msgspec.inspect.Type] = {}


def _unknown_nested(value: Any, t: msgspec.inspect.Type, path: str) -> str | None:
    """The path of the first member a nested struct does not define (msgspec would skip it)."""
    if isinstance(t, msgspec.inspect.StructType) and isinstance(value, Mapping):
        fields = {f.encode_name: f.type for f in t.fields}
        for key, item in value.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in fields:
                return sub
            found = _unknown_nested(item, fields[key], sub)
            if found:
                return found
    elif isinstance(t, msgspec.inspect.UnionType):
        for member in t.types:
            found = _unknown_nested(value, member, path)
            if found:
                return found
    elif isinstance(t, msgspec.inspect.ListType) and isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _unknown_nested(item, t.item_type, f"{path}[{i}]")
            if found:
                return found
    elif isinstance(t, msgspec.inspect.DictType) and isinstance(value, Mapping):
        for key, item in value.items():
            found = _unknown_nested(item, t.value_type, f"{path}.{key}")
            if found:
                return found
    return None


def _nests_struct(t: msgspec.inspect.Type) -> bool:
    """Whether `_unknown_nested` can reach a struct type through ``t`` (else it finds nothing)."""
    if isinstance(t, msgspec.inspect.StructType):
        return True
    if isinstance(t, msgspec.inspect.UnionType):
        return any(_nests_struct(member) for member in t.types)
    if isinstance(t, msgspec.inspect.ListType):
        return _nests_struct(t.item_type)
    if isinstance(t, msgspec.inspect.DictType):
        return _nests_struct(t.value_type)
    return False


_NESTS: dict[type[Body], bool] = {}  # kinds whose bodies hold structs below the top level
_FIELDS: dict[type[Body], frozenset[str]] = {}  # field names per body type, for validate_body


def validate_body(kind: str, body: Mapping[str, Any], *, coerce_strings: bool = False) -> Body:
    """Check a body for ``kind`` and return the typed struct.

    ``coerce_strings`` lets ``--set step=10`` fill an int field from command-line text.
    Raises :class:`InvalidEventError` naming the kind and the field.
    """
    cls = body_type(kind)
    allowed = _FIELDS.get(cls)
    if allowed is None:
        allowed = _FIELDS[cls] = frozenset(cls.__struct_fields__)
    unknown = [] if allowed.issuperset(body) else sorted(set(body) - allowed)
    if unknown:
        raise InvalidEventError(
            f"unknown {noun_for(len(unknown), 'field')} {', '.join(unknown)}; {kind} takes: "
            f"{', '.join(sorted(allowed))} (put free-form values under 'extra')",
            kind=kind, field=unknown[0],
        )
    try:
        typed = msgspec.convert(dict(body), cls, strict=not coerce_strings)
    except msgspec.ValidationError as exc:
        message = str(exc)
        field = _field_of(message)
        raise InvalidEventError(re.sub(r" - at `[^`]*`$", "", message), kind=kind,
                                field=field) from None
    # Nested structs (e.g. pull.listed entries) must be as strict as the top level.
    info = _TYPE_INFO.get(cls)
    if info is None:
        info = _TYPE_INFO[cls] = msgspec.inspect.type_info(cls)
        _NESTS[cls] = isinstance(info, msgspec.inspect.StructType) and any(
            _nests_struct(f.type) for f in info.fields)
    # Top-level members were checked above; the walk can only find something below a struct.
    nested = _unknown_nested(body, info, "") if _NESTS[cls] else None
    if nested is not None:
        raise InvalidEventError(f"unknown field {nested.rsplit('.', 1)[-1]!r}", kind=kind,
                                field=nested)
    huge = _out_of_range(typed) if _may_hold_long_int(typed) else None
    if huge is not None:
        raise InvalidEventError(f"integer out of range (a ledger integer is 64-bit: {_INT64_MIN} "
                                f"to {_INT64_MAX}; give a float or text for anything larger)",
                                kind=kind, field=huge)
    return typed


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def first_leaf(value: Any, test: Callable[[Any], bool], path: str = "") -> tuple[str, Any] | None:
    """(path, value) of the first leaf of ``value`` (structs, dicts, lists and tuples are walked
    in order; anything else is a leaf) for which ``test`` is true, or None. The path is written
    as everywhere in labledger's messages: ``metrics.psnr``, ``seeds[1]``."""
    if isinstance(value, msgspec.Struct):
        items: Any = ((name, getattr(value, name)) for name in value.__struct_fields__)
    elif isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return (path, value) if test(value) else None
    is_list = isinstance(value, list | tuple)
    for key, item in items:
        where = f"{path}[{key}]" if is_list else f"{path}.{key}" if path else str(key)
        found = first_leaf(item, test, where)
        if found is not None:
            return found
    return None


_LONG_DIGITS = re.compile(rb"\d{19}")


def _may_hold_long_int(typed: Any) -> bool:
    """Whether ``typed``'s JSON has a run of 19 digits (cheap, in C): only then can an integer
    be past 64 bits, and only then is the body walked to name it."""
    try:
        return _LONG_DIGITS.search(msgspec.json.encode(typed)) is not None
    except (TypeError, ValueError):  # a value JSON cannot hold: walk (and named later)
        return True


def _out_of_range(value: Any) -> str | None:
    """The dotted path of the first integer in ``value`` that DuckDB's BIGINT cannot hold."""
    found = first_leaf(value, lambda v: type(v) is int and not _INT64_MIN <= v <= _INT64_MAX)
    return None if found is None else found[0]


def decode_body(kind: str, version: int, raw: bytes) -> Body | dict[str, Any]:
    """Decode a stored body, upcasting old versions; an unknown kind stays a plain dict."""
    cls = KINDS.get(kind)
    if cls is None:
        data: dict[str, Any] = msgspec.json.decode(raw)
        return data
    if version == SCHEMA_VERSION:
        return msgspec.json.decode(raw, type=cls)
    data = msgspec.json.decode(raw)
    while version < SCHEMA_VERSION:
        step = UPCASTERS.get((kind, version))
        if step is not None:
            data = step(data)
        version += 1
    return msgspec.convert(data, cls)


def json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one kind's body (what `emit --data` and `ingest` accept)."""
    schema: dict[str, Any] = msgspec.json.schema(body_type(kind))
    schema["title"] = kind
    schema["x-labledger-schema-version"] = SCHEMA_VERSION
    return schema


def _fast_spec(t: msgspec.inspect.Type) -> tuple[Any, ...]:
    """A plain-tuple description of a field type for `_fast_body` (("other",) = not handled)."""
    mi = msgspec.inspect
    if isinstance(t, mi.UnionType):
        members = [m for m in t.types if not isinstance(m, mi.NoneType)]
        if len(members) == 1 and len(t.types) == 2:
            return ("opt", _fast_spec(members[0]))
        return ("other",)
    if isinstance(t, mi.StrType):
        return ("str", t.min_length, t.max_length, t.pattern)
    if isinstance(t, mi.BoolType):
        return ("bool",)
    if isinstance(t, mi.IntType):
        if t.gt is not None or t.le is not None or t.lt is not None or t.multiple_of is not None:
            return ("other",)
        return ("int", t.ge)
    if isinstance(t, mi.FloatType):
        if t.gt is not None or t.le is not None or t.lt is not None or t.multiple_of is not None:
            return ("other",)
        return ("float", t.ge)
    if isinstance(t, mi.LiteralType) and all(isinstance(v, str) for v in t.values):
        return ("lit", tuple(t.values))
    if isinstance(t, mi.ListType) and t.min_length is None and t.max_length is None:
        return ("list", _fast_spec(t.item_type))
    if (isinstance(t, mi.DictType) and isinstance(t.key_type, mi.StrType)
            and t.key_type == mi.StrType() and t.min_length is None and t.max_length is None):
        return ("dict", _fast_spec(t.value_type))
    return ("other",)


def fast_table() -> dict[str, tuple[tuple[Any, ...], ...]]:
    """Per kind, its body fields in encoding order: (name, spec, required, default).

    `ledger/_kinds_table.py` is this table, generated (`python -m labledger.ledger.events`) so
    that `labledger emit` can validate without importing msgspec; a test keeps it in step.
    """
    table: dict[str, tuple[tuple[Any, ...], ...]] = {}
    for kind, cls in sorted(KINDS.items()):
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        fields = []
        for f in info.fields:
            default = f.default if f.default is not msgspec.NODEFAULT else (
                f.default_factory() if f.default_factory is not msgspec.NODEFAULT else None)
            fields.append((f.encode_name, _fast_spec(f.type), f.required, default))
        table[kind] = tuple(fields)
    return table


def render_fast_table() -> str:
    import pprint

    return (
        '"""Generated by `python -m labledger.ledger.events` from events.py\'s body structs.\n\n'
        "Do not edit: a test fails when this differs from `events.fast_table()`. No runtime\n"
        "imports: the `emit` fast path loads it instead of msgspec.\n"
        '"""\n\nfrom __future__ import annotations\n\n'
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from typing import Any\n\n"
        f"SCHEMA_VERSION = {SCHEMA_VERSION}\n"
        "TABLE: dict[str, tuple[tuple[Any, ...], ...]] = "
        f"{pprint.pformat(fast_table(), width=99)}\n"
    )


if __name__ == "__main__":  # regenerate ledger/_kinds_table.py
    from pathlib import Path

    target = Path(__file__).resolve().with_name("_kinds_table.py")  # the source, not a link
    target.write_text(render_fast_table(), encoding="utf-8")
