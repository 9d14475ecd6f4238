"""The rules a run capsule must meet before it is sealed, and the checker that applies them.

Defaults follow the canonical layout (DOMAIN.md, "Canonical run capsule")::

    <run-id>/run.json  config.yaml  train.csv  best.pth  [last.pth]
             test/<test-id>/metrics.json  results.parquet  [vis/<condition>/<role>/<sample>.png]

A project changes them in ``.labledger/capsule.toml`` (kebab-case keys, unknown keys refused;
every option is documented on `CapsuleRules`). It is a file of its own because the ledger's
``config.toml`` holds the on-disk format and refuses options it does not know.

The checker collects *every* problem rather than stopping at the first, so one quarantine
reason tells the whole story. It never changes the directory it checks.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shlex
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import msgspec

from labledger.ingest.checkpoint_load import LOADER, LoadResult, load_checkpoints, torch_available
from labledger.ingest.errors import CapsuleConfigError
from labledger.ledger._words import counted, noun_for
from labledger.ledger.errors import InvalidEventError

if TYPE_CHECKING:
    from labledger.ledger.ledger import Ledger

RULES_FILE = "capsule.toml"
_PARQUET_MAGIC = b"PAR1"
_MAX_LISTED = 5  # paths named per problem; the count says how many more


class CapsuleRules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                   rename="kebab"):
    """What a capsule must hold and must not hold. Every option has the default shown.

    required
        Files that must exist at the capsule's top level.
    forbidden
        Glob patterns of files that must not exist: a pattern without ``/`` matches a file name
        at any depth, one with ``/`` the path from the capsule root. ``latest.pth`` is the
        rolling resume anchor (it belongs in ``active/``); ``*.labledger-tmp`` is a temp file
        `save_checkpoint` left when it was killed mid-write (torn bytes); the others are
        completion sentinels and stale markers, which say nothing about the current state.
    forbidden_dirs
        Glob patterns of directory names that must not exist at any depth (caches).
    test_dir, min_tests, test_required
        At least ``min_tests`` directories under ``test_dir``, each holding ``test_required``.
        ``metrics.json`` must be a JSON object and ``results.parquet`` a Parquet file.
    checkpoints
        File-name globs of checkpoints; each must load with
        ``torch.load(map_location="cpu", weights_only=True)`` in a child process, hold at least
        one tensor, and every floating tensor must be finite.
    load_checkpoints
        ``"auto"``: load when torch is installed; ``"always"``: a missing torch is a problem;
        ``"never"``: skip loading.
    load_timeout
        Seconds the child process may take for all checkpoints together.
    inventory_keys
        Top-level keys of ``run.json`` that would make it a file inventory (the capsule's tree
        digest is the inventory; a list inside it goes stale).
    check_visuals, vis_extension
        When ``run.json`` declares ``conditions``, ``roles`` and ``selection`` (a list of sample
        ids, or an object with ``ids``), every test must hold
        ``vis/<condition>/<role>/<sample>.<vis_extension>`` for each combination.
    allow_symlinks
        Symlinks make a capsule depend on files outside it; refused unless true.
    allow_empty
        Whether required files may be empty.
    run_id_fields
        ``FILE:KEY`` fields of top-level JSON files that hold the run's own id: ``run.json``'s
        ``run_id`` or ``run`` (the run's identity, DOMAIN.md), and ``run_id`` of the seed's
        ``PULL_MANIFEST.json`` / ``PULL_VERIFIED.json``. A field that holds another run that
        the ledger knows (some event names it) than the run being closed is a problem (a seal
        is final: a typo in ``--run`` would label the results as another run's for good); one
        that names a run the ledger has never seen (often a tracker's id, ``wandb-3kq9x1``) is
        only a warning. A missing file or key, a file that is not a regular file of at most
        1 MiB, or a value that is not a string (``"run": 3``, an index), says nothing. ``[]``
        turns the check off.
    """

    required: list[str] = msgspec.field(
        default_factory=lambda: ["run.json", "config.yaml", "train.csv", "best.pth"])
    forbidden: list[str] = msgspec.field(
        default_factory=lambda: ["latest.pth", "COMPLETE.json", "MANIFEST.json", "DONE",
                                 ".done", "REASON.txt", "*.labledger-tmp"])
    forbidden_dirs: list[str] = msgspec.field(
        default_factory=lambda: ["__pycache__", ".ipynb_checkpoints", "wandb"])
    test_dir: str = "test"
    min_tests: int = 1
    test_required: list[str] = msgspec.field(
        default_factory=lambda: ["metrics.json", "results.parquet"])
    checkpoints: list[str] = msgspec.field(default_factory=lambda: ["*.pth", "*.pt"])
    load_checkpoints: Literal["auto", "always", "never"] = "auto"
    load_timeout: float = 300.0
    inventory_keys: list[str] = msgspec.field(
        default_factory=lambda: ["files", "manifest", "inventory"])
    check_visuals: bool = True
    vis_extension: str = "png"
    allow_symlinks: bool = False
    allow_empty: bool = False
    run_id_fields: list[str] = msgspec.field(
        default_factory=lambda: ["run.json:run_id", "run.json:run", "PULL_MANIFEST.json:run_id",
                                 "PULL_VERIFIED.json:run_id"])


def load_rules(ledger_home: Path | None) -> CapsuleRules:
    """Read ``<ledger_home>/capsule.toml`` if it exists, else the defaults.

    Raises `CapsuleConfigError` for invalid TOML, an unknown option or a wrong type.
    """
    if ledger_home is None:
        return CapsuleRules()
    path = ledger_home / RULES_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return CapsuleRules()
    except (OSError, UnicodeDecodeError) as exc:
        raise CapsuleConfigError(path, f"cannot be read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CapsuleConfigError(path, f"not valid TOML ({exc})") from None
    try:
        rules = msgspec.convert(data, CapsuleRules)
    except msgspec.ValidationError as exc:
        raise CapsuleConfigError(path, str(exc)) from None
    bad = [f for f in rules.run_id_fields if not all(f.rpartition(":")[::2])]
    if bad:
        raise CapsuleConfigError(path, f"run-id-fields: {bad[0]!r} is not FILE:KEY "
                                       "(e.g. \"run.json:run_id\")")
    return rules


class CapsuleCheck(msgspec.Struct, frozen=True, kw_only=True):
    """What the checker found: every problem, and each checkpoint it loaded.

    ``loaded`` is empty when loading was skipped (``load_checkpoints`` or no torch);
    ``loader`` names how checkpoints were loaded, or None; ``unloaded`` the checkpoints left
    unloaded because torch is not installed (``load-checkpoints = "auto"``), to be said.
    """

    problems: list[str]
    loaded: list[LoadResult]
    loader: str | None
    unloaded: list[str] = msgspec.field(default_factory=list)
    # Said, not refused: a run id the capsule's files name that the ledger has never seen.
    warnings: list[str] = msgspec.field(default_factory=list)

    @property
    def is_ok(self) -> bool:
        return not self.problems


class _Listing(msgspec.Struct, kw_only=True):
    files: dict[str, int] = msgspec.field(default_factory=dict)  # path -> size
    dirs: list[str] = msgspec.field(default_factory=list)
    links: list[str] = msgspec.field(default_factory=list)
    special: list[str] = msgspec.field(default_factory=list)


def _scan(root: Path) -> _Listing:
    out = _Listing()
    stack = [(root, "")]
    while stack:
        here, rel = stack.pop()
        with os.scandir(here) as it:
            for entry in it:
                path = f"{rel}/{entry.name}" if rel else entry.name
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISLNK(mode):
                    out.links.append(path)
                elif stat.S_ISDIR(mode):
                    out.dirs.append(path)
                    stack.append((Path(entry.path), path))
                elif stat.S_ISREG(mode):
                    out.files[path] = entry.stat(follow_symlinks=False).st_size
                else:
                    out.special.append(path)
    return out


def _named(what: str, paths: list[str]) -> str:
    paths = sorted(paths)
    shown = ", ".join(paths[:_MAX_LISTED])
    more = f" and {len(paths) - _MAX_LISTED} more" if len(paths) > _MAX_LISTED else ""
    return f"{what}: {shown}{more}"


def _matches(path: str, pattern: str) -> bool:
    if "/" in pattern:
        return fnmatch.fnmatchcase(path, pattern)
    return fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)


def _check_layout(listing: _Listing, rules: CapsuleRules) -> list[str]:
    problems = []
    for name in rules.required:
        if name not in listing.files:
            problems.append(f"missing required file {name}")
        elif listing.files[name] == 0 and not rules.allow_empty:
            problems.append(f"required file {name} is empty")
    for pattern in rules.forbidden:
        hits = [p for p in listing.files if _matches(p, pattern)]
        hits += [p for p in listing.links if _matches(p, pattern)]
        if hits:
            problems.append(_named(f"forbidden file ({pattern})", hits))
    caches = [d for d in listing.dirs
              if any(fnmatch.fnmatchcase(d.rsplit("/", 1)[-1], g) for g in rules.forbidden_dirs)]
    if caches:
        problems.append(_named("forbidden cache directory", caches))
    if listing.links and not rules.allow_symlinks:
        problems.append(_named("symlink (a capsule must hold its own bytes)", listing.links))
    if listing.special:
        problems.append(_named("not a regular file, directory or symlink", listing.special))
    return problems


def _tests(listing: _Listing, rules: CapsuleRules) -> list[str]:
    prefix = rules.test_dir.strip("/") + "/"
    names = (d[len(prefix):] for d in listing.dirs if d.startswith(prefix))
    # A cache under test/ is reported as a cache, not as a test with missing outputs.
    return sorted(n for n in names if "/" not in n
                  and not any(fnmatch.fnmatchcase(n, g) for g in rules.forbidden_dirs))


def _check_tests(root: Path, listing: _Listing, rules: CapsuleRules) -> list[str]:
    problems = []
    tests = _tests(listing, rules)
    if len(tests) < rules.min_tests:
        problems.append(f"{counted(len(tests), 'test')} under {rules.test_dir}/; at least "
                        f"{rules.min_tests} required")
    for test in tests:
        base = f"{rules.test_dir.strip('/')}/{test}"
        for name in rules.test_required:
            rel = f"{base}/{name}"
            if rel not in listing.files:
                problems.append(f"missing {rel}")
            elif name.endswith(".json"):
                try:
                    value = json.loads((root / rel).read_bytes())
                except (ValueError, UnicodeDecodeError):
                    problems.append(f"{rel} is not valid JSON")
                    continue
                if not isinstance(value, dict):
                    problems.append(f"{rel} is not a JSON object")
            elif name.endswith(".parquet") and not _looks_like_parquet(root / rel):
                problems.append(f"{rel} is not a Parquet file (no PAR1 magic at both ends)")
    return problems


def _looks_like_parquet(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(4)
        if fh.seek(0, os.SEEK_END) < 12:
            return False
        fh.seek(-4, os.SEEK_END)
        return head == _PARQUET_MAGIC and fh.read(4) == _PARQUET_MAGIC


class _RunJson(msgspec.Struct, frozen=True):
    """``run.json`` as the checker read it, once: its JSON value (None when it is missing, not
    a regular file or not valid JSON), its size in bytes, and the problems with it."""

    value: Any = None
    size: int = 0
    problems: list[str] = msgspec.field(default_factory=list)

    @property
    def object(self) -> dict[str, Any] | None:
        return self.value if isinstance(self.value, dict) else None

    @property
    def for_ids(self) -> Any:
        """The value as `named_runs` reads a file (`_small_json`): None above `_MAX_ID_FILE`."""
        return self.value if self.size <= _MAX_ID_FILE else None


def _read_run_json(root: Path, listing: _Listing) -> _RunJson:
    if "run.json" not in listing.files:
        return _RunJson()
    try:
        data = _read_regular(root / "run.json")
    except OSError as exc:
        return _RunJson(problems=[f"run.json cannot be read ({exc.strerror or exc})"])
    if data is None:  # swapped for a FIFO or a link since the scan: never read through it
        return _RunJson(problems=["run.json is not a regular file"])
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return _RunJson(size=len(data), problems=[f"run.json is not valid JSON ({exc})"])
    if not isinstance(value, dict):
        return _RunJson(value, len(data), ["run.json is not a JSON object"])
    return _RunJson(value, len(data))


def _safe_component(value: Any) -> str | None:
    text = str(value)
    if not text or text in (".", "..") or "/" in text or "\x00" in text:
        return None
    return text


def _check_visuals(run: dict[str, Any], listing: _Listing, rules: CapsuleRules) -> list[str]:
    if not rules.check_visuals or not all(k in run for k in ("conditions", "roles", "selection")):
        return []
    conditions, roles, selection = run["conditions"], run["roles"], run["selection"]
    if isinstance(selection, dict):
        selection = selection.get("ids", selection.get("samples"))
    declared = {"conditions": conditions, "roles": roles, "selection ids": selection}
    for name, value in declared.items():
        if not isinstance(value, list) or not value:
            return [f"run.json declares visual coverage but its {name} is not a non-empty list"]
    parts = [[_safe_component(v) for v in conditions], [_safe_component(v) for v in roles],
             [_safe_component(v) for v in selection]]
    if any(p is None for group in parts for p in group):
        return ["run.json's conditions, roles or selection ids contain an empty, '.', '..' or "
                "'/' value that cannot name a file"]
    missing = []
    for test in _tests(listing, rules):
        base = f"{rules.test_dir.strip('/')}/{test}/vis"
        for condition in parts[0]:
            for role in parts[1]:
                for sample in parts[2]:
                    rel = f"{base}/{condition}/{role}/{sample}.{rules.vis_extension}"
                    if rel not in listing.files:
                        missing.append(rel)
    if missing:
        return [_named(f"visual coverage incomplete, {counted(len(missing), 'image')} missing",
                       missing)]
    return []


class NamedRun(msgspec.Struct, frozen=True):
    """A run id the capsule's own files record: ``key`` of the JSON object in ``file``."""

    file: str
    key: str
    run: str

    @property
    def where(self) -> str:
        return f"{self.file}'s {self.key}"


_MAX_ID_FILE = 1 << 20  # bytes of a file read for run ids: a run.json is a few KiB


def _read_regular(path: Path, limit: int | None = None) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (not followed through a link) of at most
    ``limit`` bytes (None: any size), else None; an `OSError` propagates. A FIFO or device named
    run.json would block a plain read for ever (before any check could refuse it)."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        return None
    # O_NONBLOCK: a file swapped for a FIFO since the lstat cannot block the open either.
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        data = fh.read() if limit is None else fh.read(limit + 1)
    return None if limit is not None and len(data) > limit else data


def _small_json(path: Path) -> Any:
    """The JSON value of ``path`` when it is a regular file (`_read_regular`) of at most
    `_MAX_ID_FILE` bytes, else None; the layout checks judge such files."""
    try:
        data = _read_regular(path, _MAX_ID_FILE)
        return None if data is None else json.loads(data)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None


def named_runs(root: Path, rules: CapsuleRules | None = None, *,
               documents: dict[str, Any] | None = None) -> list[NamedRun]:
    """Every run id that a ``rules.run_id_fields`` field of the folder ``root`` holds, in the
    order of the rules. A file that is missing, unreadable, not a regular file of at most
    1 MiB or not a JSON object, a missing key, and a value that is not a non-empty string are
    skipped: this reads identities, the layout checks judge the files. ``documents``: files
    the caller has read already (name -> the value `_small_json` would give), not read again."""
    rules = rules or CapsuleRules()
    documents = dict(documents or {})
    out = []
    for spec in rules.run_id_fields:
        name, _, key = spec.rpartition(":")
        if name not in documents:
            documents[name] = _small_json(root / name)
        doc = documents[name]
        value = doc.get(key) if isinstance(doc, dict) else None
        if isinstance(value, str) and value:
            out.append(NamedRun(name, key, value))
    return out


def run_of_folder(root: Path, rules: CapsuleRules | None = None) -> str | None:
    """The one run id the folder's own files name (`named_runs`), for a command given neither
    ``--run`` nor ``$LABLEDGER_RUN`` (`close`, `ingest-dir`); None when they name none (the
    caller's refusal says how to give one). Raises `InvalidEventError` when they name several:
    which is the run is not for labledger to guess."""
    named = named_runs(root, rules)
    runs = sorted({n.run for n in named})
    if len(runs) > 1:
        listed = ", ".join(f"{n.run} ({n.where})" for n in named)
        raise InvalidEventError(
            f"no --run given, and {root} names more than one run: {listed}; pass --run RUN "
            "(the one it is) and fix the others", field="run")
    return runs[0] if runs else None


class IdentityAct(NamedTuple):
    """What a command does with a folder, in the words of `check_run_identity`'s messages."""

    verb: str  # "close": what the fix does again
    being: str  # "closed": "... but it is being closed as run 'r8'"
    done: str  # "sealed": "... sealed as run 'sweep-b'"
    final: str  # why a run its files contradict is refused


CLOSING = IdentityAct("close", "closed", "sealed", "a seal is final, so a capsule is never "
                      "sealed under a run its own files contradict")
RECORDING = IdentityAct("record", "recorded", "recorded", "events are final (the ledger is "
                        "append-only), so a folder is never recorded under a run its own files "
                        "contradict")


def check_run_identity(root: Path, rules: CapsuleRules, run: str, *, again: str,
                       known: Callable[[str], bool], act: IdentityAct = CLOSING,
                       documents: dict[str, Any] | None = None) -> tuple[list[str], list[str]]:
    """(problems, warnings) for the `named_runs` of the folder ``root`` that name another run
    than ``run``: a problem for each that ``known`` says the ledger knows (a typo'd ``--run``),
    else one warning line naming them all (a tracker's own id, ``wandb-3kq9x1``, is no run of
    this ledger). ``again`` is the command that does it again, without its ``--run``; ``act``
    words the messages (`CLOSING` for `labledger close`, `RECORDING` for `ingest-dir`);
    ``documents`` as for `named_runs`."""
    problems: list[str] = []
    unknown: dict[str, list[str]] = {}  # run id -> the fields naming it, in the rules' order
    for named in named_runs(root, rules, documents=documents):
        if named.run == run:
            continue
        if not known(named.run):
            unknown.setdefault(named.run, []).append(named.where)
            continue
        problems.append(
            f"{named.file} says this is run {named.run!r} ({named.key}), but it is being "
            f"{act.being} as run {run!r}: {act.final}. If it is {named.run}, {act.verb} it as "
            f"that run (`{again} --run {shlex.quote(named.run)}`); if it is {run}, fix "
            f"{named.where}")
    return problems, [_never_seen(unknown, run, act)] if unknown else []


def _never_seen(unknown: dict[str, list[str]], run: str, act: IdentityAct) -> str:
    """One line for every run id the folder names that the ledger has never seen."""
    parts = [f"{' and '.join(wheres)} name{'s' if len(wheres) == 1 else ''} run {named!r}"
             for named, wheres in unknown.items()]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    which, whose = (("which this ledger has never seen", "it is a tracker's id")
                    if len(unknown) == 1 else
                    ("runs this ledger has never seen", "they are a tracker's ids"))
    return (f"{said}, {which}; {act.done} as run {run!r} (if {whose}, set run-id-fields in "
            ".labledger/capsule.toml to silence this)")


def ledger_knows(led: Ledger) -> Callable[[str], bool]:
    """Whether some event of the ledger names a run: read in one pass, on the first question
    only (asked only when a folder's files name another run than the one it is put under)."""
    runs: set[str] | None = None

    def known(run: str) -> bool:
        nonlocal runs
        if runs is None:
            runs = {r.run for r in led.records() if r.run}
        return run in runs

    return known


def check_capsule(root: Path, rules: CapsuleRules | None = None, *, run: str | None = None,
                  again: str = "labledger close DIR",
                  known: Callable[[str], bool] = lambda _run: True) -> CapsuleCheck:
    """Check the directory ``root`` against ``rules`` (defaults when None); changes nothing.

    ``run``: the run it is to be sealed as; a field of ``rules.run_id_fields`` that names
    another run that ``known`` says the ledger knows is a problem, whose fix names ``again``
    (the command to close it again, without ``--run``); one it does not know is a warning.
    None: not checked."""
    rules = rules or CapsuleRules()
    listing = _scan(root)
    problems = _check_layout(listing, rules)
    read = _read_run_json(root, listing)  # once: for the run's id and for its own checks
    warnings: list[str] = []
    if run is not None:
        identity, warnings = check_run_identity(root, rules, run, again=again, known=known,
                                                documents={"run.json": read.for_ids})
        problems += identity
    problems += _check_tests(root, listing, rules)
    problems += read.problems
    run_json = read.object
    if run_json is not None:
        inventory = sorted(k for k in rules.inventory_keys if k in run_json)
        if inventory:
            problems.append("run.json carries a file inventory "
                            f"({noun_for(len(inventory), 'key')} {', '.join(inventory)}); "
                            "the capsule's tree digest is its inventory")
        problems += _check_visuals(run_json, listing, rules)
    checkpoints = sorted(p for p in listing.files
                         if any(_matches(p, g) for g in rules.checkpoints))
    loaded: list[LoadResult] = []
    loader: str | None = None
    if checkpoints and rules.load_checkpoints != "never":
        if torch_available():
            loader = LOADER
            loaded = load_checkpoints([root / p for p in checkpoints],
                                      timeout=rules.load_timeout)
            loaded = [msgspec.structs.replace(r, path=p)
                      for r, p in zip(loaded, checkpoints, strict=True)]
            problems += [f"checkpoint {r.path} does not load safely: {r.error}"
                         for r in loaded if not r.ok]
        elif rules.load_checkpoints == "always":
            problems.append("torch is not installed, so checkpoints cannot be loaded "
                            "(install labledger[torch] or set load-checkpoints = \"auto\")")
        else:
            return CapsuleCheck(problems=problems, loaded=[], loader=None, unloaded=checkpoints,
                                warnings=warnings)
    return CapsuleCheck(problems=problems, loaded=loaded, loader=loader, warnings=warnings)
