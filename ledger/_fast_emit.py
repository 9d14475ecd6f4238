"""`labledger emit` without click or msgspec, for the common case; see `_main`.

`try_emit` returns None (take the full CLI) for anything it does not fully handle, and only ever
before it writes: once the append has started, its outcome is reported here, never retried.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_VALUE_OPTIONS = {"--run", "--instance", "--set", "--data", "--root"}
# = ingest.checkpoint.SEALED_RUN_REFUSES (not imported: this path imports nothing it can avoid)
_SEALED_RUN_REFUSES = frozenset({"checkpoint.saved", "run.launched"})


def _parse(args: list[str]) -> dict[str, Any] | None:
    """``{"root", "kind", "run", "instance", "sets", "data"}`` or None when not the plain form."""
    found: dict[str, Any] = {"sets": []}
    seen_emit = False
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, inline = arg.partition("=")
        if arg.startswith("-"):
            if name not in _VALUE_OPTIONS or (name != "--root" and not seen_emit):
                return None  # --json, -q, --at, --attach, --help, ...: the full CLI
            if eq:
                value = inline
            else:
                if i + 1 >= len(args):
                    return None
                value = args[i + 1]
                i += 1
            key = name[2:]
            if key == "set":
                found["sets"].append(value)
            elif key in found:
                return None  # given twice: let click decide
            else:
                found[key] = value
        elif not seen_emit:
            if arg != "emit":
                return None
            seen_emit = True
        elif "kind" not in found:
            found["kind"] = arg
        else:
            return None
        i += 1
    return found if seen_emit and "kind" in found else None


class BadData(Exception):  # noqa: N818 - reported as the full CLI reports InvalidEventError
    """``--data`` that JSON decoders read without complaint but wrongly: refused."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members; a key given twice is refused (a plain dict keeps the last)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise BadData(f"key {key!r} is given twice; give each key once")
            seen.add(key)
    return found


def loads_object(text: str) -> Any:
    """``json.loads(text)`` that refuses, with `BadData`, what it would silently misread or
    crash on: a duplicate key (the last would win) and nesting past the interpreter's
    recursion limit (a RecursionError). Raises ValueError for text that is not JSON."""
    try:
        return json.loads(text, object_pairs_hook=_unique)
    except RecursionError:
        from labledger.ledger._fast_body import MAX_DEPTH

        raise BadData(f"nested too deeply (more than {MAX_DEPTH} levels)") from None


def _body(found: dict[str, Any]) -> dict[str, Any] | None:
    body: dict[str, Any] = {}
    if "data" in found:
        try:
            parsed = loads_object(found["data"])
        except ValueError:
            return None
        if not isinstance(parsed, dict):
            return None
        body = parsed
    given: set[str] = set()
    for pair in found["sets"]:
        key, eq, value = pair.partition("=")
        if not eq or not key or key in given or any(g.startswith(key + ".") for g in given):
            return None  # a key --set twice: the full CLI refuses it
        given.add(key)
        node = body
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                return None
            node = child
        if isinstance(node.get(parts[-1]), dict):
            return None  # --set replacing a whole object: the full CLI merges it
        node[parts[-1]] = value
    return body


def needs_run(kind: str) -> bool:
    """Whether an event of ``kind`` means nothing without a run (a heartbeat of no run): the
    runs view would never show it. `ledger.make_draft` refuses a new one (every entry point:
    emit, ingest, the Python API); records already in a ledger are read as they are."""
    return kind.startswith("run.") or kind == "checkpoint.saved"


def runless_problem(kind: str) -> str:
    """The words every entry point refuses a `needs_run` event without a run in."""
    return (f"{kind} belongs to a run: give --run RUN (\"run\" in an ingested line or the "
            "Python API; a command started by `labledger run` has it in $LABLEDGER_RUN)")


def run_and_instance(kind: str, run: str | None, instance: str | None
                     ) -> tuple[str | None, str | None]:
    """``--run`` and ``--instance``, else ``$LABLEDGER_RUN`` and ``$LABLEDGER_INSTANCE``
    (set by `labledger run` for the command it runs), as `labledger checkpoint` takes them."""
    from labledger.ledger._identity import id_from_env

    if run is None:
        run = id_from_env("LABLEDGER_RUN", "run")
    if instance is None:
        instance = id_from_env("LABLEDGER_INSTANCE", "instance")
    return run, instance


def try_emit(args: list[str]) -> int | None:
    found = _parse(args)
    if found is None or found["kind"] in _SEALED_RUN_REFUSES:
        return None  # (a sealed run refuses these: the full CLI checks the ledger for a seal)
    try:
        body = _body(found)
    except BadData as exc:
        # The full CLI reads --data with json.loads, which keeps the last of duplicate keys
        # and has no depth limit of its own: refused here, reported as it reports bad input.
        from labledger.ledger.errors import InvalidEventError

        sys.stderr.write(f"labledger: error: "
                         f"{InvalidEventError(str(exc), kind=found['kind'], field='--data')}\n")
        return 2
    if body is None:
        return None
    from labledger.ledger._fast_body import encode_body
    from labledger.ledger._identity import id_problem
    from labledger.ledger.errors import InvalidEventError

    try:
        run, instance = run_and_instance(found["kind"], found.get("run"), found.get("instance"))
    except InvalidEventError:
        return None  # the full CLI reports it
    if run is None and needs_run(found["kind"]):
        return None  # the full CLI refuses it
    if id_problem("run", run) or id_problem("instance", instance):
        return None
    encoded = encode_body(found["kind"], body, coerce=bool(found["sets"]))
    if encoded is None:
        return None
    from labledger.ledger._identity import default_actor, default_writer
    from labledger.ledger._kinds_table import SCHEMA_VERSION
    from labledger.ledger._line import encode_line
    from labledger.ledger._time import now_ts
    from labledger.ledger.errors import LedgerError
    from labledger.ledger.fs import unsafe_reason
    from labledger.ledger.root import find_root, read_config
    from labledger.ledger.segment import Draft, SegmentWriter

    try:
        paths = find_root(found.get("root"))
        config = read_config(paths)
    except LedgerError:
        return None  # the full CLI reports it
    per_process = config.segment_per_process or bool(
        os.environ.get("LABLEDGER_SEGMENT_PER_PROCESS"))
    if not per_process and unsafe_reason(paths.segments) is not None:
        return None
    writer = default_writer(per_process)
    appender = SegmentWriter(
        paths.segments / writer, writer=writer, recovered_dir=paths.recovered / writer,
        max_events=config.segment_max_events, max_bytes=config.segment_max_bytes,
        encoder=encode_line,
    )
    draft = Draft(kind=found["kind"], body=encoded, ts=now_ts(), actor=default_actor(),
                  v=SCHEMA_VERSION, run=run, instance=instance)
    try:
        placed = appender.append([draft])[0]
    except LedgerError as exc:  # the write was attempted: report it, never fall back to a retry
        sys.stderr.write(f"labledger: error: {exc}\n")
        return 1
    finally:
        appender.close()
    sys.stdout.write(placed.id + "\n")
    return 0
