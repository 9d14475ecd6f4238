"""Shell command lines cut into the simple commands they run, for the agent tool hook.

The hook (`hook`) must see ``vastai destroy instance 222`` in every form an agent may write it:
quoted words (``vastai 'destroy' instance``), line continuations, wrappers (``sudo -u root``,
``env``, ``nice``, ``timeout 5``, ``xargs``), chains (``;``, ``&&``, ``||``, ``|``, ``&``,
newlines), groups and subshells, ``bash -c '...'``, ``eval "..."``, command substitutions,
and the remote command of ``ssh host '...'``. `simple_commands` returns each of them as a
`SimpleCommand`: its words with quotes removed and wrappers dropped, and its *context* (the
text that names which instance it acts on: for a command run through ssh, the ssh line with
its host).

This is not a shell: it over-approximates (a split inside an odd quoting only yields more
commands to judge) and marks as *dynamic* any command whose words are computed when it runs
(``$VAR``, ``$(...)``, backticks, ``xargs``, ``<`` input), so the hook never trusts what it
cannot read. Invariant: parsing never raises, whatever the input.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

__all__ = ["SimpleCommand", "simple_commands", "normalize_line"]

_MAX_DEPTH = 6
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish"}
_KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "(", ")",
             "time", "fi", "done", "esac"}
# wrapper -> options that take a value (skipped with it); the command follows the options
_WRAPPERS: dict[str, set[str]] = {
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"},
    "doas": {"-u", "-C"},
    "env": {"-u", "-C", "-S", "--unset", "--chdir"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p", "--class", "--classdata"},
    "nohup": set(), "command": set(), "exec": set(), "builtin": set(), "setsid": set(),
    "stdbuf": {"-i", "-o", "-e"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "xargs": {"-I", "-i", "-n", "-P", "-d", "-a", "-E", "-L", "-s", "--max-args",
              "--max-procs", "--delimiter", "--arg-file"},
    "watch": {"-n", "-d", "--interval"},
    "caffeinate": set(), "chronic": set(), "unbuffer": set(),
}
_SSH_VALUE_OPTIONS = set("pilo FJLRDbcEemOQSWwB".replace(" ", ""))
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DYNAMIC = re.compile(r"[$`]|<(?!<)")


@dataclass
class SimpleCommand:
    argv: list[str]        # quotes removed, wrappers and keywords dropped; argv[0] as written
    context: str           # the text naming what it acts on (its own line, or the ssh line)
    dynamic: bool = False  # words computed when it runs: what it acts on cannot be read here
    remote: bool = False   # run on another machine (the remote command of ssh)

    @property
    def name(self) -> str:
        """The command word without its folder (``/usr/sbin/shutdown`` -> ``shutdown``)."""
        return os.path.basename(self.argv[0]) if self.argv else ""

    @property
    def text(self) -> str:
        """The words joined by spaces, the command word without its folder: what patterns
        are searched in."""
        return " ".join([self.name, *self.argv[1:]]) if self.argv else ""


def normalize_line(command: str) -> str:
    """Line continuations joined (``vastai \\<newline> destroy`` is one command)."""
    return command.replace("\\\r\n", " ").replace("\\\n", " ")


def simple_commands(command: str) -> list[SimpleCommand]:
    """Every simple command ``command`` would run that can be read from its text."""
    out: list[SimpleCommand] = []
    _parse(normalize_line(command), None, False, False, out, 0)
    return out


def _parse(script: str, context: str | None, dynamic: bool, remote: bool,
           out: list[SimpleCommand], depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    for inner in _substitutions(script):  # $(...) and `...` run too
        _parse(inner, context, True, remote, out, depth + 1)
    for part in _split(script):
        _simple(part, context, dynamic, remote, out, depth)


def _simple(part: str, context: str | None, dynamic: bool, remote: bool,
            out: list[SimpleCommand], depth: int) -> None:
    try:
        argv = shlex.split(part, comments=True)
    except ValueError:  # an unclosed quote: words as they come, quotes dropped
        argv = [w.strip("'\"") for w in part.split()]
    dyn = dynamic or bool(_DYNAMIC.search(part))
    argv = [a for a in argv if a]
    while argv:
        word = argv[0]
        base = os.path.basename(word)
        if word in _KEYWORDS or _ASSIGNMENT.match(word):
            argv = argv[1:]
        elif base in _WRAPPERS:
            if base == "xargs":
                dyn = True
            argv = _skip_options(argv[1:], _WRAPPERS[base],
                                 takes_operand=base == "timeout")
            if base == "env":
                while argv and _ASSIGNMENT.match(argv[0]):
                    argv = argv[1:]
        else:
            break
    if not argv:
        return
    here = context if context is not None else part.strip()
    out.append(SimpleCommand(argv, here, dyn, remote))
    name = os.path.basename(argv[0])
    if name in _SHELLS or name == "eval":
        script = _shell_script(argv) if name != "eval" else " ".join(argv[1:])
        if script is not None:
            _parse(script, context, dyn, remote, out, depth + 1)
    elif name == "ssh":
        command = _ssh_remote(argv)
        if command:
            _parse(command, here, dyn, True, out, depth + 1)


def _skip_options(argv: list[str], with_value: set[str], takes_operand: bool) -> list[str]:
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        if argv[i] == "--":
            i += 1
            break
        i += 2 if argv[i] in with_value else 1
    if takes_operand and i < len(argv):
        i += 1  # timeout's duration
    return argv[i:]


def _shell_script(argv: list[str]) -> str | None:
    for i, word in enumerate(argv[1:], 1):
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            return argv[i + 1] if i + 1 < len(argv) else None
    return None


def _ssh_remote(argv: list[str]) -> str:
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        flag = argv[i]
        i += 2 if len(flag) == 2 and flag[1] in _SSH_VALUE_OPTIONS else 1
    return " ".join(argv[i + 1:])  # after the host


def _split(script: str) -> list[str]:
    """Cut at ``; & && || | newline ( ) { }`` outside quotes (a ``#`` comment ends a line)."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if quote:
            current.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < n:
                current.append(script[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch == "\\" and i + 1 < n:
            current.append(script[i:i + 2])
            i += 1
        elif ch == "#" and (not current or current[-1] in " \t"):
            while i < n and script[i] != "\n":
                i += 1
            continue
        elif ch in ";&|\n()":
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return [p for p in (x.strip() for x in parts) if p]


def _substitutions(script: str) -> list[str]:
    """The bodies of ``$(...)`` (balanced) and backtick substitutions."""
    found: list[str] = []
    i = 0
    while True:
        i = script.find("$(", i)
        if i < 0:
            break
        depth, j = 1, i + 2
        while j < len(script) and depth:
            depth += {"(": 1, ")": -1}.get(script[j], 0)
            j += 1
        found.append(script[i + 2:j - 1] if depth == 0 else script[i + 2:])
        i += 2
    found += re.findall(r"`([^`]*)`", script)
    return found
