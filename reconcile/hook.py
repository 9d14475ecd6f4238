"""The agent tool hook: judge a coding agent's shell command before it runs.

Accepted payloads (JSON on stdin; the command is found in the first shape that matches)::

    Claude Code PreToolUse   {"tool_name": "Bash", "tool_input": {"command": "..."}, "cwd": "..."}
    Gemini CLI BeforeTool    {"tool_name": "run_shell_command", "tool_input": {"command": "..."}}
    Codex / generic          {"command": ["bash", "-lc", "..."]} or {"command": "..."}
    generic tool call        {"tool": "...", "args": {"command": ...}}  (also "arguments",
                             "input", "params"; a list command is joined with shlex)

A payload without a command (another tool: Read, Edit, ...) is never judged.

Judgment: the command line is cut into the simple commands it runs (`shell_words`: chains,
quotes, wrappers, ``bash -c``, ``eval``, substitutions, ssh's remote command). One is
**destructive** when it matches a shell pattern of any profile (``shell-patterns``), a pattern
of ``.labledger/hook.toml`` or a built-in (provider CLIs with options before the verb, provider
REST/GraphQL/SDK calls, a computed command word before a destroy verb), when it runs ``rm -r``
or ``kill`` on a box through ssh, or when it deletes recursively (``rm -r``, ``find -delete``)
the project's ``.labledger/``, an ``export-roots`` entry of hook.toml or a recorded capsule
(the folder, above it or inside it). A destructive command is mapped to recorded instances by
the words of that simple command only (an id, the last ``-``/``_`` part of an id, or a
recorded host); one that names none, or whose words are computed when it runs, stands for
every live instance. It is **allowed** only when every instance it stands for passes the
teardown gate now, or has a ``teardown.approved`` bound to exactly the gate's current state (an
override approval counts: it is recorded). Deleting a capsule is allowed when its objects
verify in the local store; ``.labledger/`` (but its cache) and export roots are never deleted.

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
    # provider CLIs, with any global options before the verb (`vastai --raw destroy ...`)
    r"\bvastai\b.*?\s(destroy|stop)\s+instances?\b",
    r"\brunpodctl\b.*?\s(remove|rm|stop|terminate|delete)\s+pods?\b",
    r"\brunpodctl\b.*?\spods?\s+(remove|rm|stop|terminate|delete)\b",
    r"\bkubectl\b.*?\sdelete\b",
    r"(^|[;&|(]\s*)(sudo\s+)?(\S*/)?scancel\b",
    # provider APIs: REST, GraphQL, Python SDKs
    r"instance-operations/terminate\b",
    r"\bcurl\b.*(-X\s*DELETE|--request[= ]DELETE)\b.*(vast\.ai|runpod\.io|lambdalabs\.com"
    r"|paperspace\.com)",
    r"\b(podTerminate|podStop)\b",
    r"\b(terminate_pod|stop_pod|delete_pod|destroy_instance|terminate_instances?)\s*\(",
    # a command word computed when it runs (`V=vastai; $V destroy ...`), an alias hiding one
    r"^\$\S*\s+(\S+\s+)?(destroy|terminate|delete|remove|rm|stop)\b",
    r"^alias\s.*\b(vastai|runpodctl|kubectl|scancel|pspace|paperspace|shutdown|poweroff|halt"
    r"|reboot)\b",
)
# Run through ssh on a box, these destroy what it holds (its results, its processes).
_REMOTE_DESTRUCTIVE = {"kill", "pkill", "killall"}
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
    if isinstance(value, list) and value and all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        words = [str(v) for v in value]
        # Codex sends argv, usually ["bash", "-lc", SCRIPT]: the script is what runs.
        if len(words) >= 3 and words[1] in ("-c", "-lc", "-ic") and \
                os.path.basename(words[0]) in ("bash", "sh", "zsh", "dash"):
            return words[2]
        return shlex.join(words)
    return None


def extract_command(payload: Any) -> tuple[str | None, str | None]:
    """(command, cwd) from a hook payload; command None when the tool runs no shell command.

    Every command the payload holds in a known place is judged (joined by newlines: a
    harmless top-level ``command`` does not hide a destructive ``tool_input.command``). A
    payload in no known shape is judged by the text of all its strings when that text looks
    destructive (an agent's new shape must not let a destroy through unseen)."""
    if not isinstance(payload, Mapping):
        raise HookInputError("the hook payload is not a JSON object")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    found: list[str] = []
    top = _as_command(payload.get("command"))
    if top is not None:
        found.append(top)
    for key in _COMMAND_KEYS:
        inner = payload.get(key)
        if isinstance(inner, Mapping):
            command = _as_command(inner.get("command") or inner.get("cmd"))
            if command is not None:
                found.append(command)
            if isinstance(inner.get("cwd"), str) and cwd is None:
                cwd = inner["cwd"]
        elif isinstance(inner, str) and key == "tool_input":
            found.append(inner)  # a tool whose whole input is the command line
    if found:
        return "\n".join(found), cwd
    text = "\n".join(_strings(payload))
    if text and looks_destructive(text):
        return text, cwd
    return None, cwd


def _strings(value: Any, depth: int = 0) -> list[str]:
    if depth > 20:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, depth + 1)]
    return []


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


@dataclass
class _Destroy:
    """One simple command that destroys or stops something, and what names its target."""

    context: str
    dynamic: bool
    why: str


def destructive_commands(command: str, patterns: Iterable[str]) -> list[_Destroy]:
    """The simple commands of ``command`` (`shell_words`) that match a pattern or run a
    destructive command on a box through ssh; the whole line when only it matches (a
    pattern spanning several commands)."""
    from labledger.reconcile.shell_words import normalize_line, simple_commands

    patterns = list(patterns)
    found: list[_Destroy] = []
    for cmd in simple_commands(command):
        remote_delete = cmd.remote and (cmd.name in _REMOTE_DESTRUCTIVE
                                        or _recursive_rm(cmd.argv) is not None)
        if remote_delete or matching_patterns(cmd.text, patterns):
            found.append(_Destroy(cmd.context, cmd.dynamic, cmd.text))
    if not found:
        whole = normalize_line(command)
        if matching_patterns(whole, patterns):
            found.append(_Destroy(whole, bool(re.search(r"[$`]", whole)), whole))
    return found


def _recursive_rm(argv: list[str]) -> list[str] | None:
    """The targets of ``rm -r``/``find ... -delete`` (None: not a recursive delete)."""
    name = os.path.basename(argv[0]) if argv else ""
    if name == "rm":
        flags = [a for a in argv[1:] if a.startswith("-") and a != "--"]
        if any(f in ("--recursive", "-r", "-R") or (not f.startswith("--") and
                                                    ("r" in f or "R" in f)) for f in flags):
            return [a for a in argv[1:] if not a.startswith("-")]
        return None
    if name == "find" and ("-delete" in argv or ("-exec" in argv and any(
            os.path.basename(a) == "rm" for a in argv))):
        starts = []
        for a in argv[1:]:
            if a.startswith(("-", "(", "!")):
                break
            starts.append(a)
        return starts or ["."]
    return None


def recursive_rm_targets(command: str) -> list[str]:
    """The paths of every ``rm -r``/``-R``/``--recursive`` (and ``find ... -delete``) the
    command line runs here (not through ssh)."""
    from labledger.reconcile.shell_words import simple_commands

    targets: list[str] = []
    for cmd in simple_commands(command):
        if not cmd.remote:
            targets += _recursive_rm(cmd.argv) or []
    return targets


def _quick_destructive(command: str, patterns: Iterable[str]) -> bool:
    from labledger.reconcile.shell_words import simple_commands

    return bool(destructive_commands(command, patterns)) or any(
        not c.remote and _recursive_rm(c.argv) is not None for c in simple_commands(command))


def looks_destructive(text: str) -> bool:
    """For input that could not be parsed: does the raw text hold a destroy pattern?"""
    patterns: list[str] = list(BUILTIN_PATTERNS)
    try:
        patterns = load_config(None).patterns
    except Exception:  # noqa: BLE001 - fail closed on the built-ins alone
        pass
    return bool(matching_patterns(text, patterns)) or bool(
        re.search(r"\brm\s+(-\w*[rR]|--recursive)", text)) or _quick_destructive(text, patterns)


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
        reasons = _judge_deletes(command, cwd, config, project, events, checker)
        destroys = destructive_commands(command, config.patterns)
        if destroys:
            instances: dict[str, str | None] = {}
            for e in events:
                if e.instance is not None:
                    if e.kind == "instance.rented":
                        instances[e.instance] = e.body.get("host")
                    else:
                        instances.setdefault(e.instance, None)
            live = [i for i in instances if not is_gone(events, i)]
            named: dict[str, bool] = {}  # instance -> named by the command (else: live)
            for destroy in destroys:
                # Only what the destroying command itself names counts ("... && echo 111"
                # names nothing it destroys), and nothing it computes when it runs.
                matched = [] if destroy.dynamic else [
                    i for i, host in instances.items()
                    if _mentions(destroy.context, i)
                    or _mentions(destroy.context, re.split(r"[-_]", i)[-1])
                    or (host and _mentions(destroy.context, _host_of(host)))]
                for instance in matched:
                    named[instance] = True
                if not matched:
                    for instance in live:
                        named.setdefault(instance, False)
            for instance, by_name in named.items():
                gate = evaluate_gate(ledger, instance, events=events, checker=checker)
                if gate.ok or approved_for(events, gate) is not None:
                    continue
                unmet = gate.unmet()
                shown = "; ".join(unmet[:5]) + (f"; and {len(unmet) - 5} more"
                                                if len(unmet) > 5 else "")
                what = "instance" if by_name else \
                    "live instance (the command names none it could be shown to act on only)"
                reasons.append(
                    f"{what} {instance!r} is not pull-verified: {shown}. Run `labledger gate "
                    f"teardown --instance {instance}` for what to do next, then `labledger "
                    f"teardown --instance {instance}`")
    return Verdict(allowed=not reasons, destructive=True, reasons=reasons)


def _judge_deletes(command: str, cwd: str | None, config: HookConfig, project: Path,
                   events: list[Any], checker: Any) -> list[str]:
    """Reasons to refuse the recursive deletes of ``command``: of the ledger itself, of an
    export root, of a recorded capsule whose stored copy does not verify (each: the folder,
    one above it, or one inside it)."""
    from labledger.reconcile.shell_words import simple_commands

    base = Path(cwd) if cwd else Path.cwd()
    bases = [base]
    targets: list[tuple[str, list[Path], bool]] = []  # (as written, places, computed)
    for cmd in simple_commands(command):
        if cmd.remote:
            continue
        if cmd.name == "cd" and len(cmd.argv) > 1 and not cmd.dynamic:
            bases.append(_resolve(bases[-1], cmd.argv[1]))
            continue
        found = _recursive_rm(cmd.argv)
        if found is None:
            continue
        if cmd.dynamic and not found:  # `... | xargs rm -rf`: its paths come from elsewhere
            targets.append(("(paths read when it runs)", [], True))
        for target in found:
            places, computed = _expand(target, bases)
            targets.append((target, places, computed or cmd.dynamic))
    if not targets:
        return []
    home = project / ".labledger"
    # (folder, what deleting it deletes, the capsule's digest: None for always protected)
    protected: list[tuple[Path, str, str | None]] = [
        (home, f"{home}, the labledger ledger and store of this project", None)]
    for r in config.export_roots:
        root = _resolve(project, r)
        protected.append((root, f"{root}, an export root listed in .labledger/hook.toml "
                                "(always protected)", None))
    for e in events:
        if e.kind == "capsule.sealed" and isinstance(e.body.get("path"), str):
            root = _resolve(project, e.body["path"])
            protected.append((root, f"the capsule {root} of run {e.run}",
                              e.body.get("digest") or ""))
    reasons: list[str] = []
    for target, places, computed in targets:
        for root, what, digest in protected:
            overlapping = [place for place in places if _overlaps(place, root)]
            if root == home:  # its cache is always safe to delete
                overlapping = [p for p in overlapping if home / "cache" not in (p, *p.parents)]
            hit = bool(overlapping)
            if not hit and computed and (root.name in command or str(root) in command):
                hit = True  # `echo results | xargs rm -rf`, `rm -rf $(echo results)`
            if not hit:
                continue
            if digest is not None:
                if not digest:
                    reasons.append(f"`rm -r {target}` deletes {what}, which has no recorded "
                                   "digest")
                    continue
                problem = checker.problem(digest)
                if problem is not None:
                    reasons.append(f"`rm -r {target}` deletes {what}, and its stored copy "
                                   f"does not verify: {problem}")
                continue
            reasons.append(f"`rm -r {target}` deletes {what}")
    return reasons


def _expand(target: str, bases: list[Path]) -> tuple[list[Path], bool]:
    """Where ``target`` may point, from each working folder the command line passes through;
    true when part of it is computed when it runs (so the places are a guess)."""
    import glob

    places: list[Path] = []
    computed = False
    for base in bases:
        text = target.replace("${PWD}", str(base)).replace("$PWD", str(base))
        text = os.path.expandvars(os.path.expanduser(text))
        if "$" in text or "`" in text:
            computed = True
            text = re.split(r"[$`]", text, maxsplit=1)[0] or "."
        path = _resolve(base, text)
        places.append(path)
        if any(c in text for c in "*?["):
            places += [Path(os.path.normpath(p)) for p in glob.glob(str(path))]
            places.append(Path(os.path.normpath(str(path).split("*")[0].split("?")[0]
                                                .split("[")[0]) or "/"))
    return places, computed


def _overlaps(place: Path, root: Path) -> bool:
    """Deleting ``place`` recursively deletes some of ``root``: it is the folder, above it,
    or inside it."""
    return place == root or place in root.parents or root in place.parents


def _resolve(base: Path, path: str) -> Path:
    p = Path(os.path.expanduser(path))
    return Path(os.path.normpath(p if p.is_absolute() else base / p))
