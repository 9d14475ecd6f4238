"""Shell command lines cut into the simple commands they run, for the agent tool hook.

The hook (`hook`) must see ``vastai destroy instance 222`` in every form an agent may write it:
quoted words (``vastai 'destroy' instance``, ``$'destroy'``), line continuations, wrappers
(``sudo -u root``, ``env``, ``nice``, ``timeout 5``, ``xargs``, ``flock f``), chains (``;``,
``&&``, ``||``, ``|``, ``&``, newlines), groups and subshells, ``bash -c '...'``, ``eval``,
command substitutions, scripts fed to a shell (here-documents, here-strings, ``echo ... |
bash``), the remote command of ``ssh host ...`` (also a script piped or here-doc'd into ssh),
a program an interpreter reads from stdin (``python - <<EOF``), and the command a runner runs
(``uv run``, ``docker exec``, ``find -exec``, ``labledger run --``, ``srun``, ``strace``,
``sbatch --wrap``). `simple_commands` returns each as a
`SimpleCommand`: its words with quotes removed and wrappers dropped, and its *context* (the
text that names which instance it acts on: for a command run through ssh, the ssh line with
its host).

This is not a shell: it over-approximates (an odd quoting only yields more commands to judge)
and marks as *dynamic* any command whose words are computed when it runs (``$VAR``, ``$(...)``,
backticks, ``xargs``, ``<`` input), so the hook never trusts what it cannot read. A
here-document fed to anything but a shell, ssh or an interpreter reading its program from stdin
is data (a file being written), not commands.
Invariants: parsing never raises, and its work is linear in the input's size times the nesting
depth (capped at `MAX_DEPTH`; deeper scripts come back whole, as one dynamic command): words
are built from lists of pieces joined once (never by repeated string concatenation, which
``shlex`` does and which is quadratic in a word's length).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Collection
from dataclasses import dataclass

__all__ = ["SimpleCommand", "simple_commands", "normalize_line", "skip_options", "MAX_DEPTH",
           "TOO_DEEP"]

MAX_DEPTH = 12
TOO_DEEP = "<too-deep>"  # the command word of a script nested beyond MAX_DEPTH
_MAX_COMMANDS = 5000
_MAX_READERS = 16  # commands of one line judged as reading the others' output
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
    # tracers and Slurm launchers run their command as given
    "strace": {"-o", "-e", "-p", "-s", "-E", "-u", "-a", "-b", "-I", "-P", "-X", "-O", "-S"},
    "ltrace": {"-o", "-e", "-p", "-s", "-E", "-u", "-a", "-n", "-l", "-x", "-L"},
    "valgrind": set(),
    "srun": {"-n", "-N", "-c", "-p", "-t", "-J", "-A", "-w", "-o", "-e", "-i", "-G", "-C", "-q",
             "-D", "-x", "-d", "-m", "-r", "--ntasks", "--nodes", "--partition", "--time",
             "--job-name", "--account", "--gres", "--mem", "--cpus-per-task", "--output",
             "--error", "--input", "--nodelist", "--exclude", "--qos", "--chdir",
             "--constraint", "--gpus", "--dependency", "--distribution", "--mpi"},
}
_WRAPPERS["salloc"] = _WRAPPERS["srun"]
_OPERANDS = {"timeout": 1, "chrt": 1, "taskset": 1, "flock": 1}  # words before the command
_SSH_VALUE_OPTIONS = set("BbcDEeFIiJLlmOoPpQRSWw")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DYNAMIC = re.compile(r"[$`]|<(?![<(])")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z0-9_.\-]+)\2")
# runs of characters with no meaning to the scanners below (consumed in one step: speed)
_SPLIT_PLAIN = re.compile(r"[^'\"$\\<#;&|\n()]+")
# a quoted string (its closing quote may be missing): '...', "..." and $'...' with escapes
_QUOTED = re.compile(r"'[^']*'?|\"[^\"\\]*(?:\\.[^\"\\]*)*\"?|\$'[^'\\]*(?:\\.[^'\\]*)*'?", re.S)
# the tokens of a simple command's words: blanks, quoted strings, an escape, a comment start,
# a run of plain characters
_WORD_TOKEN = re.compile(r"[ \t\r\n]+|'[^']*'?|\"[^\"\\]*(?:\\.[^\"\\]*)*\"?|\\.?|#|"
                         r"[^ \t\r\n'\"\\#]+", re.S)
_WORD_SPECIAL = re.compile(r"['\"\\#]")
_BLANKS = re.compile(r"[ \t\r\n]+")
# interpreters that read their program from stdin when given `-` or no program at all; the
# options that give the program inline (then stdin is data) and those taking a value
_INTERPRETER = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|perl|ruby|php|Rscript|R|"
                          r"lua|tclsh|osascript)$")
_INLINE_PROGRAM = {"-c", "-m", "-e", "-E", "-r", "-p", "--eval", "--print", "--command"}
_INTERPRETER_VALUE_OPTIONS = {"-W", "-X", "-I", "-r", "--require", "--import", "-M", "-x"}
# `RUNNER run [options] COMMAND...`: project tools that run a program in their environment
_RUN_TOOLS = {"uv", "poetry", "pdm", "pipenv", "hatch", "rye", "conda", "mamba", "micromamba",
              "pixi"}
_RUN_VALUE_OPTIONS = {
    "--color", "-C", "-P", "--allow-insecure-host", "--python-fetch", "--with",
    "--with-editable", "--with-requirements", "--python", "-p", "--package",
    "--extra", "--group", "--only-group", "--no-group", "--env-file", "--directory",
    "--project", "--index", "--index-url", "--extra-index-url", "--find-links", "-f", "-n",
    "--name", "--prefix", "--cwd", "-e", "--env", "--environment", "--config-file",
    "--cache-dir", "--python-preference", "--manifest-path"}
_CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}
_CONTAINER_VALUE_OPTIONS = {
    "-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys", "-v",
    "--volume", "-p", "--publish", "--name", "--network", "--net", "--gpus", "--shm-size",
    "-m", "--memory", "--cpus", "--mount", "--label", "-l", "--hostname", "-h", "--ipc",
    "--runtime", "--platform", "--pull", "--restart", "--device", "--cap-add", "--cap-drop",
    "--add-host", "--log-driver", "--log-opt", "--security-opt", "--ulimit", "--tmpfs",
    "--stop-signal", "--stop-timeout", "--cidfile", "--label-file", "--pid", "--userns",
    "--volumes-from", "--link", "--dns", "--expose", "-c", "--cpu-shares", "--cpuset-cpus",
    "--memory-swap", "--entrypoint", "--index", "--uts", "--group-add", "--health-cmd"}
_LABLEDGER_VALUE_OPTIONS = {"--root", "--run", "--instance", "--config", "--heartbeat",
                            "--override", "--evidence", "--method", "--timeout"}
_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
# global options (taking a value) that may stand before a runner's subcommand
_CONTAINER_GLOBAL_VALUES = {"-c", "--context", "--config", "-H", "--host", "-l", "--log-level",
                            "--tlscacert", "--tlscert", "--tlskey", "--connection", "--url",
                            "--identity", "--root", "--runroot", "--namespace", "-n"}
_COMPOSE_GLOBAL_VALUES = {"-f", "--file", "-p", "--project-name", "--profile", "--env-file",
                          "--project-directory", "--ansi", "--progress", "--parallel"}
_KUBECTL_VALUE_OPTIONS = {"-n", "--namespace", "--context", "--kubeconfig", "--cluster",
                          "--user", "-s", "--server", "--token", "--as", "--as-group", "-c",
                          "--container", "-f", "--filename", "--request-timeout",
                          "--certificate-authority", "--client-certificate", "--client-key"}
_NPM_VALUE_OPTIONS = {"-w", "--workspace", "-c", "--call", "--prefix", "-C", "--dir",
                      "--package", "-p", "--cwd", "--filter", "-F"}
_GIT_GLOBAL_VALUES = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                      "--super-prefix"}
# an awk program that runs commands: system(), `print | "cmd"`, `"cmd" | getline`
_AWK_RUNS = re.compile(r"\bsystem\s*\(|\|")


@dataclass
class SimpleCommand:
    argv: list[str]        # quotes removed, wrappers and keywords dropped; argv[0] as written
    context: str           # the text naming what it acts on (its own line, or the ssh line)
    dynamic: bool = False  # words computed when it runs: what it acts on cannot be read here
    remote: bool = False   # run on another machine (the remote command of ssh)
    # for a remote command: the ssh destination as written, after the options that decide
    # where it leads (-F config, -o ...): what `ssh -G` needs to resolve it as ssh would
    destination: list[str] | None = None
    # run by xargs/parallel: words read when it runs are appended to ``argv``
    appended: bool = False

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
           out: list[SimpleCommand], depth: int, stdin: tuple[str, ...] = ()) -> None:
    """Record the simple commands of ``script``; ``stdin``: what the script as a whole reads
    (ssh's standard input, for its remote command), handed to each of its commands."""
    if len(out) >= _MAX_COMMANDS:
        return
    if depth > MAX_DEPTH:  # whole, as one command whose words cannot be read
        out.append(SimpleCommand([TOO_DEEP, script], context or script, True, remote))
        return
    for inner in _substitutions(script):  # $(...) and `...` run too
        _parse(inner, context, True, remote, out, depth + 1)
    parts = _split(script)
    line = _Line([p for p, _ in parts])
    for part, heredocs in parts:
        _simple(part, [*heredocs, *stdin], line, context, dynamic, remote, out, depth)


class _Line:
    """The parts of one script, for the commands of it that read a pipe (`echo ... | bash`):
    what the others print. Each reader re-reads the whole line, so past `_MAX_READERS` of
    them the line is handed over once, whole, as one unreadable command (linear work)."""

    def __init__(self, parts: list[str]) -> None:
        self.parts = parts
        self.readers_left = _MAX_READERS

    def piped_into(self, part: str, out: list[SimpleCommand], context: str | None,
                   remote: bool) -> list[str]:
        if self.readers_left == 0:
            return []
        self.readers_left -= 1
        if self.readers_left == 0:
            whole = "\n".join(self.parts)
            out.append(SimpleCommand([TOO_DEEP, whole], context or whole, True, remote))
        return [_printed(p) for p in self.parts if p is not part]


def _simple(part: str, heredocs: list[str], line: _Line, context: str | None,
            dynamic: bool, remote: bool, out: list[SimpleCommand], depth: int) -> None:
    argv = _words(_ansi_c(part))
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
    here = context if context is not None else part.strip()
    _command(words, fed, lambda: line.piped_into(part, out, context, remote), here, context,
             dyn, remote, out, depth)


def _command(words: list[str], fed: list[str], piped_text: Callable[[], list[str]], here: str,
             context: str | None, dyn: bool, remote: bool, out: list[SimpleCommand],
             depth: int, appended: bool = False) -> None:
    """Record the command ``words`` run (wrappers dropped), then whatever it runs in turn: a
    shell's script, ssh's remote command, an interpreter's program from stdin, a runner's
    command, the program text some tools run (``git rebase -x``, ``awk``'s ``system()``)."""
    if len(out) >= _MAX_COMMANDS or depth > MAX_DEPTH:
        return
    argv = _unwrap(words)
    if argv and argv[0] == "\0xargs":
        dyn, appended, argv = True, True, argv[1:]
    if not argv:
        return
    name = os.path.basename(argv[0])
    reads_script = (name in _SHELLS or name == "su") and _shell_script(argv, name) is None
    # what the other parts of the line print into its stdin (`echo '...' | bash`), read only
    # for a command that runs its stdin: a shell, ssh, an interpreter
    piped: list[str] = []
    if _interpreter_reads_stdin(argv, name):  # its program is part of its words
        piped = piped_text()
        argv = [*argv, *fed, *piped]
    elif reads_script or name in ("ssh", "mosh"):
        piped = piped_text()
    out.append(SimpleCommand(argv, here, dyn, remote, appended=appended))
    if name in _SHELLS or name in ("eval", "su", "script", "sbatch"):
        script = _shell_script(argv, name)
        if script is not None:
            _parse(script, context, dyn, remote, out, depth + 1)
        elif reads_script:
            # a shell reading its script from stdin: a here-document, a here-string, or what
            # `echo`/`printf`/`cat` print into the pipe (`echo 'rm -rf x' | bash`)
            for source in fed + piped:
                _parse(source, context, True, remote, out, depth + 1)
    elif name in ("ssh", "mosh"):
        destination, command = _ssh_remote(argv)
        first = len(out)
        if command:
            # ssh's stdin (a here-document, a pipe) is the remote command's: a shell or an
            # interpreter there reads it as its program (`echo 'rm -rf x' | ssh box bash`)
            _parse(command, here, dyn, True, out, depth + 1, stdin=(*fed, *piped))
        # without a remote command, ssh feeds its stdin to the remote login shell: a pipe
        # or a here-document is a script run on the box
        for script in fed + ([] if command else piped):
            _parse(script, here, dyn, True, out, depth + 1)
        for found in out[first:]:
            found.destination = found.destination or destination
    elif name == "vastai" and len(argv) >= 4 and argv[1] == "execute":
        _parse(" ".join(argv[3:]), here, dyn, True, out, depth + 1)
    else:
        for inner, computed in _runner_commands(argv, name):
            _command(inner, fed, piped_text, here, context, dyn or computed, remote, out,
                     depth + 1, appended)
        for script, computed in _program_texts(argv, name):
            _parse(script, context, dyn or computed, remote, out, depth + 1)


def _interpreter_reads_stdin(argv: list[str], name: str) -> bool:
    """``python -``, ``python`` alone, ``node -``, ``perl``: the program is read from stdin
    (a here-document or a pipe), so it is judged like the text of ``python -c``."""
    if not _INTERPRETER.match(name):
        return False
    if name.startswith(("python", "pypy")):
        return _python_reads_stdin(argv)
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "-":
            return True
        if word in _INLINE_PROGRAM or (word.startswith("-") and not word.startswith("--")
                                       and word[-1:] in ("c", "e", "m") and name != "R"):
            return False
        if not word.startswith("-"):
            return False  # a script file: stdin is its data
        i += 2 if word in _INTERPRETER_VALUE_OPTIONS else 1
    return True


def _python_reads_stdin(argv: list[str]) -> bool:
    """Python's own options: ``-c``/``-m`` end them (the program is inline, or a module);
    ``-W``/``-X`` take a value (attached or the next word); the other letters are flags,
    bundled or not (``-Eu``, ``-OO``); ``--check-hash-based-pycs`` takes a value."""
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "-":
            return True
        if not word.startswith("-"):
            return False  # a script file: stdin is its data
        if word.startswith("--"):
            i += 2 if word == "--check-hash-based-pycs" else 1
            continue
        step = 1
        for k, ch in enumerate(word[1:], 1):
            if ch in "cm":
                return False
            if ch in "WX":
                step = 1 if k < len(word) - 1 else 2  # -Wignore, -W ignore
                break
        i += step
    return True


def _subcommand(args: list[str], names: set[str], with_value: set[str]) -> int | None:
    """Where in ``args`` the first of ``names`` stands after a tool's global options
    (``docker --context prod run``, ``uv -q run``); None when another word comes first.
    An option not in ``with_value`` may still take the next word (``--foo bar run``): such a
    word is passed over too (reading more commands than run only yields more to judge)."""
    i, maybe_value = 0, False
    while i < len(args):
        word = args[i]
        if word in names:
            return i
        if word == "--":
            return None
        if word.startswith("-") and word != "-":
            if word in with_value:
                i += 2
                maybe_value = False
                continue
            maybe_value = "=" not in word and not (
                len(word) > 2 and word[1] != "-" and "-" + word[1] in with_value)
            i += 1
            continue
        if not maybe_value:
            return None
        maybe_value = False
        i += 1
    return None


def _runner_commands(argv: list[str], name: str) -> list[tuple[list[str], bool]]:
    """The commands a runner starts (``uv run CMD``, ``docker exec C CMD``, ``find -exec CMD
    ;``, ``labledger run -- CMD``, ``git bisect run CMD``...), each with whether its words are
    computed when it runs (find's ``{}``). Their own words are otherwise text (`hook` reads
    them as data). Global options may stand before the subcommand (``docker --context prod
    run``, ``uv -q run``)."""
    args = argv[1:]
    if name in _RUN_TOOLS:
        j = _subcommand(args, {"run", "tool"}, _RUN_VALUE_OPTIONS)
        if j is not None and args[j] == "tool":  # uv tool run
            k = _subcommand(args[j + 1:], {"run"}, _RUN_VALUE_OPTIONS)
            j = None if k is None else j + 1 + k
        if j is not None:
            return _after_options(args[j + 1:], _RUN_VALUE_OPTIONS, 0)
    if name in ("npm", "pnpm", "yarn", "bun"):
        j = _subcommand(args, {"exec"}, _NPM_VALUE_OPTIONS)
        if j is not None:
            return _after_options(args[j + 1:], _NPM_VALUE_OPTIONS, 0)
    if name in _CONTAINER_TOOLS or name == "docker-compose":
        j = _subcommand(args, {"compose", "container", "exec", "run"},
                        _CONTAINER_GLOBAL_VALUES | _COMPOSE_GLOBAL_VALUES)
        if j is not None and args[j] in ("compose", "container"):
            k = _subcommand(args[j + 1:], {"exec", "run"}, _COMPOSE_GLOBAL_VALUES)
            j = None if k is None else j + 1 + k
        if j is not None:  # the container (or image, or service) first
            return _after_options(args[j + 1:], _CONTAINER_VALUE_OPTIONS, 1)
    if name == "kubectl":
        j = _subcommand(args, {"exec"}, _KUBECTL_VALUE_OPTIONS)
        if j is not None and "--" in args[j:]:
            return [(args[args.index("--", j) + 1:], False)]
    if name == "git":
        j = _subcommand(args, {"bisect"}, _GIT_GLOBAL_VALUES)
        if j is not None and args[j + 1:j + 2] == ["run"] and args[j + 2:]:
            return [(args[j + 2:], False)]
    if name == "find":
        return _find_exec_commands(args)
    if name == "labledger":
        return _labledger_command(args)
    return []


def _program_texts(argv: list[str], name: str) -> list[tuple[str, bool]]:
    """Shell text run by a tool whose arguments are otherwise data, each with whether it is
    computed when it runs: git's ``-c alias.x='!CMD'`` (every ``-c`` value is read: a pager,
    an editor, an ssh command may be one), ``submodule foreach CMD``, ``rebase -x CMD``,
    ``filter-branch --tree-filter CMD``, ``difftool -x CMD``; awk's strings and ``-v`` values
    when its program calls ``system()`` or pipes to or from a command; make's ``--eval``."""
    args = argv[1:]
    if name == "git":
        return _git_programs(args)
    if name in ("awk", "gawk", "mawk", "nawk"):
        return _awk_programs(args)
    if name in ("make", "gmake"):
        found: list[tuple[str, bool]] = []
        for i, word in enumerate(args):
            if word.startswith("--eval="):
                found.append((word.split("=", 1)[1], False))
            elif word in ("--eval", "-E") and i + 1 < len(args):
                found.append((args[i + 1], False))
            elif word.startswith("-E") and len(word) > 2:
                found.append((word[2:], False))
        return found
    return []


def _git_programs(args: list[str]) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):  # git's global options
        word = args[i]
        if word == "-c" and i + 1 < len(args):
            value = args[i + 1].partition("=")[2]
            found.append((value[1:] if value.startswith("!") else value, False))
        i += 2 if word in _GIT_GLOBAL_VALUES else 1
    sub, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    if sub == "submodule" and "foreach" in rest:
        inner = rest[rest.index("foreach") + 1:]
        while inner and inner[0].startswith("-"):
            inner = inner[1:]
        if inner:
            found.append((" ".join(inner), False))
    for k, word in enumerate(rest):
        following = rest[k + 1] if k + 1 < len(rest) else ""
        if sub in ("rebase", "difftool", "mergetool") and word in ("-x", "--exec", "--extcmd"):
            found.append((following, False))
        elif sub == "rebase" and word.startswith("-") and not word.startswith("--") and \
                "x" in word:
            cut = word.index("x")
            found.append((word[cut + 1:] or following, False))  # -xCMD, -ix CMD
        elif sub in ("rebase", "difftool") and word.startswith(("--exec=", "--extcmd=")):
            found.append((word.split("=", 1)[1], False))
        elif sub == "filter-branch" and word.startswith("--") and word.endswith("-filter"):
            found.append((following, False))
        elif sub == "filter-branch" and word.startswith("--") and "-filter=" in word:
            found.append((word.split("=", 1)[1], False))
    return [(text, computed) for text, computed in found if text]


def _awk_programs(args: list[str]) -> list[tuple[str, bool]]:
    """The string literals (and ``-v`` values) of an awk program that runs commands: any of
    them may be, or be part of, the command line it runs (computed when it runs)."""
    program: str | None = None
    assigned: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("-v", "--assign") and i + 1 < len(args):
            assigned.append(args[i + 1].partition("=")[2])
            i += 2
            continue
        if word.startswith("-v") and len(word) > 2:
            assigned.append(word[2:].partition("=")[2])
        elif word in ("-f", "--file"):
            return []  # its program is a file written beforehand, like `bash cleanup.sh`
        elif word in ("-F", "--field-separator"):
            i += 1
        elif word == "--":
            program = args[i + 1] if i + 1 < len(args) else None
            break
        elif not word.startswith("-"):
            program = word
            break
        i += 1
    if program is None or not _AWK_RUNS.search(program):
        return []
    strings = re.findall(r'"((?:[^"\\]|\\.)*)"', program)
    return [(text, True) for text in [*strings, *assigned] if text.strip()]


def _after_options(args: list[str], with_value: set[str], operands: int
                   ) -> list[tuple[list[str], bool]]:
    inner = skip_options(args, with_value, operands)
    return [(inner, False)] if inner else []


def _find_exec_commands(args: list[str]) -> list[tuple[list[str], bool]]:
    """Each ``-exec``/``-execdir``/``-ok``/``-okdir`` command of a find, up to its ``;`` or
    ``+``; computed when it names ``{}`` (the paths found)."""
    found: list[tuple[list[str], bool]] = []
    i = 0
    while i < len(args):
        if args[i] in _FIND_EXEC:
            j = i + 1
            while j < len(args) and args[j] not in (";", "+"):
                j += 1
            inner = args[i + 1:j]
            if inner:
                found.append((inner, any("{}" in w for w in inner)))
            i = j
        i += 1
    return found


def _labledger_command(args: list[str]) -> list[tuple[list[str], bool]]:
    """``labledger [global options] run|teardown [options] [--] CMD...``: CMD runs too."""
    rest = skip_options(args, _LABLEDGER_VALUE_OPTIONS, 0)
    if rest[:1] not in (["run"], ["teardown"]):
        return []
    inner = rest[1:]
    if "--" in inner:
        inner = inner[inner.index("--") + 1:]
    else:
        inner = skip_options(inner, _LABLEDGER_VALUE_OPTIONS, 0)
    return [(inner, False)] if inner else []


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
            argv = _words(rest) + argv[3 if rest and flag in ("-S", "--split-string")
                                              else 2:]
        elif base in _WRAPPERS:
            via_xargs = via_xargs or base in ("xargs", "parallel")
            after = skip_options(argv[1:], _WRAPPERS[base], _OPERANDS.get(base, 0))
            if not after and base in ("sudo", "doas") and _runs_a_shell(argv[1:]):
                return ["sh"]  # `sudo -s`, `sudo -i`: a shell reading its script from stdin
            argv = after
            if base == "env":
                while argv and _ASSIGNMENT.match(argv[0]):
                    argv = argv[1:]
            if base == "parallel" and ":::" in argv:
                argv = argv[:argv.index(":::")] + argv[argv.index(":::") + 1:]
        else:
            break
    return ["\0xargs", *argv] if via_xargs and argv else argv


def _runs_a_shell(options: list[str]) -> bool:
    """sudo's (doas's) options start a shell: ``-s``, ``-i``, ``--shell``, ``--login``."""
    return any(o in ("--shell", "--login") or (
        o.startswith("-") and not o.startswith("--") and ("s" in o or "i" in o))
        for o in options)


def _words(text: str) -> list[str]:
    """The words of one simple command, quotes removed, as a POSIX shell splits them (a ``#``
    starting a word starts a comment; an unclosed quote runs to the end). Each word is built
    from a list of pieces joined once, and each character is scanned once (a comment is
    skipped in place), so the work is linear in the text's length."""
    if not _WORD_SPECIAL.search(text):  # plain words only: one split, in C
        return [w for w in _BLANKS.split(text) if w]
    words: list[str] = []
    pieces: list[str] = []
    in_word = False
    pos, n = 0, len(text)
    while pos < n:
        m = _WORD_TOKEN.match(text, pos)
        if m is None:  # cannot happen (every character starts a token): stay linear anyway
            pos += 1
            continue
        token = m.group()
        pos = m.end()
        first = token[0]
        if first in " \t\r\n":
            if in_word:
                words.append("".join(pieces))
                pieces.clear()
                in_word = False
            continue
        if first == "#" and not in_word:  # a comment, to the end of its line
            end = text.find("\n", m.start())
            if end < 0:
                break
            pos = end
            continue
        in_word = True
        if first == "'":
            pieces.append(token[1:-1] if len(token) > 1 and token.endswith("'") else token[1:])
        elif first == '"':
            closed = len(token) > 1 and token.endswith('"') and not _escaped_end(token)
            _double_quoted(token[1:-1] if closed else token[1:], pieces)
        elif first == "\\":
            pieces.append(token[1:])
        else:
            pieces.append(token)
    if in_word:
        words.append("".join(pieces))
    return words


def _escaped_end(token: str) -> bool:
    """The last quote of ``token`` is escaped (an odd run of backslashes before it)."""
    run = len(token) - 1 - len(token[:-1].rstrip("\\"))
    return run % 2 == 1


def _double_quoted(body: str, pieces: list[str]) -> None:
    """Append a double-quoted string's body to ``pieces``, with bash's escapes (``\\`` before
    ``\\ " $ ``` is dropped, before a newline both go; before anything else it stays)."""
    if "\\" not in body:
        pieces.append(body)
        return
    chunks = body.split("\\")
    pieces.append(chunks[0])
    i = 1
    while i < len(chunks):
        chunk = chunks[i]
        if chunk == "" and i + 1 < len(chunks):  # `\\\\`: one backslash, literally
            pieces.append("\\")
            pieces.append(chunks[i + 1])
            i += 2
            continue
        if chunk[:1] == "\n":  # a line continuation, removed
            pieces.append(chunk[1:])
        elif chunk[:1] and chunk[0] in '"$`':
            pieces.append(chunk)
        else:
            pieces.append("\\" + chunk)
        i += 1


def skip_options(argv: list[str], with_value: Collection[str], operands: int) -> list[str]:
    """``argv`` after its leading options (``with_value`` ones take the next word; ``--`` ends
    them) and then ``operands`` more words: where the command a wrapper runs begins."""
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
    if name == "sbatch":  # `sbatch --wrap 'CMD'`: a batch script of that one line
        for i, word in enumerate(argv[1:], 1):
            if word.startswith("--wrap="):
                return word.split("=", 1)[1]
            if word == "--wrap":
                return argv[i + 1] if i + 1 < len(argv) else None
        return None
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
    words = _words(source)
    if words and os.path.basename(words[0]) in ("echo", "printf", "cat"):
        escapes = words[0] == "printf"
        words = words[1:]
        while words and words[0] in ("-e", "-n", "-E", "-ne", "-en", "--"):
            escapes = escapes or "e" in words[0]
            words = words[1:]  # echo's own options, not the script's
        text = " ".join(words)
        # printf and `echo -e` print `\n` as a line break: one command per line, as run
        return text.replace("\\n", "\n").replace("\\t", "\t") if escapes else text
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
    """Cut at ``; & && || | |& newline ( ) { }`` outside quotes (a ``#`` comment ends a line),
    each part with the bodies of the here-documents it opens. An ``&`` of a redirection
    (``2>&1``, ``>&2``, ``<&3``, ``&>log``, ``&>>log``) cuts nothing; a here-document's body
    belongs to the part whose ``<<`` opened it, whatever follows on its line
    (``python - <<EOF | tail``, ``bash <<EOF && echo done``)."""
    parts: list[tuple[str, list[str]]] = []
    current: list[str] = []
    # here-document delimiters opened on this line: (delimiter, tabs stripped, the index its
    # part will have in `parts`)
    pending: list[tuple[str, bool, int]] = []
    i, n = 0, len(script)

    def close() -> None:
        parts.append(("".join(current), []))
        current.clear()

    while i < n:
        ch = script[i]
        quoted = _QUOTED.match(script, i) if ch in "'\"$" else None
        if quoted is not None:  # a quoted string, whole: nothing inside it cuts
            current.append(quoted.group())
            i = quoted.end()
            continue
        if ch == "$" and script.startswith("$(", i):
            # a command substitution stays inside its word (`$(which x) destroy ...`): its
            # own commands are parsed from its body (`_substitutions`)
            end = _substitution_end(script, i + 2)
            current.append(script[i:end])
            i = end
            continue
        elif ch == "\\" and i + 1 < n:
            current.append(script[i:i + 2])
            i += 1
        elif ch == "<" and script.startswith("<<", i) and not script.startswith("<<<", i):
            m = _HEREDOC.match(script, i)
            if m is None:
                current.append(ch)
            else:
                pending.append((m.group(3), m.group(1) == "-", len(parts)))
                current.append(" ")
                i = m.end()
                continue
        elif ch == "#" and (not current or current[-1].endswith((" ", "\t"))):
            while i < n and script[i] != "\n":
                i += 1
            continue
        elif ch == "\n" and pending:
            # the here-documents' bodies follow this line, in order: each is the standard
            # input of the part that opened it
            close()
            i += 1
            for delimiter, tabs, owner in pending:
                lines: list[str] = []
                while i < n:
                    end = script.find("\n", i)
                    end = n if end < 0 else end
                    line = script[i:end]
                    i = end + 1
                    if (line.lstrip("\t") if tabs else line).rstrip("\r") == delimiter:
                        break
                    lines.append(line)
                parts[min(owner, len(parts) - 1)][1].append("\n".join(lines))
            pending = []
            continue
        elif ch == "&" and (script.startswith("&>", i) or (
                current and current[-1].endswith((">", "<")))):
            current.append("&")  # a redirection (`2>&1`, `&>log`), not a separator
        elif ch in ";&|\n()":
            close()
        else:
            m = _SPLIT_PLAIN.match(script, i)
            if m is None:
                current.append(ch)
            else:  # a run of ordinary characters in one step
                current.append(m.group())
                i = m.end()
                continue
        i += 1
    close()
    return [(p.strip(), b) for p, b in parts if p.strip() or b]


def _substitution_end(script: str, i: int) -> int:
    """Where the ``$(`` whose body starts at ``i`` ends (after its ``)``; the end of the
    script when unbalanced); parentheses inside quotes do not count."""
    return _substitution_span(script, i)[0]


def _substitution_span(script: str, i: int) -> tuple[int, bool]:
    """(`_substitution_end`, whether its ``)`` was found)."""
    depth, n, quote = 1, len(script), ""
    while i < n:
        ch = script[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1, True
        i += 1
    return n, False


def _substitutions(script: str) -> list[str]:
    """The bodies of the outermost ``$(...)`` (ended as `_split` ends them: parentheses inside
    quotes do not count) and backtick substitutions (the nested ones are found when a body
    is parsed: each character is scanned once per level)."""
    found: list[str] = []
    i = 0
    while True:
        i = script.find("$(", i)
        if i < 0:
            break
        end, closed = _substitution_span(script, i + 2)
        found.append(script[i + 2:end - 1] if closed else script[i + 2:])
        i = end  # past this one: its inner substitutions are its own body's
    found += re.findall(r"`([^`]*)`", script)
    return found
