"""Commands that put events into the ledger: init, emit, ingest, schema."""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from labledger.ledger._words import counted
from labledger.ledger.cli._context import NonEmptyPath, common, open_ledger, state
from labledger.ledger.cli._output import dumps, emit_json, info, progress_bar, warn
from labledger.ledger.errors import InvalidEventError, LedgerError


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--segment-per-process", is_flag=True,
              help="Give every process its own segment (for NFS, sshfs or synced folders, where "
                   "shared file locks are unreliable).")
@common
def init(directory: str | None, segment_per_process: bool) -> None:
    """Create a ledger (.labledger/) in DIRECTORY (default: --root, $LABLEDGER_ROOT, or here).

    Running it again in an existing ledger changes nothing.

    Example: labledger init ~/projects/denoise
    """
    from labledger.ledger.ledger import Ledger
    from labledger.ledger.root import DIRNAME

    target = Path(directory or state().root or os.environ.get("LABLEDGER_ROOT") or ".")
    existed = (target / DIRNAME / "config.toml").exists()
    ledger = Ledger.init(target, segment_per_process=segment_per_process)
    if existed and segment_per_process and not ledger.config.segment_per_process:
        warn(f"--segment-per-process was not applied: the ledger exists and its "
             f"{ledger.paths.config} says segment_per_process = false (set it to true there "
             "to change it; events are kept either way)")
    if state().json:
        emit_json({"root": str(ledger.paths.project), "ledger": str(ledger.paths.home),
                   "created": not existed, "writer": ledger.writer})
    elif existed:
        info(click.get_current_context(), f"Ledger already exists in {ledger.paths.home}")
    else:
        info(click.get_current_context(), f"Initialized empty labledger ledger in "
                                          f"{ledger.paths.home}")


def _parse_sets(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``key=value`` pairs; dotted keys nest (``metrics.psnr=31.4``). Values stay text (the
    event's schema types them), except under ``extra``, which has no schema: there a JSON
    number, ``true``, ``false`` or ``null`` is that value (``extra.loss=0.41`` is a number, as
    the Python API would write it); other text stays text."""
    body: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise InvalidEventError(f"--set {pair!r} is not key=value", field=key or None)
        node = body
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise InvalidEventError(f"--set {key!r} nests under a plain value", field=key)
            node = child
        if parts[-1] in node:  # silently keeping the last would drop what was typed first
            what = ("would replace what earlier --set options put under it"
                    if isinstance(node[parts[-1]], dict) else
                    "is given twice (only one value can be recorded)")
            raise InvalidEventError(f"--set {key!r} {what}; give each key once", field=key)
        node[parts[-1]] = _free_form(value) if parts[0] == "extra" else value
    return body


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def _free_form(text: str) -> Any:
    if text in ("true", "false", "null"):
        return {"true": True, "false": False, "null": None}[text]
    if _JSON_NUMBER.fullmatch(text):
        number = json.loads(text)
        if isinstance(number, int) and not -(2**63) <= number < 2**63:
            return text  # a ledger integer is 64-bit: a longer one stays text, as 1e999 does
        if not isinstance(number, float) or math.isfinite(number):  # 1e999 stays text
            return number
    return text


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value
    return base


@click.command()
@click.argument("kind")
@click.option("--run", metavar="RUN",
              help="Run id the event belongs to (default: $LABLEDGER_RUN, which `labledger "
                   "run` sets for its command). run.* and checkpoint.saved need one; other "
                   "kinds without one belong to no run.")
@click.option("--instance", metavar="INSTANCE",
              help="Instance (box) id the event belongs to (default: $LABLEDGER_INSTANCE).")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="A body field (repeatable; dotted keys nest: --set metrics.psnr=31.4).")
@click.option("--data", metavar="JSON", help="The body as a JSON object (--set values win).")
@click.option("--at", metavar="TS",
              help="Backfill: when it happened (RFC 3339); the write time is kept as `recorded`.")
@click.option("--attach", "attachments", multiple=True, type=NonEmptyPath(), metavar="PATH",
              help="Store a file or directory in the CAS first and record `artifact.recorded` "
                   "for it in the same batch (repeatable). With KIND artifact.recorded, fills "
                   "its path, digest and size.")
@common
def emit(kind: str, run: str | None, instance: str | None, sets: tuple[str, ...],
         data: str | None, at: str | None, attachments: tuple[str, ...]) -> None:
    """Append one event of KIND and print its id once it is on disk.

    `labledger schema KIND` shows the fields a kind takes.

    Example: labledger emit note --run r1 --set text="eval done" --attach test/metrics.json
    """
    from labledger.ledger._fast_emit import run_and_instance

    run, instance = run_and_instance(kind, run, instance)
    body: dict[str, Any] = {}
    if data is not None:
        from labledger.ledger._fast_emit import BadData, loads_object

        try:  # the fast path's reader: a duplicate key or too deep a nesting is refused alike
            parsed = loads_object(data)
        except json.JSONDecodeError as exc:
            raise InvalidEventError(f"--data is not valid JSON ({exc.msg} at column {exc.colno})",
                                    kind=kind, field="--data") from None
        except BadData as exc:
            raise InvalidEventError(f"--data: {exc}", kind=kind, field="--data") from None
        if not isinstance(parsed, dict):
            raise InvalidEventError("--data must be a JSON object", kind=kind, field="--data")
        body = parsed
    if sets:
        body = _merge(body, _parse_sets(sets))
    ledger = open_ledger()
    if attachments:
        _emit_with_attachments(ledger, kind, body, run=run, instance=instance, at=at,
                               coerce=bool(sets), attachments=attachments)
        return
    # Values typed on the command line are text: let them fill int/float/bool fields.
    draft = ledger.draft(kind, body, run=run, instance=instance, at=at,
                         coerce_strings=bool(sets))
    _refuse_sealed_run(ledger, draft)
    record = ledger.append_drafts([draft])[0]
    if state().json:
        emit_json(record.to_dict())
    else:
        click.echo(record.id)


def _refuse_sealed_run(ledger: Any, draft: Any) -> None:
    """A new checkpoint or start of a sealed run is refused, as `labledger checkpoint` and
    `labledger run` refuse it (a backfill dated before the seal is let through)."""
    from labledger.ingest.checkpoint import SEALED_RUN_REFUSES, refuse_sealed

    if draft.kind in SEALED_RUN_REFUSES and draft.run is not None:
        refuse_sealed(ledger, draft.run, draft.kind, when=draft.ts)


_PLACEHOLDER = {"path": "-", "digest": "blake3:" + "0" * 64, "size": 0, "type": "file"}


def _emit_with_attachments(ledger: Any, kind: str, body: dict[str, Any], *, run: str | None,
                           instance: str | None, at: str | None, coerce: bool,
                           attachments: tuple[str, ...]) -> None:
    """Bytes first, events second: validate everything, store the files, then one batch."""
    from labledger.ledger.artifacts import attach, open_store, refuse_ledger_folder

    merge = kind == "artifact.recorded"
    if merge and len(attachments) != 1:
        raise InvalidEventError("artifact.recorded takes exactly one --attach", kind=kind,
                                field="--attach")
    # Validate before storing anything, so bad input leaves the store untouched as well.
    checked = ledger.draft(kind, {**_PLACEHOLDER, **body} if merge else body, run=run,
                           instance=instance, at=at, coerce_strings=coerce)
    _refuse_sealed_run(ledger, checked)
    for raw in attachments:
        if not Path(raw).exists() and not Path(raw).is_symlink():
            raise InvalidEventError(f"{raw}: no such file or directory", kind=kind,
                                    field="--attach")
        refuse_ledger_folder(ledger, raw)  # before anything is stored
    # From before the first put until the append: no `cas gc` (even --grace 0) removes an
    # attachment stored while a later one is still being read.
    with open_store(ledger).holding_off_gc():
        stored = [attach(ledger, raw, run=run, instance=instance)[1] for raw in attachments]
        if merge:
            drafts = [ledger.draft(kind, {**stored[0], **body}, run=run, instance=instance,
                                   at=at, coerce_strings=coerce)]
        else:
            drafts = [ledger.draft("artifact.recorded", item, run=run, instance=instance, at=at)
                      for item in stored]
            drafts.append(ledger.draft(kind, body, run=run, instance=instance, at=at,
                                       coerce_strings=coerce))
        records = ledger.append_drafts(drafts)
    if state().json:
        emit_json({**records[-1].to_dict(),
                   "attachments": [r.to_dict() for r in records[:-1]] if not merge else []})
        return
    click.echo(records[-1].id)
    for item in stored:
        info(click.get_current_context(), f"stored {item['digest']}  {item['path']}")


def _read_source(source: str) -> tuple[bytes, str]:
    """The bytes of FILE (or stdin for ``-``) and the name errors give it."""
    if source == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    try:
        return Path(source).read_bytes(), source
    except OSError as exc:
        raise InvalidEventError(f"cannot read {source}: {exc.strerror}", source=source) from None


_INGEST_BAR_BYTES = 16 * 1024 * 1024  # about a second of ingest: a bar from there on


@click.command()
@click.argument("source", metavar="FILE|-", type=NonEmptyPath(allow_dash=True))
@common
def ingest(source: str) -> None:
    """Append events from a JSON-lines FILE (or - for stdin): all of them, or none.

    Each line: {"kind": ..., "run": ..., "instance": ..., "at": ..., "body": {...}}. The whole
    batch is validated first, then written under one lock and one fsync. A FILE over 16 MiB
    (seconds of work) shows a progress bar on stderr when it is a terminal.

    Example: labledger ingest events.jsonl
    """
    import gc

    from labledger.ledger._bulk import parse_lines
    from labledger.ledger._identity import default_actor

    # Millions of small objects and no cycles: the collector would only rescan them (~30% of
    # the time). This process ends soon after, so it stays off only for the batch.
    gc.disable()
    try:
        raw, name = _read_source(source)
        size = len(raw)
        # Half the bar is validating the bytes, half encoding and chaining the records.
        with progress_bar(2 * size, f"ingesting {name}", at_least=2 * _INGEST_BAR_BYTES) as bar:
            # Validated before the ledger is opened, as always (`Ledger.actor` is
            # default_actor()).
            batch = parse_lines(raw, actor=default_actor(), source=name, parallel=True,
                                progress=bar)
            del raw
            ledger = open_ledger()
            per_record = size / max(1, len(batch))
            done = ledger.append_parsed(
                batch, progress=None if bar is None else lambda n: bar(int(n * per_record)))
            del batch
            if bar is not None:
                bar(2 * size)  # what rounding left: the bar ends full (updates are clamped)
    finally:
        gc.enable()
    from labledger.ledger.segment import has_closed_segments

    # The events are acknowledged (fsynced) from here on: sealing is housekeeping, and its
    # failure (a full disk; a compact racing it) is a warning, never exit 1, which would read
    # as "not recorded" and make a retry record the events twice.
    try:
        if has_closed_segments(ledger.paths.segments / ledger.writer):
            from labledger.ledger.seal import seal_writer

            seal_writer(ledger.paths.segments / ledger.writer, close_open=False)
    except (LedgerError, OSError) as exc:
        warn(f"labledger: warning: the events were recorded, but {exc}")
    summary = {"type": "summary", "appended": done.appended, "first_seq": done.first_seq,
               "last_seq": done.last_seq, "writer": ledger.writer}
    if state().json:
        emit_json(summary)
    else:
        info(click.get_current_context(), f"appended {counted(done.appended, 'event')}")


@click.command()
@click.argument("kind", required=False)
@common
def schema(kind: str | None) -> None:
    """Print the JSON Schema of KIND's body; without KIND, list the kinds.

    Example: labledger schema checkpoint.saved
    """
    from labledger.ledger import events as ev

    if kind is None:
        if state().json:
            emit_json(sorted(ev.KINDS))
        else:
            for name in sorted(ev.KINDS):
                click.echo(name)
        return
    if kind not in ev.KINDS:  # read-only: the event error's "nothing was written" would puzzle
        raise click.BadParameter(f"unknown event kind {kind!r}; known kinds: "
                                 f"{', '.join(sorted(ev.KINDS))}", param_hint="KIND")
    click.echo(dumps(ev.json_schema(kind), indent=2))
