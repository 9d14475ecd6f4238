"""The agent tool hook: judge a coding agent's shell command before it runs.

Accepted payloads (JSON on stdin; the command is found in the first shape that matches)::

    Claude Code PreToolUse   {"tool_name": "Bash", "tool_input": {"command": "..."}, "cwd": "..."}
    Gemini CLI BeforeTool    {"tool_name": "run_shell_command", "tool_input": {"command": "..."}}
    Codex / generic          {"command": ["bash", "-lc", "..."]} or {"command": "..."}
    generic tool call        {"tool": "...", "args": {"command": ...}}  (also "arguments",
                             "input", "params"; a list command is joined with shlex)

A payload without a command (another tool: Read, Edit, ...) is never judged.

Judgment: a command is **destructive** when it matches a shell pattern of any profile
(``shell-patterns``), a pattern of ``.labledger/hook.toml``, a built-in pattern (vast.ai destroy,
runpodctl remove/stop, Lambda's terminate API, scancel, kubectl delete) or is ``rm -r`` of a
recorded export root (a ``capsule.sealed`` path or an ``export-roots`` entry of hook.toml).
A destructive command is mapped to recorded instances by id (a word in the command; also the
last ``-``/``_`` part of the id, so ``vast-123`` matches ``123``) or by host. It is **allowed**
only when every matched instance passes the teardown gate now, or has a ``teardown.approved``
bound to exactly the gate's current state (an override approval counts: it is recorded). An
unmatched destructive command is allowed only when no live (not released, not confirmed absent)
instance fails its gate. ``rm -r`` of an export root is allowed when the recorded capsule's
objects verify in the local store.

This module never exits: `labledger hook` maps a :class:`Verdict` to exit 0 or 2, and blocks on
any exception raised while a destructive command is judged (fail closed).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BUILTIN_PATTERNS = (
    r"\bvastai\s+(destroy|stop)\s+instances?\b",
    r"\brunpodctl\s+(remove|rm|stop)\s+pods?\b",
    r"instance-operations/terminate\b",
    r"\bscancel\b",
    r"\bkubectl\s+delete\b",
)
_SEPARATORS = re.compile(r"\s*(?:;|&&|\|\||\||\n)\s*")
_COMMAND_KEYS = ("tool_input", "args", "arguments", "input", "params", "parameters")


class HookInputError(ValueError):
    """The payload is not JSON or holds no recognisable shape."""


@dataclass
class Verdict:
    allowed: bool
    destructive: bool = False
    reasons: list[str] = field(default_factory=list)

    def message(self) -> str:
        return "labledger: blocked: " + "; ".join(self.reasons)


def _as_command(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        # Codex sends argv, usually ["bash", "-lc", SCRIPT]: the script is what runs.
        if len(value) >= 3 and value[1] in ("-c", "-lc", "-ic") and \
                os.path.basename(value[0]) in ("bash", "sh", "zsh", "dash"):
            script: str = value[2]
            return script
        return shlex.join(value)
    return None


def extract_command(payload: Any) -> tuple[str | None, str | None]:
    """(command, cwd) from a hook payload; command None when the tool runs no shell command."""
    if not isinstance(payload, Mapping):
        raise HookInputError("the hook payload is not a JSON object")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    found = _as_command(payload.get("command"))
    if found is not None:
        return found, cwd
    for key in _COMMAND_KEYS:
        inner = payload.get(key)
        if isinstance(inner, Mapping):
            found = _as_command(inner.get("command") or inner.get("cmd"))
            if found is not None:
                return found, cwd
            if isinstance(inner.get("cwd"), str) and cwd is None:
                cwd = inner["cwd"]
    return None, cwd


def parse_payload(raw: bytes) -> tuple[str | None, str | None]:
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HookInputError(f"the hook payload is not JSON ({exc})") from None
    return extract_command(payload)


# --- patterns ---------------------------------------------------------------------------------
@dataclass
class HookConfig:
    patterns: list[str]
    export_roots: list[str]


def load_config(home: Path | None) -> HookConfig:
    """Built-in patterns, every profile's shell patterns and ``.labledger/hook.toml``::

        patterns = ['\\bmy-cloud\\s+kill\\b']     # more regexes (Python syntax)
        export-roots = ["/data/results"]          # `rm -r` of these is always blocked

    A broken profile or hook.toml raises (the caller fails closed on what it can still match).
    """
    from labledger.profiles.loader import load_profiles

    patterns = list(BUILTIN_PATTERNS)
    roots: list[str] = []
    user_dir = home / "profiles" if home is not None else None
    for loaded in load_profiles(user_dir).values():
        patterns += [p.pattern for p in loaded.profile.shell_patterns]
    if home is not None and (home / "hook.toml").is_file():
        data = tomllib.loads((home / "hook.toml").read_text(encoding="utf-8"))
        extra = data.get("patterns", [])
        for item in extra:
            patterns.append(item["pattern"] if isinstance(item, Mapping) else str(item))
        roots += [str(r) for r in data.get("export-roots", [])]
    for p in patterns:
        re.compile(p)
    return HookConfig(patterns=patterns, export_roots=roots)


def matching_patterns(command: str, patterns: Iterable[str]) -> list[str]:
    return [p for p in patterns if re.search(p, command)]


def recursive_rm_targets(command: str) -> list[str]:
    """The paths of every ``rm -r``/``-R``/``--recursive`` in the command line."""
    targets: list[str] = []
    for part in _SEPARATORS.split(command):
        try:
            argv = shlex.split(part)
        except ValueError:
            argv = part.split()
        while argv and (argv[0] in ("sudo", "command", "exec", "nohup") or "=" in argv[0]):
            argv = argv[1:]
        if not argv or os.path.basename(argv[0]) != "rm":
            continue
        flags = [a for a in argv[1:] if a.startswith("-")]
        recursive = any(f in ("--recursive", "-r", "-R") or
                        (not f.startswith("--") and ("r" in f or "R" in f)) for f in flags)
        if recursive:
            targets += [a for a in argv[1:] if not a.startswith("-")]
    return targets


def _quick_destructive(command: str, patterns: Iterable[str]) -> bool:
    return bool(matching_patterns(command, patterns)) or bool(recursive_rm_targets(command))


def looks_destructive(text: str) -> bool:
    """For input that could not be parsed: does the raw text hold a destroy pattern?"""
    patterns: list[str] = list(BUILTIN_PATTERNS)
    try:
        patterns = load_config(None).patterns
    except Exception:  # noqa: BLE001 - fail closed on the built-ins alone
        pass
    return bool(matching_patterns(text, patterns)) or bool(
        re.search(r"\brm\s+(-\w*[rR]|--recursive)", text))


# --- judging ------------------------------------------------------------------------------------
def _mentions(command: str, word: str) -> bool:
    return bool(word) and re.search(r"(?<![\w.-])" + re.escape(word) + r"(?![\w-])",
                                    command) is not None


def _host_of(host: str) -> str:
    host = host.split("@", 1)[-1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def judge(command: str, cwd: str | None, root: str | None) -> Verdict:
    """Judge one shell command (see the module docstring). May raise: the caller fails closed."""
    from labledger.ledger.root import DIRNAME, find_root

    try:
        paths = find_root(root, cwd=Path(cwd) if cwd else None)
    except Exception:  # noqa: BLE001 - no ledger here: fall back to the patterns alone
        paths = None
    home = paths.home if paths is not None else None
    config = load_config(home)
    if not _quick_destructive(command, config.patterns):
        return Verdict(allowed=True)
    if paths is None:
        if matching_patterns(command, config.patterns):
            return Verdict(allowed=False, destructive=True, reasons=[
                f"no labledger ledger found from {cwd or os.getcwd()} (looked for {DIRNAME}/), "
                "so nothing shows this instance's results were pulled and verified"])
        return Verdict(allowed=True)
    return _judge_with_ledger(command, cwd, config, paths.project)


def _judge_with_ledger(command: str, cwd: str | None, config: HookConfig,
                       project: Path) -> Verdict:
    from labledger.ledger.ledger import Ledger
    from labledger.reconcile.pull_verified import ObjectChecker, evaluate_gate, load_events
    from labledger.reconcile.pull_verified import open_store as store_of
    from labledger.reconcile.teardown import approved_for, is_gone

    with Ledger.open(project) as ledger:
        events = load_events(ledger)
        checker = ObjectChecker(store_of(ledger))
        reasons: list[str] = []
        rm_targets = recursive_rm_targets(command)
        if rm_targets:
            reasons += _judge_rm(rm_targets, cwd, project, events, checker)
            base = Path(cwd) if cwd else Path.cwd()
            for target in rm_targets:
                path = _resolve(base, target)
                for root in (_resolve(project, r) for r in config.export_roots):
                    if root == path or path in root.parents:
                        reasons.append(f"`rm -r {target}` deletes {root}, an export root listed "
                                       "in .labledger/hook.toml (always protected)")
        if matching_patterns(command, config.patterns):
            instances: dict[str, str | None] = {}
            for e in events:
                if e.instance is not None:
                    if e.kind == "instance.rented":
                        instances[e.instance] = e.body.get("host")
                    else:
                        instances.setdefault(e.instance, None)
            matched = [i for i, host in instances.items()
                       if _mentions(command, i) or _mentions(command, re.split(r"[-_]", i)[-1])
                       or (host and _mentions(command, _host_of(host)))]
            candidates = matched or [i for i in instances if not is_gone(events, i)]
            for instance in candidates:
                gate = evaluate_gate(ledger, instance, events=events, checker=checker)
                if gate.ok or approved_for(events, gate) is not None:
                    continue
                unmet = gate.unmet()
                shown = "; ".join(unmet[:5]) + (f"; and {len(unmet) - 5} more"
                                                if len(unmet) > 5 else "")
                what = "instance" if matched else "live instance (the command names none)"
                reasons.append(
                    f"{what} {instance!r} is not pull-verified: {shown}. Run `labledger gate "
                    f"teardown --instance {instance}` for what to do next, then `labledger "
                    f"teardown --instance {instance}`")
    return Verdict(allowed=not reasons, destructive=True, reasons=reasons)


def _judge_rm(targets: list[str], cwd: str | None, project: Path, events: list[Any],
              checker: Any) -> list[str]:
    base = Path(cwd) if cwd else Path.cwd()
    recorded: list[tuple[Path, str | None, str | None]] = []  # (path, digest, run)
    for e in events:
        if e.kind == "capsule.sealed" and isinstance(e.body.get("path"), str):
            recorded.append((_resolve(project, e.body["path"]), e.body.get("digest"), e.run))
    reasons: list[str] = []
    for target in targets:
        path = _resolve(base, target)
        for root, digest, run in recorded:
            if not (root == path or path in root.parents):
                continue
            if digest is None:
                reasons.append(f"`rm -r {target}` deletes the capsule {root} of run {run}, "
                               "which has no recorded digest")
                continue
            problem = checker.problem(digest)
            if problem is not None:
                reasons.append(f"`rm -r {target}` deletes the capsule {root} of run {run} "
                               f"and its stored copy does not verify: {problem}")
    return reasons


def _resolve(base: Path, path: str) -> Path:
    p = Path(os.path.expanduser(path))
    return Path(os.path.normpath(p if p.is_absolute() else base / p))
