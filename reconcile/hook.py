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
or ``kill`` on a recorded box through ssh, or when it deletes (``rm``, ``find -delete``,
``git clean -d``, ``mv``, ``tar --remove-files``, ``rsync --delete``, ``rmtree(``) the project's
``.labledger/`` (but its cache), an ``export-roots`` entry of hook.toml or a recorded capsule
(the folder, above it or inside it). The arguments of text-handling commands (``git``,
``grep``, ``echo``, ...) are text, and a here-document is data unless a shell reads it.

A destructive command is mapped to recorded instances by the words of that simple command only
(an id, the last ``-``/``_`` part of an id, or a recorded host); one that names none, or whose
words are computed when it runs, stands for every live instance. It is **allowed** only when
every instance it stands for passes the teardown gate now, or has a ``teardown.approved`` bound
to exactly the gate's current state (an override approval counts: it is recorded). Deleting a
capsule is allowed when its objects verify in the local store; ``.labledger/`` (but its cache)
and export roots are never deleted.

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

_PROVIDER_HOSTS = r"(vast\.ai|runpod\.io|lambdalabs\.com|paperspace\.com)"
BUILTIN_PATTERNS = (
    # Provider CLIs as the command word, with any options before the verb (`vastai --raw
    # destroy ...`) and any punctuation between words (`['vastai', 'destroy', 'instance']` in
    # a Python one-liner). Each is linear: one anchored `.*?` at most.
    r"(^|\W)(vastai|vast\.py)\W+(.*?\W)?(destroy|stop|recycle)\W+instances?\b",
    r"(^|\W)runpodctl\W+(.*?\W)?(remove|rm|stop|terminate|delete)\W+pods?\b",
    r"(^|\W)runpodctl\W+(.*?\W)?pods?\W+(remove|rm|stop|terminate|delete)\b",
    r"^kubectl\s.*?\bdelete\b",
    r"^scancel\b",
    # provider APIs: REST (any client), GraphQL, Python SDKs
    r"instance-operations/terminate\b",
    r"^(curl|wget|http|https|xh)\b(?=.*(-X\s*|--request[= ]|--method[= ]|\s)(DELETE|PUT)\b)"
    r"(?=.*" + _PROVIDER_HOSTS + r")",
    r"\b(requests|httpx|session|s)\.(delete|put)\s*\((?=.*" + _PROVIDER_HOSTS + r")",
    r"\b(podTerminate|podStop)\b",
    r"\b(terminate_pod|stop_pod|delete_pod|destroy_instance|terminate_instances?)\s*\(",
    # a command word computed when it runs (`V=vastai; $V destroy ...`), an alias hiding one
    r"^\$\S*\s+(\S+\s+)?(destroy|terminate|delete|remove|rm|stop|recycle)(\s|$)",
    r"^alias\s.*\b(vastai|runpodctl|kubectl|scancel|pspace|paperspace|shutdown|poweroff|halt"
    r"|reboot)\b",
)
# Provider CLIs: run with words computed when it runs (`vastai $(echo destroy) ...`,
# `... | xargs vastai`), what they do cannot be read, so they count as destroying.
_PROVIDER_CLIS = {"vastai", "vast.py", "runpodctl", "pspace", "paperspace", "gcloud", "aws",
                  "lambda"}
# Commands whose arguments are text, not actions: a commit message, a search, an echo that
# names `vastai destroy instance` destroys nothing (unless a shell reads it: see shell_words).
_DATA_COMMANDS = {
    "git", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "echo", "printf",
    "man", "less", "more", "cat", "head", "tail", "pytest", "jq", "yq", "tee", "wc", "sort",
    "uniq", "diff", "touch", "mkdir", "code", "vim", "vi", "nano", "emacs", "gh", "tldr",
    "apropos", "which", "type", "whereis", "history", "ls", "find", "locate", "help", "info",
    "pip", "uv", "npm", "cargo", "make", "docker", "labledger",
}
# Run through ssh on a box, these destroy what it holds (its results, its processes).
_REMOTE_DESTRUCTIVE = {"kill", "pkill", "killall", "rm", "shred", "truncate", "unlink",
                       "rmdir", "dd", "mkfs", "wipefs"}
_REMOTE_DELETE_CALLS = re.compile(r"\b(rmtree|os\.remove|os\.unlink|unlink|remove)\s*\(")
# Whole-line matching is for hook.toml patterns spanning commands; beyond this it is skipped
# (a pattern's backtracking on a long line could outlast the agent's hook timeout).
_WHOLE_LINE_LIMIT = 8192
_DELETE_WORD = re.compile(r"\b(rm|shred|unlink|rmtree|find|mv|clean)\b")
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
    except RecursionError:
        raise HookInputError("the hook payload is nested too deep to read") from None
    return extract_command(payload)


# --- patterns ---------------------------------------------------------------------------------
@dataclass
class HookConfig:
    patterns: list[str]
    export_roots: list[str]
    user_patterns: list[str] = field(default_factory=list)  # hook.toml's (also in patterns)


def load_config(home: Path | None) -> HookConfig:
    """Built-in patterns, every profile's shell patterns and ``.labledger/hook.toml``::

        patterns = ['\\bmy-cloud\\s+kill\\b']     # more regexes (Python syntax)
        export-roots = ["/data/results"]          # `rm -r` of these is always blocked

    A broken profile or hook.toml raises (the caller fails closed on what it can still match).
    """
    from labledger.profiles.loader import load_profiles

    patterns = list(BUILTIN_PATTERNS)
    roots: list[str] = []
    user: list[str] = []
    user_dir = home / "profiles" if home is not None else None
    for loaded in load_profiles(user_dir).values():
        patterns += [p.pattern for p in loaded.profile.shell_patterns]
    if home is not None and (home / "hook.toml").is_file():
        data = tomllib.loads((home / "hook.toml").read_text(encoding="utf-8"))
        extra = data.get("patterns", [])
        for item in extra:
            user.append(item["pattern"] if isinstance(item, Mapping) else str(item))
        patterns += user
        roots += [str(r) for r in data.get("export-roots", [])]
    for p in patterns:
        re.compile(p)
    return HookConfig(patterns=patterns, export_roots=roots, user_patterns=user)


def matching_patterns(command: str, patterns: Iterable[str]) -> list[str]:
    return [p for p in patterns if re.search(p, command)]


@dataclass
class _Destroy:
    """One simple command that destroys or stops something, and what names its target."""

    context: str
    dynamic: bool
    why: str
    remote: bool = False  # run on a box through ssh: about a recorded instance, or none
    destination: list[str] | None = None  # that ssh's destination (an alias, maybe) and -F/-o


def destructive_commands(command: str, patterns: Iterable[str],
                         user_patterns: Iterable[str] = ()) -> list[_Destroy]:
    """The simple commands of ``command`` (`shell_words`) that match a pattern, run a
    provider CLI with computed words, or destroy something on a box through ssh; the whole
    line when only it matches a hook.toml pattern (one spanning several commands)."""
    from labledger.reconcile.shell_words import TOO_DEEP, normalize_line, simple_commands

    patterns = list(patterns)
    found: list[_Destroy] = []
    for cmd in simple_commands(command):
        if cmd.name == TOO_DEEP:
            if matching_patterns(cmd.argv[1], patterns):
                found.append(_Destroy(cmd.context, True, cmd.text))
            continue
        if cmd.remote:
            deletes = cmd.name in _REMOTE_DESTRUCTIVE or bool(
                _REMOTE_DELETE_CALLS.search(cmd.text + "\n" + cmd.context)) or (
                cmd.name == "find" and ("-delete" in cmd.argv or "-exec" in cmd.argv))
            if deletes or matching_patterns(cmd.text, patterns):
                found.append(_Destroy(cmd.context, cmd.dynamic, cmd.text, remote=True,
                                      destination=cmd.destination))
            continue
        if cmd.name in _PROVIDER_CLIS and cmd.dynamic:
            found.append(_Destroy(cmd.context, True, cmd.text))
            continue
        if cmd.name in _DATA_COMMANDS:
            continue
        if matching_patterns(cmd.text, patterns):
            found.append(_Destroy(cmd.context, cmd.dynamic, cmd.text))
    if not found:
        whole = normalize_line(command)
        if len(whole) <= _WHOLE_LINE_LIMIT and matching_patterns(whole, user_patterns):
            found.append(_Destroy(whole, bool(re.search(r"[$`]", whole)), whole))
    return found


def _deleted(argv: list[str]) -> tuple[list[str], list[str]] | None:
    """What a simple command deletes here: (paths, name patterns it is limited to), or None
    when it deletes nothing. ``rm`` (any), ``find ... -delete|-exec rm``, ``git clean -d``,
    ``mv`` (its sources leave their place), ``tar --remove-files``, ``rsync --delete`` (the
    destination)."""
    name = os.path.basename(argv[0]) if argv else ""
    args = argv[1:]
    if name in ("rm", "shred", "unlink"):
        paths, seen_end = [], False
        for a in args:
            if a == "--" and not seen_end:
                seen_end = True
            elif seen_end or not a.startswith("-"):
                paths.append(a)
        return paths, []
    if name == "find" and ("-delete" in args or ("-exec" in args and any(
            os.path.basename(a) in ("rm", "shred", "unlink") for a in args))):
        starts: list[str] = []
        for a in args:
            if a.startswith(("-", "(", "!")):
                break
            starts.append(a)
        names = [args[i + 1] for i, a in enumerate(args[:-1])
                 if a in ("-name", "-iname", "-path", "-ipath", "-regex")]
        return starts or ["."], names
    if name == "git" and args[:1] == ["clean"] and any(
            a.startswith("-") and not a.startswith("--") and "d" in a for a in args[1:]):
        paths = [a for a in args[1:] if not a.startswith("-")]
        return paths or ["."], []
    if name == "mv":
        paths = [a for a in args if not a.startswith("-")]
        return paths[:-1], []
    if name == "tar" and "--remove-files" in args:
        return [a for a in args if not a.startswith("-")][1:], []
    if name == "rsync" and any(a.startswith("--delete") for a in args):
        paths = [a for a in args if not a.startswith("-")]
        return ([paths[-1]] if paths and ":" not in paths[-1] else []), []
    return None


def _recursive_rm(argv: list[str]) -> list[str] | None:
    """The paths a simple command deletes here (None: it deletes nothing)."""
    got = _deleted(argv)
    return None if got is None else got[0]


def recursive_rm_targets(command: str) -> list[str]:
    """The paths of every ``rm -r``/``-R``/``--recursive`` (and ``find ... -delete``) the
    command line runs here (not through ssh)."""
    from labledger.reconcile.shell_words import simple_commands

    targets: list[str] = []
    for cmd in simple_commands(command):
        if not cmd.remote:
            targets += _recursive_rm(cmd.argv) or []
    return targets


def _quick_destructive(command: str, patterns: Iterable[str],
                       user_patterns: Iterable[str] = ()) -> bool:
    from labledger.reconcile.shell_words import TOO_DEEP, simple_commands

    return bool(destructive_commands(command, patterns, user_patterns)) or any(
        not c.remote and (_deleted(c.argv) is not None
                          or _REMOTE_DELETE_CALLS.search(c.text) is not None or (
            c.name == TOO_DEEP and _DELETE_WORD.search(c.argv[1]) is not None))
        for c in simple_commands(command))


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


def _ssh_hostname(destination: list[str], cwd: str | None) -> str | None:
    """The host name ssh would connect to for ``destination`` (its -F/-o options, then the
    host as written), or None when that cannot be told.

    A ``-o HostName=`` or a ``-F`` file named in the command is read here, in Python (only
    ``Host``/``HostName``; ``Match exec`` and ``Include`` are never run: the hook must not
    execute what the command it judges brings). Otherwise ``ssh -G`` applies the user's own
    ssh config, as their ssh would, within two seconds."""
    import fnmatch
    import subprocess

    if not destination or destination[-1].startswith("-"):
        return None
    host, options = destination[-1].rsplit("@", 1)[-1], destination[:-1]
    config: str | None = None
    for flag, value in zip(options[::2], options[1::2], strict=False):
        key, _, given = value.replace("=", " ", 1).partition(" ")
        if flag == "-o" and key.lower() == "hostname" and given.strip():
            return given.strip()
        if flag == "-F":
            config = value
    if config is not None:
        try:
            text = Path(cwd or ".", config).expanduser().read_text(encoding="utf-8",
                                                                   errors="replace")
        except OSError:
            return None
        matching = False
        for line in text.splitlines():
            key, _, value = line.strip().replace("=", " ", 1).partition(" ")
            if key.lower() == "host":
                matching = any(fnmatch.fnmatchcase(host, p) for p in value.split())
            elif key.lower() == "match":
                matching = False  # conditions that may run commands: not evaluated
            elif matching and key.lower() == "hostname" and value.strip():
                return value.strip().replace("%h", host)
        return host
    try:
        done = subprocess.run(["ssh", "-G", "--", destination[-1]], capture_output=True,
                              text=True, timeout=2, check=False, cwd=cwd or None,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "hostname" and value:
            return value.strip()
    return None


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
    if not _quick_destructive(command, config.patterns, config.user_patterns):
        return Verdict(allowed=True)
    if paths is None:
        if destructive_commands(command, config.patterns, config.user_patterns):
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
        destroys = destructive_commands(command, config.patterns, config.user_patterns)
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
                if destroy.remote and not matched and destroy.destination:
                    # `ssh box '...'` where box is an ssh config alias of a recorded host
                    real = _ssh_hostname(destroy.destination, cwd)
                    matched = [i for i, host in instances.items()
                               if real and host and _host_of(host) == real]
                    for instance in matched:
                        named[instance] = True
                if destroy.remote and not matched and not destroy.dynamic:
                    continue  # `ssh devbox 'pkill -f jupyter'`: a machine not in the ledger
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
                what = f"instance {instance!r}" if by_name else (
                    f"live instance {instance!r} (the command names none of the recorded "
                    "instances, so each live one counts)")
                reasons.append(
                    f"{what} is not pull-verified: {shown}. Run `labledger gate "
                    f"teardown --instance {instance}` for what to do next, then `labledger "
                    f"teardown --instance {instance}`")
    return Verdict(allowed=not reasons, destructive=True, reasons=reasons)


def _judge_deletes(command: str, cwd: str | None, config: HookConfig, project: Path,
                   events: list[Any], checker: Any) -> list[str]:
    """Reasons to refuse the deletes of ``command``: of the ledger itself (but its cache), of
    an export root, of a recorded capsule whose stored copy does not verify (each: the folder,
    one above it, or something inside it)."""
    from labledger.reconcile.shell_words import TOO_DEEP, simple_commands

    base = Path(cwd) if cwd else Path.cwd()
    bases = [base]
    # (as written, places it may be, name patterns it is limited to, computed when it runs)
    targets: list[tuple[str, list[Path], list[str], bool]] = []
    for cmd in simple_commands(command):
        if cmd.remote:
            continue
        if cmd.name in ("cd", "pushd") and not cmd.dynamic:
            folder = next((a for a in cmd.argv[1:] if not a.startswith("-")), "~")
            bases.append(_resolve(bases[-1], folder.replace("~+", str(bases[-1]))))
            continue
        if cmd.name == TOO_DEEP:
            if _DELETE_WORD.search(cmd.argv[1]):
                targets.append(("(a script nested too deep to read)", [], [], True))
            continue
        got = _deleted(cmd.argv)
        if got is None:
            if _REMOTE_DELETE_CALLS.search(cmd.text):  # python -c "shutil.rmtree('results')"
                targets.append(("(a delete inside a program)", [], [], True))
            continue
        found, names = got
        if cmd.dynamic and not found:  # `... | xargs rm -rf`: its paths come from elsewhere
            targets.append(("(paths read when it runs)", [], names, True))
        for target in found:
            for each in _braces(target):
                places, computed = _expand(each, bases)
                targets.append((target, places, names, computed or cmd.dynamic))
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
    for target, places, names, computed in targets:
        for root, what, digest in protected:
            hit = any(_deletes_some_of(place, root, names) for place in places)
            if hit and root == home:  # its cache is always safe to delete
                hit = any(_deletes_some_of(p, root, names) and
                          home / "cache" not in (p, *p.parents) for p in places)
            if not hit and computed and (root.name in command or str(root) in command):
                hit = True  # `echo results | xargs rm -rf`, `rm -rf $(echo results)`
            if not hit:
                continue
            if digest is not None:
                if not digest:
                    reasons.append(f"`rm {target}` deletes {what}, which has no recorded "
                                   "digest")
                    continue
                problem = checker.problem(digest)
                if problem is not None:
                    reasons.append(f"`rm {target}` deletes {what}, and its stored copy "
                                   f"does not verify: {problem}")
                continue
            reasons.append(f"`rm {target}` deletes {what}")
    return reasons


def _deletes_some_of(place: Path, root: Path, names: list[str]) -> bool:
    """Deleting ``place`` (limited to entries whose name matches one of ``names``, as find
    does; none: everything) deletes some of ``root``."""
    import fnmatch

    if not _overlaps(place, root):
        return False
    if not names or place == root or root in place.parents:
        return True  # at or inside the root: whatever matches there is the root's
    # above the root: only when the root itself (or a folder between) matches a name
    between = [p for p in (root, *root.parents) if place in p.parents]
    return any(fnmatch.fnmatch(p.name, n) or fnmatch.fnmatch(str(p), n) for p in between
               for n in names)


def _braces(word: str) -> list[str]:
    """Brace expansion, as the shell does it: ``{results,tmp}`` -> results, tmp."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", word)
    if m is None:
        return [word]
    out: list[str] = []
    for choice in m.group(1).split(",")[:64]:
        out += _braces(word[:m.start()] + choice + word[m.end():])
    return out[:256]


def _expand(target: str, bases: list[Path]) -> tuple[list[Path], bool]:
    """Where ``target`` may point, from each working folder the command line passes through;
    true when part of it is computed when it runs (then only its fixed folder part is a
    place: `rm -rf "$tmp"` names no place, `rm -rf results/$x` names one inside results)."""
    import glob

    places: list[Path] = []
    computed = False
    for base in bases:
        text = target.replace("${PWD}", str(base)).replace("$PWD", str(base))
        text = text.replace("~+", str(base))
        try:
            text = os.path.expandvars(os.path.expanduser(text))
        except ValueError:  # a NUL byte: no such path
            computed = True
            continue
        if "$" in text or "`" in text or "\0" in text:
            computed = True
            head = re.split(r"[$`\0]", text, maxsplit=1)[0]
            if "/" not in head:
                continue
            text = head.rsplit("/", 1)[0] or "/"
        if any(c in text for c in "*?["):
            pattern = str(_resolve(base, text))
            # what it matches now (what does not exist cannot be deleted)
            places += [Path(os.path.normpath(p)) for p in glob.glob(pattern)]
            continue
        places.append(_resolve(base, text))
    return places, computed


def _overlaps(place: Path, root: Path) -> bool:
    """Deleting ``place`` recursively deletes some of ``root``: it is the folder, above it,
    or inside it."""
    return place == root or place in root.parents or root in place.parents


def _resolve(base: Path, path: str) -> Path:
    try:
        p = Path(os.path.expanduser(path))
    except ValueError:  # a NUL byte: the shell would refuse it; judged as written
        p = Path(path)
    return Path(os.path.normpath(p if p.is_absolute() else base / p))
