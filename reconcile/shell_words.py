"""Shell command lines cut into the simple commands they run, for the agent tool hook.

The hook (`hook`) must see ``vastai destroy instance 222`` in every form an agent may write it:
quoted words (``vastai 'destroy' instance``, ``$'destroy'``), line continuations, wrappers
(``sudo -u root``, ``env``, ``nice``, ``timeout 5``, ``xargs``, ``flock f``), chains (``;``,
``&&``, ``||``, ``|``, ``&``, newlines), groups and subshells, ``bash -c '...'``, ``eval``,
command substitutions, scripts fed to a shell (here-documents, here-strings, ``echo ... |
bash``), and the remote command of ``ssh host ...``. `simple_commands` returns each as a
`SimpleCommand`: its words with quotes removed and wrappers dropped, and its *context* (the
text that names which instance it acts on: for a command run through ssh, the ssh line with
its host).

This is not a shell: it over-approximates (an odd quoting only yields more commands to judge)
and marks as *dynamic* any command whose words are computed when it runs (``$VAR``, ``$(...)``,
backticks, ``xargs``, ``<`` input), so the hook never trusts what it cannot read. A
here-document fed to anything but a shell is data (a file being written), not commands.
Invariants: parsing never raises, and its work is linear in the input's size times the nesting
depth (capped at `MAX_DEPTH`; deeper scripts come back whole, as one dynamic command).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

__all__ = ["SimpleCommand", "simple_commands", "normalize_line", "MAX_DEPTH", "TOO_DEEP"]

MAX_DEPTH = 12
TOO_DEEP = "<too-deep>"  # the command word of a script nested beyond MAX_DEPTH
_MAX_COMMANDS = 5000
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "busybox"}
_KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "(", ")",
             "time", "fi", "done", "esac"}
# wrapper -> options that take a value (skipped with it); the command follows the options
_WRAPPERS: dict[str, set[str]] = {
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"},
    "doas": {"-u", "-C"},
    "env": {"-u", "-C", "--unset", "--chdir"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p", "--class", "--classdata"},
    "nohup": set(), "command": set(), "builtin": set(), "setsid": set(),
    "exec": {"-a"},
    "stdbuf": {"-i", "-o", "-e"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "xargs": {"-I", "-i", "-n", "-P", "-d", "-a", "-E", "-L", "-s", "--max-args",
              "--max-procs", "--delimiter", "--arg-file"},
    "parallel": {"-j", "-S", "--jobs"},
    "watch": {"-n", "-d", "--interval"},
    "caffeinate": set(), "chronic": set(), "unbuffer": set(),
    "chrt": set(), "taskset": set(), "flock": {"-w", "-E", "--timeout"}, "numactl": set(),
}
_OPERANDS = {"timeout": 1, "chrt": 1, "taskset": 1, "flock": 1}  # words before the command
_SSH_VALUE_OPTIONS = set("BbcDEeFIiJLlmOoPpQRSWw")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DYNAMIC = re.compile(r"[$`]|<(?![<(])")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z0-9_.\-]+)\2")


@dataclass
class SimpleCommand:
    argv: list[str]        # quotes removed, wrappers and keywords dropped; argv[0] as written
    context: str           # the text naming what it acts on (its own line, or the ssh line)
    dynamic: bool = False  # words computed when it runs: what it acts on cannot be read here
    remote: bool = False   # run on another machine (the remote command of ssh)
    # for a remote command: the ssh destination as written, after the options that decide
    # where it leads (-F config, -o ...): what `ssh -G` needs to resolve it as ssh would
    destination: list[str] | None = None

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
    """Line continuations removed, as the shell does (``des\\<newline>troy`` is ``destroy``)."""
    return command.replace("\\\r\n", "").replace("\\\n", "")


def simple_commands(command: str) -> list[SimpleCommand]:
    """Every simple command ``command`` would run that can be read from its text."""
    out: list[SimpleCommand] = []
    _parse(normalize_line(command), None, False, False, out, 0)
    return out


def _parse(script: str, context: str | None, dynamic: bool, remote: bool,
           out: list[SimpleCommand], depth: int) -> None:
    if len(out) >= _MAX_COMMANDS:
        return
    if depth > MAX_DEPTH:  # whole, as one command whose words cannot be read
        out.append(SimpleCommand([TOO_DEEP, script], context or script, True, remote))
        return
    for inner in _substitutions(script):  # $(...) and `...` run too
        _parse(inner, context, True, remote, out, depth + 1)
    parts = _split(script)
    piped_text = [p for p, _ in parts]
    for part, heredocs in parts:
        _simple(part, heredocs, piped_text, context, dynamic, remote, out, depth)


def _simple(part: str, heredocs: list[str], line: list[str], context: str | None,
            dynamic: bool, remote: bool, out: list[SimpleCommand], depth: int) -> None:
    try:
        argv = shlex.split(_ansi_c(part), comments=True)
    except ValueError:  # an unclosed quote: words as they come, quotes dropped
        argv = [w.strip("'\"") for w in part.split()]
    dyn = dynamic or bool(_DYNAMIC.search(part))
    fed: list[str] = list(heredocs)  # what the command reads as its standard input
    words: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "<<<" and i + 1 < len(argv):
            fed.append(argv[i + 1])
            i += 2
            continue
        if argv[i]:
            words.append(argv[i])
        i += 1
    argv = _unwrap(words)
    if argv and argv[0] == "\0xargs":
        dyn, argv = True, argv[1:]
    if not argv:
        return
    here = context if context is not None else part.strip()
    out.append(SimpleCommand(argv, here, dyn, remote))
    name = os.path.basename(argv[0])
    if name in _SHELLS or name == "eval" or name == "su" or name == "script":
        script = _shell_script(argv, name)
        if script is not None:
            _parse(script, context, dyn, remote, out, depth + 1)
        elif name in _SHELLS:
            # a shell reading its script from stdin: a here-document, a here-string, or what
            # `echo`/`printf`/`cat` print into the pipe (`echo 'rm -rf x' | bash`)
            sources = fed + [p for p in line if p is not part]
            for source in sources:
                _parse(_printed(source), context, True, remote, out, depth + 1)
    elif name in ("ssh", "mosh"):
        destination, command = _ssh_remote(argv)
        if command or fed:
            first = len(out)
            for script in ([command] if command else []) + fed:
                _parse(script, here, dyn, True, out, depth + 1)
            for found in out[first:]:
                found.destination = found.destination or destination
    elif name == "vastai" and len(argv) >= 4 and argv[1] == "execute":
        _parse(" ".join(argv[3:]), here, dyn, True, out, depth + 1)


def _unwrap(argv: list[str]) -> list[str]:
    """``argv`` without leading keywords, assignments and wrappers (their options too);
    ``"\\0xargs"`` first when an xargs fed it (its words come from stdin)."""
    via_xargs = False
    while argv:
        word = argv[0]
        base = os.path.basename(word)
        if word in _KEYWORDS or _ASSIGNMENT.match(word):
            argv = argv[1:]
        elif base == "env" and any(a.startswith(("-S", "--split-string")) for a in argv[1:2]):
            flag = argv[1]
            rest = flag.split("=", 1)[1] if "=" in flag else (
                flag[2:] if flag.startswith("-S") and len(flag) > 2 else " ".join(argv[2:3]))
            argv = _split_words(rest) + argv[3 if rest and flag in ("-S", "--split-string")
                                              else 2:]
        elif base in _WRAPPERS:
            via_xargs = via_xargs or base in ("xargs", "parallel")
            argv = _skip_options(argv[1:], _WRAPPERS[base], _OPERANDS.get(base, 0))
            if base == "env":
                while argv and _ASSIGNMENT.match(argv[0]):
                    argv = argv[1:]
            if base == "parallel" and ":::" in argv:
                argv = argv[:argv.index(":::")] + argv[argv.index(":::") + 1:]
        else:
            break
    return ["\0xargs", *argv] if via_xargs and argv else argv


def _split_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _skip_options(argv: list[str], with_value: set[str], operands: int) -> list[str]:
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        word = argv[i]
        if word == "--":
            i += 1
            break
        bundled_value = len(word) > 2 and word[1] != "-" and "-" + word[-1] in with_value
        i += 2 if word in with_value or bundled_value else 1  # -u root, -iu root
    return argv[i + operands:]


def _shell_script(argv: list[str], name: str) -> str | None:
    if name == "eval":
        return " ".join(argv[1:])
    if name == "busybox":  # busybox sh -c ..., busybox rm -rf ...
        return shlex.join(argv[1:]) if len(argv) > 1 and argv[1] not in _SHELLS else (
            _shell_script(argv[1:], argv[1]) if len(argv) > 1 else None)
    for i, word in enumerate(argv[1:], 1):
        if (word.startswith("-") and not word.startswith("--") and "c" in word) or \
                word == "--command":
            return argv[i + 1] if i + 1 < len(argv) else None
    return None


def _printed(source: str) -> str:
    """The script a shell reads from a pipe: what an ``echo``/``printf``/``cat`` prints."""
    words = _split_words(source)
    if words and os.path.basename(words[0]) in ("echo", "printf", "cat"):
        words = words[1:]
        while words and words[0] in ("-e", "-n", "-E", "-ne", "-en", "--"):
            words = words[1:]  # echo's own options, not the script's
        return " ".join(words)
    return source


def _ssh_remote(argv: list[str]) -> tuple[list[str] | None, str]:
    """The destination (with its -F/-o options) and the remote command of ``ssh [options]
    host [options] [--] command...``."""
    host_seen = False
    where: list[str] = []
    destination: list[str] | None = None
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            if not host_seen:
                destination = [*where, argv[i]] if i < len(argv) else None
                i += 1  # the host follows
            break
        if word.startswith("-") and len(word) > 1:
            # bundled flags (-vp 22): a value option takes the rest, or the next word
            for k, ch in enumerate(word[1:], 1):
                if ch in _SSH_VALUE_OPTIONS:
                    value = word[k + 1:] if k < len(word) - 1 else (
                        argv[i + 1] if i + 1 < len(argv) else "")
                    if ch in "Fo" and not host_seen:
                        where += ["-" + ch, value]
                    if k == len(word) - 1:
                        i += 1
                    break
            i += 1
            continue
        if host_seen:
            break
        host_seen = True
        destination = [*where, word]
        i += 1
    return destination, " ".join(argv[i:])


def _ansi_c(part: str) -> str:
    """``$'...'`` (ANSI-C quoting, where ``\\'`` is a quote) as a plain single-quoted word."""
    if "$'" not in part:
        return part

    def plain(m: re.Match[str]) -> str:
        body = m.group(1).replace("\\'", "'")
        return shlex.quote(body)

    return re.sub(r"\$'((?:[^'\\]|\\.)*)'", plain, part)


def _split(script: str) -> list[tuple[str, list[str]]]:
    """Cut at ``; & && || | newline ( ) { }`` outside quotes (a ``#`` comment ends a line),
    each part with the bodies of the here-documents it opens."""
    parts: list[tuple[str, list[str]]] = []
    current: list[str] = []
    pending: list[tuple[str, bool]] = []  # here-document delimiters opened on this line
    bodies: list[str] = []
    quote = ""
    i, n = 0, len(script)

    def close() -> None:
        parts.append(("".join(current), bodies[:]))
        current.clear()
        bodies.clear()

    while i < n:
        ch = script[i]
        if quote:
            current.append(ch)
            if ch == "\\" and quote in ('"', "$'") and i + 1 < n:
                current.append(script[i + 1])
                i += 1
            elif ch == quote[-1]:
                quote = ""
        elif ch == "$" and script.startswith("$'", i):
            quote = "$'"
            current.append("$'")
            i += 1
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch == "\\" and i + 1 < n:
            current.append(script[i:i + 2])
            i += 1
        elif ch == "<" and script.startswith("<<", i) and not script.startswith("<<<", i):
            m = _HEREDOC.match(script, i)
            if m is None:
                current.append(ch)
            else:
                pending.append((m.group(3), m.group(1) == "-"))
                current.append(" ")
                i = m.end()
                continue
        elif ch == "#" and (not current or current[-1] in " \t"):
            while i < n and script[i] != "\n":
                i += 1
            continue
        elif ch == "\n" and pending:
            # the here-documents' bodies follow this line, in order: data for the command
            i += 1
            for delimiter, tabs in pending:
                lines: list[str] = []
                while i < n:
                    end = script.find("\n", i)
                    end = n if end < 0 else end
                    line = script[i:end]
                    i = end + 1
                    if (line.lstrip("\t") if tabs else line).rstrip("\r") == delimiter:
                        break
                    lines.append(line)
                bodies.append("\n".join(lines))
            pending = []
            close()
            continue
        elif ch in ";&|\n()":
            close()
        else:
            current.append(ch)
        i += 1
    close()
    return [(p.strip(), b) for p, b in parts if p.strip() or b]


def _substitutions(script: str) -> list[str]:
    """The bodies of the outermost ``$(...)`` (balanced) and backtick substitutions (the
    nested ones are found when a body is parsed: each character is scanned once per level)."""
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
        i = j  # past this one: its inner substitutions are its own body's
    found += re.findall(r"`([^`]*)`", script)
    return found
