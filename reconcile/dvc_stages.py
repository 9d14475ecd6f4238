"""What ``dvc repro`` and ``dvc exp run`` run, and what they delete first (for the agent hook).

DVC runs a pipeline's stages from ``dvc.yaml`` (``stages: NAME: {cmd, wdir, deps, outs,
metrics, plots}``), each ``cmd`` (a string, or a list run in order) in the stage's ``wdir``
(relative to the ``dvc.yaml``), and before it runs a stage it removes that stage's outputs
(``outs``, ``metrics``, ``plots``; each a path, or ``{path: {persist: true, ...}}``: a
persistent one is kept). Which stages run depends on what changed since ``dvc.lock``, which is
not computed here: every stage named (all of them without a target) counts as run, its
outputs as removed (fail closed; ``--dry`` runs none), and so does every stage a named one
depends on (its output is the other's input: DVC runs it first). A target is a stage name, a
``dvc.yaml`` path, or ``path/dvc.yaml:stage``. A ``foreach``/``matrix`` stage runs its
``do`` template with ``${item}`` left as written (computed when it runs).

Invariants: pure functions over the text of a ``dvc.yaml`` (parsed with PyYAML); a text that
is not one gives no stage (DVC refuses it); never raises.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

__all__ = ["DvcRun", "StageLine", "dvc_run", "stage_lines"]

# `dvc repro` (`dvc exp run` takes the same targets) options that take a value
_VALUED = {"--glob", "-j", "--jobs", "-n", "--name", "--set-param", "-S", "--message",
           "-m", "--queue-name", "--temp-dir"}


@dataclass(frozen=True)
class DvcRun:
    """A pipeline run: the targets named (none: every stage)."""

    targets: tuple[str, ...]


@dataclass(frozen=True)
class StageLine:
    """What a stage does, in order: its outputs removed (``rm``: ``text`` is the path), then
    each command (``cmd``), in ``folder`` (relative to the ``dvc.yaml``'s folder)."""

    stage: str
    kind: str
    text: str
    folder: str


def dvc_run(args: list[str]) -> DvcRun | None:
    """The run ``dvc ARGS`` starts: ``repro [TARGETS]`` or ``exp run [TARGETS]``; None for
    any other command, and for ``--dry`` (nothing runs) or ``--help``."""
    if args[:1] == ["repro"]:
        rest = args[1:]
    elif args[:2] == ["exp", "run"]:
        rest = args[2:]
    else:
        return None
    targets: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        i += 1
        if word in ("--dry", "-h", "--help"):
            return None
        if word in _VALUED:
            i += 1
        elif not word.startswith("-"):
            targets.append(word)
    return DvcRun(tuple(targets))


def stage_lines(text: str, targets: list[str]) -> list[StageLine]:
    """The removals and commands of the stages of the ``dvc.yaml`` ``text`` named by
    ``targets`` (stage names; none: every stage), in the file's order."""
    try:
        import yaml  # type: ignore[import-untyped]

        data = yaml.safe_load(text)
    except Exception:  # not YAML (or nested past the parser's limits): DVC refuses it too
        return []
    stages = data.get("stages") if isinstance(data, dict) else None
    if not isinstance(stages, dict):
        return []
    read = {name: _template(stage) for name, stage in stages.items()
            if isinstance(name, str) and isinstance(_template(stage), dict)}
    chosen = _with_upstream(read, set(targets)) if targets else set(read)
    found: list[StageLine] = []
    for name, stage in read.items():
        if name not in chosen:
            continue
        wdir = stage.get("wdir")
        folder = wdir if isinstance(wdir, str) else "."
        for key in ("outs", "metrics", "plots"):
            found += [StageLine(name, "rm", path, folder) for path in _removed(stage.get(key))]
        commands = stage.get("cmd")
        for command in commands if isinstance(commands, list) else [commands]:
            if isinstance(command, str) and command.strip():
                found.append(StageLine(name, "cmd", command, folder))
    return found


def _template(stage: Any) -> Any:
    """A stage as it runs: a ``foreach``/``matrix`` stage's ``do`` template (``${item}``
    left as written: computed when it runs), any other as written."""
    if isinstance(stage, dict) and isinstance(stage.get("do"), dict):
        return stage["do"]
    return stage


def _with_upstream(stages: dict[str, dict[str, Any]], named: set[str]) -> set[str]:
    """``named`` and the stages they depend on, transitively: a stage whose output is, is
    inside, or holds one of a chosen stage's ``deps`` runs before it (``dvc repro train``
    runs ``prepare`` first when ``prepare``'s output is ``train``'s input)."""
    outputs = {name: [p for key in ("outs", "metrics", "plots")
                      for p in _removed(stage.get(key), everything=True)]
               for name, stage in stages.items()}
    chosen = {n for n in named if n in stages}
    todo = list(chosen)
    while todo:
        deps = stages[todo.pop()].get("deps")
        needed = [os.path.normpath(d) for d in deps if isinstance(d, str)] \
            if isinstance(deps, list) else []
        for name, paths in outputs.items():
            if name not in chosen and any(
                    p == d or d.startswith(p + "/") or p.startswith(d + "/")
                    for p in paths for d in needed):
                chosen.add(name)
                todo.append(name)
    return chosen


def _removed(outputs: Any, everything: bool = False) -> list[str]:
    """The paths of a stage's outputs list that DVC removes before the stage runs (all but
    ``persist: true`` ones; ``everything``: those too)."""
    found: list[str] = []
    for entry in outputs if isinstance(outputs, list) else []:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict):
            for path, settings in entry.items():
                if isinstance(path, str) and (everything or not (
                        isinstance(settings, dict) and settings.get("persist") is True)):
                    found.append(path)
    return [os.path.normpath(p) for p in found if p.strip()]
