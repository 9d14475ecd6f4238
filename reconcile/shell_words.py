"""Shell command lines cut into the simple commands they run, for the agent tool hook.

The hook (`hook`) must see ``vastai destroy instance 222`` in every form an agent may write it:
quoted words (``vastai 'destroy' instance``, ``$'destroy'``), line continuations, wrappers
(``sudo -u root``, ``env``, ``nice``, ``timeout 5``, ``xargs``, ``flock f``, ``mpirun -np 4``,
``numactl``, ``xvfb-run``), chains (``;``,
``&&``, ``||``, ``|``, ``&``, newlines), groups and subshells, ``bash -c '...'``, ``eval``,
command substitutions, scripts fed to a shell (here-documents, here-strings, ``echo ... |
bash``, ``source <(...)``), the remote command of ``ssh host ...`` (also a script piped or
here-doc'd into ssh), a program an interpreter reads from stdin (``python - <<EOF``), the
command a runner runs (``uv run``, ``docker exec``, ``find -exec``, ``labledger run --``,
``srun``, ``strace``, ``sbatch --wrap``, ``watch``, ``flock f -c``), what a terminal session
runs or is typed (``tmux new -d 'CMD'``, ``tmux send-keys 'CMD' Enter``, ``screen -dm CMD``,
``screen -X stuff``), and what text tools run: GNU sed's ``e`` command
and ``s///e`` flag, awk's ``system()`` and pipes, git's ``-c`` values and aliases (from its
config files, the files its command-line config includes, its ``-c`` options, a ``git config
alias.NAME VALUE`` anywhere in the line). The
program files some of
these read when they run (``sed -f``, ``awk -f``, git's config files and their includes) are
read here, in Python, from the payload's working folder (`_Files`: regular files only, with a
size budget; never for a command run through ssh), git's ``[includeIf]`` conditions evaluated
as git evaluates them (`_GitPlace`). A program file that cannot be read here (missing now, a
FIFO, on the box) runs something unknown: the whole line stands for it, as one command that
cannot be read (`TOO_DEEP`, dynamic; the hook judges its text). The text of a local script
``python FILE`` or ``python -m pkg.mod`` runs (or a launcher: ``torchrun FILE``, ``accelerate
launch FILE``, ``deepspeed FILE``, ``uv run FILE``, ``./FILE.py``) is read the same way
(`_python_script`, at most
`_SCRIPT_BYTES`), as its `SimpleCommand.program`, for what it deletes and writes only (not what
it runs, nor its imports; nor a file holding a NUL byte: a zip app, a binary); one not read
is judged by its words, as before. A local shell script a command runs (``bash FILE``,
``sh FILE``, ``bash < FILE``, ``source FILE``, ``. FILE``, ``sbatch FILE``, ``./FILE``: its
``#!`` naming Python reads it as ``python FILE``'s) is read the same way and parsed as a script
nested in the line, as if typed (`_run_shell_file`): its positional parameters bound to its
words where nothing in it rebinds them, its commands named by their line
(`SimpleCommand.origin`), a script already being read not read again. `simple_commands`
returns each as a
`SimpleCommand`: its words with quotes removed and wrappers dropped, and its *context* (the
text that names which instance it acts on: for a command run through ssh, the ssh line with
its host), the line's pipeline it runs in (`Pipeline`) and, for a command of a nested script
(``bash -c``'s, ssh's remote command, a substitution), that script's pipeline it runs in
(`Script`, innermost first): the hook reads what may feed a computed delete from them.

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

import functools
import os
import re
import shlex
import socket
import stat
import string
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Pipeline", "Script", "SimpleCommand", "simple_commands", "line_pipelines",
           "normalize_line", "skip_options", "git_alias_definition", "git_config_includes",
           "script_arguments", "script_file",
           "MAX_DEPTH", "TOO_DEEP"]

MAX_DEPTH = 12
TOO_DEEP = "<too-deep>"  # the command word of a script nested beyond MAX_DEPTH
_MAX_COMMANDS = 5000
_MAX_READERS = 16  # commands of one line judged as reading the others' output
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "busybox"}
_AT = {"at", "batch"}  # run a job read from stdin (or `-f FILE`) later, here
_KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "(", ")",
             "time", "fi", "done", "esac"}
# the first words that open and close a compound command (one pipeline, however many `;`)
_BLOCK_OPENS = {"{", "if", "while", "until", "for", "case", "select"}
_BLOCK_CLOSES = {"}", "fi", "done", "esac"}
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
    # GNU xargs: -i[R], -e[E], -l[N] take their value attached only
    "xargs": {"-I", "-n", "-P", "-d", "-a", "-E", "-L", "-s", "--max-args",
              "--max-procs", "--delimiter", "--arg-file"},
    # GNU parallel(1): the options taking a value
    "parallel": {"-j", "-S", "-P", "-a", "-C", "-n", "-N", "-I", "-d", "-E", "-s", "-J",
                 "--jobs", "--sshlogin", "--joblog", "--results", "--res", "--arg-file",
                 "--colsep", "--max-args", "--delay", "--timeout", "--halt", "--retries",
                 "--memfree", "--load", "--workdir", "--wd", "--tmpdir", "--sshloginfile",
                 "--slf", "--basefile", "--bf", "--return", "--transferfile", "--tf", "--env",
                 "--tagstring", "--delimiter", "--eof", "--termseq", "--rpl", "--max-chars",
                 "--block", "--profile", "--limit", "--nice", "--ssh", "--header",
                 "--semaphorename", "--id", "--compress-program", "--decompress-program"},
    # procps watch(1): -d/--differences[=permanent] takes no separate value; its words are
    # run with `sh -c` (`_unwrap`)
    "watch": {"-n", "--interval", "-q", "--equexit"},
    "caffeinate": set(), "chronic": set(), "unbuffer": set(),
    "chrt": set(), "taskset": set(), "flock": {"-w", "-E", "--timeout", "--conflict-exit-code"},
    # numactl(8): the policies and cpus it binds to
    "numactl": {"-i", "-p", "-m", "-N", "-C", "-P", "-w", "--interleave", "--preferred",
                "--membind", "--cpunodebind", "--physcpubind", "--preferred-many",
                "--weighted-interleave"},
    # GNU time(1) (`/usr/bin/time -v`; bash's keyword `time -p` too)
    "time": {"-f", "-o", "--format", "--output"},
    "cpulimit": {"-l", "-p", "-e", "-c", "--limit", "--pid", "--exe", "--cpu"},
    "runuser": {"-u", "-g", "-G", "-s", "-w", "--user", "--group", "--supp-group", "--shell",
                "--whitelist-environment"},
    "systemd-run": {"-p", "-u", "-E", "-M", "-H", "--property", "--unit", "--setenv",
                    "--machine", "--host", "--description", "--slice", "--uid", "--gid",
                    "--nice", "--working-directory", "--service-type", "--on-active",
                    "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive",
                    "--on-calendar", "--timer-property", "--path-property",
                    "--socket-property"},
    "firejail": set(),  # its options are one word each (`--net=none`)
    # xvfb-run(1) (Debian): getopt "+ade:f:hn:lp:s:w:"
    "xvfb-run": {"-e", "-f", "-n", "-p", "-s", "-w", "--error-file", "--auth-file",
                 "--server-num", "--xauth-protocol", "--server-args", "--wait"},
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
# Horovod's `horovodrun [options] COMMAND` runs its command on every worker, here too
# (horovod/runner/launch.py parse_args: every other option is a flag)
_WRAPPERS["horovodrun"] = {
    "-np", "--num-proc", "-H", "--hosts", "-hostfile", "--hostfile", "-p", "--ssh-port",
    "-i", "--ssh-identity-file", "--host-discovery-script", "--min-np", "--min-num-proc",
    "--max-np", "--max-num-proc", "--slots-per-host", "--elastic-timeout", "--reset-limit",
    "--start-timeout", "--network-interface", "--network-interfaces", "--output-filename",
    "--config-file", "--binding-args", "--mpi-args", "--fusion-threshold-mb",
    "--cycle-time-ms", "--cache-capacity", "--autotune-log-file",
    "--autotune-warmup-samples", "--autotune-steps-per-sample",
    "--autotune-bayes-opt-max-samples", "--autotune-gaussian-process-noise",
    "--stall-check-warning-time-seconds", "--stall-check-shutdown-time-seconds",
    "--num-nccl-streams", "--thread-affinity", "--gloo-timeout-seconds", "--nics",
    "--timeline-filename", "--log-level"}
_OPERANDS = {"timeout": 1, "chrt": 1, "taskset": 1, "flock": 1}  # words before the command
# MPI launchers: `mpirun [options] <program> [<args>]` (Open MPI mpirun(1): mpirun, mpiexec,
# orterun, prterun are one program; MPICH/Hydra mpiexec): option -> the words of its value
# (an option not here takes none; `--opt=value` is one word)
# apptainer/singularity exec's options taking a value (`--nv`, `-e`, `-c`, `-w` are flags)
_APPTAINER_VALUE_OPTIONS = {"-B", "--bind", "--mount", "-H", "--home", "-W", "--workdir", "--env",
                            "--env-file", "-o", "--overlay", "--pwd", "-S", "--scratch",
                            "--security", "--network", "--network-args", "--hostname", "--app",
                            "--dns", "--fusemount", "--add-caps", "--drop-caps", "--cpus",
                            "--memory", "--apply-cgroups"}
_PY_SPY_VALUE_OPTIONS = {"-o", "--output", "-p", "--pid", "-r", "--rate", "-d", "--duration",
                         "-f", "--format"}
_NSYS_FLAGS = {"-h", "--help"}  # nsys profile: every other option takes a value
_MPI_LAUNCHERS = {"mpirun", "mpiexec", "orterun", "prterun", "mpiexec.hydra"}
_MPI_VALUES = {
    **dict.fromkeys(("-n", "-np", "--np", "-c", "-N", "-npernode", "--npernode", "-npersocket",
                     "--npersocket", "-H", "-host", "--host", "-hosts", "-hostfile",
                     "--hostfile", "-machinefile", "--machinefile", "-default-hostfile",
                     "--default-hostfile", "-f", "-x", "-wdir", "--wdir", "-wd", "--wd",
                     "-path", "--path", "-prefix", "--prefix", "-map-by", "--map-by",
                     "-bind-to", "--bind-to", "-rank-by", "--rank-by", "-output-filename",
                     "--output-filename", "--output", "-am", "--am", "-tune", "--tune", "-rf",
                     "--rankfile", "-preload-files", "--preload-files", "-app", "--app",
                     "-cpus-per-proc", "--cpus-per-proc", "-cpus-per-rank", "--cpus-per-rank",
                     "-report-uri", "--report-uri", "-timeout", "--timeout", "--personality",
                     "-ppn", "-configfile", "-launcher", "-bootstrap", "-iface", "-rmk",
                     "-genvlist", "-envlist", "-errfile-pattern", "-outfile-pattern"), 1),
    **dict.fromkeys(("-mca", "--mca", "-gmca", "--gmca", "--omca", "--pmca", "--prtemca",
                     "-genv", "-env"), 2),
}
_SSH_VALUE_OPTIONS = set("BbcDEeFIiJLlmOoPpQRSWw")
# ssh and the tools that run it with ssh's own options: autossh adds `-M port[:echo]` (its
# monitoring port; ssh's own -M is a flag) and passes every other option to ssh
_SSH_CLIENTS = {"ssh": _SSH_VALUE_OPTIONS, "mosh": _SSH_VALUE_OPTIONS,
                "autossh": _SSH_VALUE_OPTIONS | {"M"}}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DYNAMIC = re.compile(r"[$`]|<(?![<(])")
# A credential: a variable (or substitution) there says which account acts, never which
# instance it acts on, so it does not make a command dynamic (`curl -X DELETE -H
# "Authorization: Bearer $KEY" .../pods/abc123` names pod abc123). A variable anywhere else
# (the URL, the id) still does. Masked in the raw text of a command, before `_DYNAMIC` is
# searched again, and only when this hint is found (most commands never pay for it).
_CREDENTIAL_HINT = re.compile(r"(?i)authoriz|key|token|secret|passw|bearer|--user|\s-[ui]")
_VAR = r"(?:\$\{?\w+\}?|\$\([^()`]*\)|`[^`]*`)"  # $K, ${K}, $(cat f), `cat f`


def _qvar(n: int) -> str:
    """A variable alone in its word, quoted or not (the quote's group named apart: several
    alternatives of one regex hold one)."""
    return rf"""(?P<q{n}>\\?['"]?)""" + _VAR + rf"(?P=q{n})"


_CREDENTIALS = (  # compiled when first needed (`_credential_patterns`): most lines never do
    # a header: `-H "Authorization: Bearer $K"`, `X-API-Key: $K`, httpie's `Authorization:$K`
    r"(?i)\b(?:proxy-)?authorization\s*:\s*(?:(?:bearer|basic|token)\s+)?" + _VAR
    + r"|(?<![\w-])[\w-]*(?:api[-_]?key|token|secret)\s*:\s*" + _VAR
    # an option: `--api-key "$K"`, `--token=$T`
    + r"|--(?:api[-_]?key|apikey|api[-_]?token|token|access[-_]token|auth[-_]token"
    r"|password|oauth2-bearer)(?:=|\s+)" + _qvar(0)
    # a keyword in program text: `VastAI(api_key='$K')`, `runpod.api_key = "$K"`
    + r"|\b(?:api_key|apikey|api_token|token|password)\s*=\s*" + _qvar(1)
    # an assignment before the command: `RUNPOD_API_KEY=$(cat key) runpodctl ...` (the
    # look-ahead keeps it linear: one name, scanned once)
    + r"|(?:^|(?<=\s))(?=\w*(?:api_?key|token|secret|password))[a-z_]\w*=" + _qvar(2))
# after an HTTP client: its user and password (`curl -u "$LAMBDA_KEY:"`, `-u me:$PASS`);
# after ssh: its identity file (`ssh -i "$KEY" box ...`)
_HTTP_CLIENT = re.compile(r"(?:^|[\s;&|(/'\"])(?:curl|wget|xh|https?)\s")
# (each piece atomic and the runs possessive: a variable's name is also word characters, so a
# backtracking run tried every way to split "$AA$AA..." when the closing quote was missing,
# ten times longer for each "$AA"; the hook's timeout then let the command run)
_HTTP_USER = (r"""(?:^|(?<=\s))(?:-u\s*|--user[=\s]\s*)(\\?['"]?)"""
              r"(?>[\w.@%+-]|" + _VAR + r")++(?::(?>[\w.@%+-]|" + _VAR + r")*+)?\1")
_SSH_WORD = re.compile(r"(?:^|[\s;&|(/'\"])(?:auto)?ssh\s")
_SSH_IDENTITY = r"(?:^|(?<=\s))-i\s*" + _qvar(0)
_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z0-9_.\-]+)\2")
# runs of characters with no meaning to the scanners below (consumed in one step: speed)
_SPLIT_PLAIN = re.compile(r"[^'\"$\\<#;&|\n()]+")
# a quoted string (its closing quote may be missing): '...', "..." and $'...' with escapes
_QUOTED = re.compile(r"'[^']*'?|\"[^\"\\]*(?:\\.[^\"\\]*)*\"?|\$'[^'\\]*(?:\\.[^'\\]*)*'?", re.S)
# the tokens of a simple command's words: blanks, quoted strings, an escape, a comment start,
# the start of a command substitution (`$(`, a backtick: its body, blanks and all, is part of
# the word: bash(1) "Command Substitution"), a run of plain characters
_WORD_TOKEN = re.compile(r"[ \t\r\n]+|'[^']*'?|\"[^\"\\]*(?:\\.[^\"\\]*)*\"?|\\.?|#|\$\(|`|"
                         r"(?:[^ \t\r\n'\"\\#`$]|\$(?!\())+", re.S)
_WORD_SPECIAL = re.compile(r"['\"\\#`]|\$\(")
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


@dataclass(frozen=True)
class Pipeline:
    """One pipeline of the line's top level, with what is grouped into it (a subshell, a
    brace group, a loop or a conditional, a process substitution: a ``;`` inside those does
    not end it): ``index`` counts them in the line's order, ``text`` holds its parts (and the
    here-documents they read). Commands joined by ``;``, ``&&``, ``||``, ``&`` or a newline
    are in different pipelines: what one prints does not feed another."""

    index: int
    text: str


@dataclass(eq=False)
class Script:
    """A script run inside the line (``bash -c``'s, ssh's remote command, a substitution, a
    program's text): its text as `_parse` read it (quotes removed) and its own pipelines,
    numbered as `Pipeline` numbers the line's. Compared by identity: each is one place."""

    text: str
    pipelines: tuple[Pipeline, ...]


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
    # the top-level pipeline it runs in (one run inside another, `bash -c '...'`, has the
    # outer command's); None for a command of a top-level `$(...)` (its pipeline unknown)
    pipeline: Pipeline | None = None
    # the scripts it is nested in below the line, innermost first, each with the pipeline of
    # that script it runs in (`bash -c 'du -sh x; ls | xargs rm'`: the second one)
    scopes: list[tuple[Script, Pipeline]] = field(default_factory=list)
    # runs a program whose text cannot be read here (`runpodctl exec python FILE` with FILE
    # missing now): on a box, it may delete or stop anything there
    opaque: bool = False
    # the text of the Python program it runs (``python -c PROGRAM``, ``python - <<EOF``,
    # ``runpodctl exec python FILE``'s FILE, a local ``python FILE``'s: `_python_script`):
    # what it deletes and writes is read from it (`python_deletes`)
    program: str | None = None
    # a git command: why the config it gives git itself (`-c`, `--config-env`, GIT_CONFIG_*)
    # may define aliases that cannot be read here ("" when it cannot: `_git_aliases`), and
    # the files that config includes (absolute)
    git_unread: str = ""
    git_includes: list[str] = field(default_factory=list)
    # a command of a local shell script the line runs (`_run_shell_file`): (the script as
    # the line names it, the line of it the command is on; 0: not found), for messages
    origin: tuple[str, int] | None = None
    # the here-documents and here-strings it reads on its stdin, as written (`git apply
    # <<'EOF'`: the patch it applies)
    fed: list[str] = field(default_factory=list)
    # the files earlier commands of the line write a here-document to (``cat > FILE <<EOF``,
    # ``tee``: absolute path -> text), as they stand when it runs; None: none
    written: dict[str, str] | None = None

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


def simple_commands(command: str, cwd: str | None = None,
                    env: Mapping[str, str] | None = None) -> list[SimpleCommand]:
    """Every simple command ``command`` would run that can be read from its text, and from
    the program files its tools read when they run (``sed -f``, ``awk -f``, git's aliases),
    found from ``cwd`` (default: this process's working folder) with ``env`` (default: this
    process's environment: the agent's, which the command inherits). A line that defines git
    aliases (``git config alias.X VALUE``) is read again with them known to each of its git
    commands, those before the definition too: at most `_GIT_DEFINITION_PASSES` readings."""
    line = normalize_line(command)
    defined: dict[str, list[str]] = {}
    for _ in range(_GIT_DEFINITION_PASSES):
        out: list[SimpleCommand] = []
        files = _Files(_absolute(cwd), os.environ if env is None else env, line)
        files.git_defined = {name: list(values) for name, values in defined.items()}
        token = _FILES.set(files)
        try:
            _parse(line, None, False, False, out, 0)
        finally:
            _FILES.reset(token)
        if files.git_defined == defined:
            break
        # text order is not run order (a loop runs its body again, a function where it is
        # called, `&` both sides at once): an alias the line defines anywhere is defined
        # for each of its git commands, those written before the definition too
        defined = files.git_defined
    return out


def _absolute(cwd: str | None) -> str:
    try:
        return os.path.abspath(cwd) if cwd else os.getcwd()
    except OSError:  # the working folder was removed: nothing relative can be read
        return os.sep


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
    line = _Line([p for p, _, _ in parts])
    pipelines = _pipelines(parts)
    nested = Script(script, tuple(pipelines.values())) if depth else None
    for part, heredocs, group in parts:
        first = len(out)
        _simple(part, [*heredocs, *stdin], line, context, dynamic, remote, out, depth)
        # every command run from this part is in its pipeline: the line's own (depth 0), or
        # the nested script's (appended after those of scripts nested deeper: innermost first)
        for cmd in out[first:]:
            if nested is None:
                cmd.pipeline = pipelines[group]
            else:
                cmd.scopes.append((nested, pipelines[group]))


def line_pipelines(command: str) -> list[Pipeline]:
    """The top-level pipelines of ``command``, numbered as `simple_commands` numbers its
    commands' (those with no command in them too: ``D=capsules``)."""
    return list(_pipelines(_split(normalize_line(command))).values())


def _pipelines(parts: list[tuple[str, list[str], int]]) -> dict[int, Pipeline]:
    """The pipelines of `_split`'s parts, by their group number."""
    texts: dict[int, list[str]] = {}
    for part, heredocs, group in parts:
        texts.setdefault(group, []).extend([part, *heredocs])
    return {group: Pipeline(n, "\n".join(text)) for n, (group, text) in enumerate(texts.items())}


def _computed(part: str) -> bool:
    """Some word of ``part`` is computed when it runs (``$VAR``, ``$(...)``, backticks, ``<``
    input), credentials aside (`_CREDENTIALS`): those name an account, not what it acts on."""
    if not _DYNAMIC.search(part):
        return False
    if not _CREDENTIAL_HINT.search(part):
        return True
    credentials, http_user, ssh_identity = _credential_patterns()
    masked = credentials.sub("CREDENTIAL", part)
    for client, option in ((_HTTP_CLIENT, http_user), (_SSH_WORD, ssh_identity)):
        m = client.search(masked)
        if m is not None:  # only what follows the client is its option
            masked = masked[:m.end()] + option.sub("CREDENTIAL", masked[m.end():])
    return _DYNAMIC.search(masked) is not None


@functools.cache
def _credential_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    return re.compile(_CREDENTIALS), re.compile(_HTTP_USER), re.compile(_SSH_IDENTITY)


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
    dyn = dynamic or _computed(part)
    fed: list[str] = list(heredocs)  # what the command reads as its standard input
    words: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "<<<" and i + 1 < len(argv):
            fed.append(argv[i + 1])
            i += 2
            continue
        words.append(argv[i])  # an empty word too: `git -C '' clean` (git(1): no change)
        i += 1
    if words[:1] == ["function"] and len(words) >= 2:
        # bash's `function NAME [()] { BODY; }`: the body's first command follows the brace
        # (`NAME() { BODY; }` is cut at its parentheses already)
        words = words[2:]
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
    line_files = _FILES.get()
    aliases = line_files.aliases if line_files is not None else {}
    for word in words:  # `BASH_ALIASES[x]='rm -rf capsules'`: an alias definition
        m = _BASH_ALIAS.match(word)
        if m is None:
            break
        _define_alias(m.group(1), m.group(2), aliases, context, remote, out, depth)
    argv = _unwrap(words)
    if argv and argv[0] == "\0xargs":
        dyn, appended, argv = True, True, argv[1:]
    if not argv:
        return
    name = os.path.basename(argv[0])
    if argv[0] in aliases:
        # bash(1) ALIASES: the value runs with the words of the use after it; the name is
        # not expanded again inside its own value (`alias ls='ls -la'`)
        value = aliases.pop(argv[0])
        try:
            _parse(value + " " + shlex.join(argv[1:]), context, dyn, remote, out, depth + 1)
        finally:
            aliases[argv[0]] = value
        return
    # the files its program may come from are read here, on this machine: not for a command
    # run on another one (through ssh)
    files = None if remote else _FILES.get()
    # `source <(echo ...)`, `. <(curl ...)`: the current shell runs what the substitution
    # prints, as `bash <(...)` does
    sources_pipe = name in ("source", ".") and argv[1:2] == ["<"]
    reads_script = ((name in _SHELLS or name == "su") and _shell_script(argv, name) is None) \
        or sources_pipe
    # what the other parts of the line print into its stdin (`echo '...' | bash`), read only
    # for a command that runs its stdin: a shell, ssh, an interpreter
    piped: list[str] = []
    if _interpreter_reads_stdin(argv, name):  # its program is part of its words
        piped = piped_text()
        argv = [*argv, *fed, *piped]
    elif reads_script or name in _SSH_CLIENTS or name in _AT:
        piped = piped_text()
    program = _python_program(argv, name, len(argv) - len(fed) - len(piped))
    # (a local script's text is read for what it deletes and writes, and below for the command
    # lines it writes out)
    script = _python_script(argv, name, files) if program is None else None
    cells: list[str] = []  # the shell lines a notebook it executes runs (`!cmd`, `%%bash`)
    if program is None and files is not None and name in _NOTEBOOK_RUNNERS and (
            script is None or name == "ipython"):  # (`ipython NB.ipynb` runs its cells)
        script, cells = _notebook_run(argv, name, files) or (script, [])
    recorded = SimpleCommand(argv, here, dyn, remote, appended=appended,
                             program=program if script is None else script, fed=fed,
                             written=dict(files.written) if files and files.written else None)
    out.append(recorded)
    if program is not None:  # what it hands to a shell or starts runs too
        _python_runs(program, here if remote else context, dyn, remote, out, depth)
    for cell in cells:
        _parse(cell, context, dyn, remote, out, depth + 1)
    if script is not None and program is None:
        # what a local script (a notebook's cells) hands to a shell or starts, written out,
        # runs too (`os.system("rm -rf capsules/c2")`, `subprocess.run(["rm", "-rf", ...])`);
        # a computed command line of a script is not read (its strings are mostly prose)
        _python_runs(script, context, dyn, remote, out, depth, whole=False)
    elif script is None and files is not None:
        # a local shell script it runs (`bash job.sh`, `./job.sh`, `source job.sh`): its
        # text judged as if typed; a `#!` naming Python: read as `python FILE`'s
        _run_shell_file(argv, name, fed, recorded, files, context, appended, out, depth)
        if name in ("make", "gmake"):
            _run_makefile(argv, files, context, dyn, out, depth)
        elif name in ("npm", "yarn", "pnpm", "bun"):
            _run_package_script(argv, name, files, context, dyn, out, depth)
        elif name == "just":
            _run_justfile(argv, files, context, dyn, out, depth)
        elif name == "dvc":
            _run_dvc_stages(argv, files, context, dyn, out, depth)
        elif name in ("pdm", "hatch", "poe", "poethepoet"):
            _run_pyproject_script(argv, name, files, context, dyn, out, depth)
    if name in _SHELLS or name in ("eval", "su", "script", "sbatch") or sources_pipe:
        script = None if sources_pipe else _shell_script(argv, name)
        if script is not None:
            _parse(script, context, dyn, remote, out, depth + 1)
        elif reads_script:
            # a shell reading its script from stdin: a here-document, a here-string, or what
            # `echo`/`printf`/`cat` print into the pipe (`echo 'rm -rf x' | bash`)
            for source in fed + piped:
                _parse(source, context, True, remote, out, depth + 1)
    elif name in _SSH_CLIENTS:
        destination, command = _ssh_remote(argv, _SSH_CLIENTS[name])
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
    elif name in _AT and not any(a in ("-l", "-d", "-r", "-c", "-V") for a in argv[1:]):
        # the job at|batch runs here later: read from its stdin (`at now <<< 'CMD'`, `echo
        # CMD | at now`) or from `-f FILE`
        job = next((argv[k + 1] for k in range(1, len(argv) - 1) if argv[k] == "-f"), None)
        if job is None:
            for source in fed + piped:
                _parse(source, context, True, remote, out, depth + 1)
        elif files is not None and not _DYNAMIC.search(job):
            text = _script_text(os.path.join(files.bases[-1], _expanduser(job)), files)
            if text is not None:
                _parse(text, context, dyn, remote, out, depth + 1)
    elif name in ("tmux", "screen"):
        # what a session runs or has typed into it runs here too (`tmux new -d 'CMD'`,
        # `tmux send-keys 'CMD' Enter`, `screen -dm CMD`)
        for script in (_tmux_scripts(argv) if name == "tmux" else _screen_scripts(argv)):
            _parse(script, context, dyn, remote, out, depth + 1)
    elif name == "vastai" and len(argv) >= 4 and argv[1] == "execute":
        _parse(" ".join(argv[3:]), here, dyn, True, out, depth + 1)
    elif name == "runpodctl" and _runpod_exec_python(argv) is not None:
        _runpod_exec(_runpod_exec_python(argv) or [], here, dyn, files, out, depth)
    elif name == "alias":
        # `alias nuke='vastai destroy instance'`: the value runs wherever the name is used,
        # with that use's words appended (as xargs appends its input)
        for definition in argv[1:]:
            alias, eq, value = definition.partition("=")
            if eq and not definition.startswith("-"):
                _define_alias(alias, value, aliases, context, remote, out, depth)
    else:
        if name in ("cd", "pushd") and files is not None and not dyn:
            files.enter(argv[1:])
        stdin: list[list[str]] = []

        def read_stdin() -> list[str]:  # what it reads on stdin, asked for once
            if not stdin:
                stdin.append([*fed, *piped_text()])
            return stdin[0]

        for inner, computed in _runner_commands(argv, name, files):
            _command(inner, fed, piped_text, here, context, dyn or computed, remote, out,
                     depth + 1, appended)
        unread: list[str] = []  # program files it runs that cannot be read here
        for script, computed in _program_texts(argv, name, files, read_stdin, unread):
            _parse(script, context, dyn or computed, remote, out, depth + 1)
        if unread:
            # What it runs is unknown: the whole line (which may write that file) stands for
            # it, judged as a script too deep to read (`TOO_DEEP`, dynamic)
            line_files = _FILES.get()
            whole = line_files.line if line_files is not None and line_files.line else here
            out.append(SimpleCommand([TOO_DEEP, whole, "; ".join(unread)], context or whole,
                                     True, remote))
        if name == "git" and files is not None:
            defined = git_alias_definition(argv)
            if defined is not None:
                values = files.git_defined.setdefault(defined[0].lower(), [])
                if defined[1] not in values:
                    values.append(defined[1])
            for expanded in _git_aliases(argv, files, _assigned(words, argv), recorded):
                if isinstance(expanded, str):  # `!CMD`: a shell runs it
                    _parse(expanded, context, dyn, remote, out, depth + 1)
                else:  # git runs these words as its own (what they name is in them)
                    _command(expanded, fed, piped_text, shlex.join(expanded), context, dyn,
                             remote, out, depth + 1, appended)
    if files is not None:
        while files.partial:  # a program file too large to read whole
            text = files.partial.pop()
            out.append(SimpleCommand([TOO_DEEP, text], context or text, True, remote))


_BASH_ALIAS = re.compile(r"^BASH_ALIASES\[([^\]]*)\]=(.*)$", re.S)


def _define_alias(name: str, value: str, aliases: dict[str, str], context: str | None,
                  remote: bool, out: list[SimpleCommand], depth: int) -> None:
    """``alias NAME=VALUE``: the value is judged now as a command line whose words are
    computed, with words appended (as xargs appends: the use's words are not known here),
    and remembered for the line's later uses of NAME (`_command` expands them). One a shell
    script file defines (a sourced ``~/.bashrc``'s ``alias rm='rm -i'``) is judged as its
    words stand: a dotfile's aliases are many, and a line that mentions a capsule would make
    each such value with unknown words appended a delete of it; the line's uses of NAME
    are still judged with their words."""
    files = _FILES.get()
    in_file = files is not None and bool(files.running)
    first = len(out)
    _parse(value, context, not in_file, remote, out, depth + 1)
    for found in out[first:]:
        found.appended = not in_file
    if not remote:
        aliases[name] = value


def _python_program(argv: list[str], name: str, own: int) -> str | None:
    """The program text of a Python run with ``-c PROGRAM`` or reading it from stdin (the
    words past ``own``: what `_command` appended; after ``-``, its own words are the
    program's arguments); None for any other command."""
    if not name.startswith(("python", "pypy")) or not _INTERPRETER.match(name):
        return None
    value_next = False  # python(1): -W ARG, -X OPT take a value (attached or next)
    for i, word in enumerate(argv[1:own], 1):
        if value_next:
            value_next = False
            continue
        if word == "-":
            break
        if word.startswith("-") and not word.startswith("--") and word[-1] in "WX":
            value_next = True
            continue
        if word == "-c" or (word.startswith("-") and not word.startswith("--")
                            and word.endswith("c") and "W" not in word and "X" not in word):
            return argv[i + 1] if i + 1 < own else None
        if not word.startswith("-"):
            return None
    return "\n".join(argv[own:]) if own < len(argv) else None


_SCRIPT_BYTES = 1 << 18  # a local script read for what it deletes and writes; past this, unread


# what executes a Jupyter notebook's code cells: `jupyter nbconvert --execute`, `jupyter
# execute`, papermill, `ipython NB.ipynb`
_NOTEBOOK_RUNNERS = {"jupyter", "jupyter-nbconvert", "jupyter-execute", "papermill", "ipython"}
_NOTEBOOK_BYTES = 16 << 20  # a notebook read for its code cells (outputs and all) at most
# cell magics whose body is a shell script, and those whose body is Python still
_SHELL_CELLS = {"bash", "sh", "script", "system"}
_PYTHON_CELLS = {"time", "timeit", "capture", "prun", "debug", "px"}


def _notebook_run(argv: list[str], name: str, files: _Files) -> tuple[str, list[str]] | None:
    """(its Python, its shell lines) of the notebook a command executes (`_NOTEBOOK_RUNNERS`;
    ``jupyter nbconvert`` only with ``--execute``), from its code cells (`_notebook_cells`);
    None when it executes none, or the notebook cannot be read here (missing, computed, not a
    regular file, over `_NOTEBOOK_BYTES`, not a notebook): judged by its words, as before."""
    args = argv[1:]
    if name == "jupyter":
        if args[:1] not in (["nbconvert"], ["execute"]):
            return None
        name, args = f"jupyter-{args[0]}", args[1:]
    if name == "jupyter-nbconvert" and "--execute" not in args:
        return None
    notebooks = [a for a in args if a.endswith(".ipynb") and not a.startswith("-")]
    injected = ""
    if name == "papermill":
        notebooks = notebooks[:1]  # (the second is the output it writes)
        injected = _papermill_parameters(args, files)
    elif name == "ipython":
        notebooks = notebooks[:1] if args and args[0].endswith(".ipynb") else []
    python: list[str] = []
    shells: list[str] = []
    for notebook in notebooks:
        if _DYNAMIC.search(notebook):
            return None
        path = os.path.normpath(os.path.join(files.bases[-1], _expanduser(notebook)))
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > _NOTEBOOK_BYTES:
                return None
            with open(path, encoding="utf-8", errors="replace") as f:
                cells = _notebook_cells(f.read(), injected)
        except (OSError, ValueError):
            return None
        if cells is None:
            return None
        python.append(cells[0])
        shells += cells[1]
    return ("\n".join(python), shells) if notebooks else None


# papermill's options giving a parameter (NAME VALUE), YAML, or a YAML file (papermill 2.6
# --help: -p/--parameters, -r/--parameters_raw, -y/--parameters_yaml, -f/--parameters_file)
_PAPERMILL_PAIRS = {"-p", "--parameters", "-r", "--parameters_raw"}
_PAPERMILL_YAML = {"-y": False, "--parameters_yaml": False, "-f": True, "--parameters_file": True}


def _papermill_parameters(args: list[str], files: _Files) -> str:
    """The cell papermill injects for the parameters ``args`` give (``-p out_dir
    capsules/c2`` as ``out_dir = 'capsules/c2'``; ``-y``'s YAML, ``-f``'s file's), as Python:
    run after the notebook's cell tagged ``parameters`` (`_notebook_cells`), it rebinds what
    that cell bound. A ``-p`` value is put in as the string it is (the paths matter here), a
    YAML one as parsed (a list or a mapping: not put in); YAML that does not parse, or a file
    that cannot be read, gives nothing."""
    names: dict[str, object] = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word in _PAPERMILL_PAIRS and i + 2 < len(args):
            names[args[i + 1]] = args[i + 2]
            i += 3
            continue
        if word in _PAPERMILL_YAML and i + 1 < len(args):
            names.update(_papermill_yaml(args[i + 1], _PAPERMILL_YAML[word], files))
            i += 2
            continue
        i += 1
    return "".join(f"{name} = {value!r}\n" for name, value in names.items()
                   if name.isidentifier() and isinstance(value, str | int | float | bool))


def _papermill_yaml(value: str, is_file: bool, files: _Files) -> dict[str, object]:
    """The parameters a ``-y`` YAML text, or a ``-f`` YAML file (relative to the latest
    working folder, read as a local script is: `_script_text`), gives; none when it cannot
    be read."""
    if is_file:
        text = None if _DYNAMIC.search(value) else _script_text(
            os.path.join(files.bases[-1], _expanduser(value)), files)
        if text is None:
            return {}
        value = text
    try:
        import yaml  # type: ignore[import-untyped]

        data = yaml.safe_load(value)
    except Exception:  # unreadable, or not YAML: nothing read
        return {}
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else {}


def _notebook_cells(text: str, injected: str = "") -> tuple[str, list[str]] | None:
    """(the Python of a notebook's code cells, its shell lines): a line ``!CMD`` (or ``X =
    !CMD``, ``%sx CMD``, ``%system CMD``) and a ``%%bash``/``%%sh``/``%%script bash`` cell are
    shell; ``%%writefile [-a] PATH`` writes PATH; ``%cd PATH`` changes the folder; other
    magics do nothing read here (``%%time``'s body is Python). A cell that is no Python this
    Python parses is left out (executing stops at it). ``injected``: papermill's parameters
    cell, after the cell tagged ``parameters`` (before the first code cell when none is), as
    papermill puts it. None: not a notebook."""
    import json

    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return None
    python: list[str] = []
    shells: list[str] = []
    mark: int | None = None  # where papermill's injected cell goes in ``python``
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        code = _cell_code(cell, shells)
        if code is not None:
            python.append(code)
        metadata = cell.get("metadata")
        tags = metadata.get("tags") if isinstance(metadata, dict) else None
        if injected and mark is None and isinstance(tags, list) and "parameters" in tags:
            mark = len(python)
    if injected:
        python.insert(mark if mark is not None else 0, injected)
    return "\n".join(python), shells


def _cell_code(cell: dict[str, Any], shells: list[str]) -> str | None:
    """The Python of one code cell (see `_notebook_cells`), its shell lines added to
    ``shells``; None for a cell of another language or one this Python does not parse."""
    import ast

    source = cell.get("source")
    source = "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) \
        else source if isinstance(source, str) else ""
    lines = source.split("\n")
    head = lines[0].strip().split() if lines else []
    if head and head[0].startswith("%%"):
        magic = head[0][2:]
        if magic in _SHELL_CELLS and (magic != "script" or head[1:2] in (["bash"], ["sh"])):
            shells.append("\n".join(lines[1:]))
            return None
        if magic == "writefile" and len(head) > 1:
            mode = "a" if "-a" in head[1:-1] or "--append" in head[1:-1] else "w"
            return f"open({head[-1]!r}, {mode!r})"
        if magic not in _PYTHON_CELLS:
            return None  # another language's cell (%%html, %%javascript, ...)
        lines = lines[1:]
    code: list[str] = []
    for line in lines:
        stripped = line.lstrip()
        indent = line[:len(line) - len(stripped)]
        shell = re.match(r"(?:[\w.]+\s*=\s*)?!(.*)|%(?:sx|system)\s+(.*)", stripped)
        if shell is not None:
            shells.append(shell.group(1) if shell.group(1) is not None else shell.group(2))
            code.append(indent + "pass")
        elif stripped.startswith("%cd "):
            code.append(indent + f"__import__('os').chdir({stripped[4:].strip()!r})")
        elif stripped.startswith("%"):
            code.append(indent + "pass")
        else:
            code.append(line)
    text_of_cell = "\n".join(code)
    try:
        ast.parse(text_of_cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return text_of_cell


def _script_operand(argv: list[str], name: str) -> tuple[bool, str] | None:
    """(whether it is a module, the word) of the script a Python run starts (`_python_script`)."""
    if name.startswith(("python", "pypy")) and _INTERPRETER.match(name):
        found = _python_operand(argv)
        if found is not None and found[0] and found[1] in _LAUNCHER_MODULES and \
                found[1] in argv:  # python -m torch.distributed.run [OPTIONS] FILE
            found = _launched_operand([_LAUNCHER_MODULES[found[1]],
                                       *argv[argv.index(found[1]) + 1:]])
        return found
    if name.endswith(".py"):
        return False, argv[0]
    return _launched_operand(argv)


def script_arguments(argv: list[str]) -> list[str] | None:
    """The words the script a Python run starts is given (its ``sys.argv[1:]``): those
    after its file or module word; None when it starts none (`_script_operand`)."""
    name = os.path.basename(argv[0]) if argv else ""
    found = _script_operand(argv, name)
    if found is None:
        return None
    word = found[1]
    for k in range(len(argv) - 1, -1, -1):  # (the operand; an option's equal value before it)
        if argv[k] in (word, "-m" + word):
            after = argv[k + 1:]
            return after if argv.count(argv[k]) == 1 else None
    return None


def script_file(argv: list[str], base: str) -> str | None:
    """The path of the local script a Python run starts (`_script_path`) from the folder
    ``base``, where it is a file now; None otherwise."""
    path = _script_path(argv, os.path.basename(argv[0]) if argv else "", base)
    return path if path is not None and os.path.isfile(path) else None


def _script_path(argv: list[str], name: str, base: str) -> str | None:
    """Where the script a Python run starts is (`_script_operand`), from the folder ``base``:
    ``FILE`` (a folder: its ``__main__.py``), ``-m pkg.mod`` as ``pkg/mod.py`` or
    ``pkg/mod/__main__.py``, the first there now; None when it runs none, or none is there."""
    found = _script_operand(argv, name)
    if found is None or _DYNAMIC.search(found[1]):
        return None
    is_module, word = found
    if is_module:
        if not re.fullmatch(r"\w+(\.\w+)*", word):
            return None
        stem = word.replace(".", "/")
        candidates = [stem + ".py", stem + "/__main__.py"]
    else:
        candidates = [_expanduser(word)]
    for candidate in candidates:
        path = os.path.normpath(os.path.join(base, candidate))
        try:
            if stat.S_ISDIR(os.stat(path).st_mode) and not is_module:  # python DIR
                path = os.path.join(path, "__main__.py")
                os.stat(path)
        except (OSError, ValueError):
            continue
        return path
    return None


def _python_script(argv: list[str], name: str, files: _Files | None) -> str | None:
    """The text of the local script a Python run starts: ``python FILE`` (after Python's own
    options: `_python_reads_stdin`; a folder: its ``__main__.py``), ``python -m pkg.mod`` as
    ``pkg/mod.py`` or ``pkg/mod/__main__.py``, from the line's latest working folder (Python's
    ``sys.path[0]`` for ``-m``), not the modules it imports; the script a launcher runs so
    (`_launched_operand`: ``torchrun``, ``accelerate launch``, ``deepspeed``, ``coverage run``,
    ``memray run``, ``kernprof``, ``ipython``); a ``.py`` file
    run as a command (``./train.py`` by its ``#!``, ``uv run train.py``). None when it runs
    none, or when it cannot be read here (missing now, computed, not a regular file, over
    `_SCRIPT_BYTES`): judged by its words alone, as before."""
    if files is None:
        return None
    path = _script_path(argv, name, files.bases[-1])
    try:
        info = os.stat(path) if path is not None else None
    except (OSError, ValueError):
        return None
    if path is None or info is None or not stat.S_ISREG(info.st_mode) or \
            info.st_size > _SCRIPT_BYTES:
        return None
    text = files.read(path)
    # a NUL byte: no source Python runs (it refuses one), a zip app or a binary; its bytes
    # read as text would feed its "deletes" words of anything
    return None if text is None or "\x00" in text else text


# --- local shell scripts: read as if typed ----------------------------------------------------
# bash(1)/dash(1)/zsh(1): the options that take the next word (`-o pipefail`, `+O extglob`,
# `--rcfile FILE`); `-c` runs its argument (`_shell_script`), `-s` reads stdin: no file then
_SHELL_VALUE_OPTIONS = {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}
# sbatch(1) (Slurm 23.x): the options that take no value (every other takes one, after `=` or
# as the next word; `--exclusive[=...]`, `--get-user-env[=...]`, `--no-kill[=off]`,
# `--kill-on-invalid-dep=...` take theirs after `=` only)
_SBATCH_FLAGS = {"-h", "-H", "-k", "-O", "-Q", "-s", "-v", "-V", "-W", "--help", "--hold",
                 "--parsable", "--wait", "--test-only", "--exclusive", "--requeue",
                 "--no-requeue", "--quiet", "--verbose", "--overcommit", "--oversubscribe",
                 "--contiguous", "--ignore-pbs", "--no-kill", "--spread-job", "--use-min-nodes",
                 "--usage", "--version", "--get-user-env", "--reboot", "--nice"}
# where a command run by its path is a system program, not the agent's script
_SYSTEM_FOLDERS = ("/usr/", "/bin/", "/sbin/", "/lib", "/etc/", "/opt/", "/snap/", "/nix/",
                   "/proc/", "/sys/", "/dev/")
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(\S+))?")
# what makes a script's own positional parameters other than the words it was run with: a
# function (its `$1` is its own), `shift`, `set -- ...`/`set WORD`, `getopts`
_REBINDS = re.compile(r"(?m)\bshift\b|\bgetopts\b|\bset[ \t]+(?:--|[^-+\s])|"
                      r"^[ \t]*(?:function[ \t]+[\w.:-]+|[\w.:-]+[ \t]*\([ \t]*\))")
_POSITIONAL = re.compile(r"\$(?:([0-9@*#])|\{([0-9]+|[@*#])\})")
_LINE_WINDOW = 200  # lines looked through for where a command of a script stands


def _run_shell_file(argv: list[str], name: str, fed: list[str], recorded: SimpleCommand,
                    files: _Files, context: str | None, appended: bool,
                    out: list[SimpleCommand], depth: int) -> None:
    """The local shell script ``argv`` runs (`_shell_file`), parsed as a script nested in the
    line, as if typed (its commands named by its line, `SimpleCommand.origin`): its positional
    parameters bound to the words it runs with when nothing in it rebinds them (`_bind`; a
    computed word stays computed), else computed (what may feed them: the line that runs it;
    so too the words xargs appends); its text is literal whatever its words (``rm -rf build``
    of a ``bash job.sh "$CFG"`` is not computed); its ``cd`` moves the line's
    later commands too when it is sourced. A script already being read (one that runs itself)
    is not read again; past `MAX_DEPTH` scripts the innermost stands whole (`TOO_DEEP`). One
    with a ``#!`` naming Python is read as ``python FILE``'s program. ``cat``/``tee`` writing
    a here-document to a file: its text is that script's for the line (`_Files.written`)."""
    if name in ("cat", "tee") and fed:
        _note_written_script(argv, name, fed[0], files)
        return
    found = _shell_file(argv, name)
    if found is None or _DYNAMIC.search(found[0]):
        return
    word, args = found
    args = None if appended else args
    path = os.path.normpath(os.path.join(files.bases[-1], _expanduser(word)))
    if "\0" in path:  # no file's name holds one (the lookup would raise)
        return
    real = os.path.realpath(path)
    if real in files.running:
        return  # its commands are being judged already (under this name or a link's)
    text = files.written.get(path)
    if text is None:
        text = _script_text(path, files)
    if text is None:
        return
    if name not in _SHELLS and name not in ("source", "."):  # run by its `#!`, as Slurm does
        if _python_shebang(text):
            recorded.program = text
            return
        if text.startswith("#!") and not _shell_shebang(text):
            return  # perl, node, ...: not read
    bases = len(files.bases)
    first = len(out)
    files.running.append(real)
    try:
        _parse(_bind(text, word, args), context, False, False, out, depth + 1)
    finally:
        files.running.pop()
    if name not in ("source", "."):  # a child shell: its `cd` ends with it
        del files.bases[bases:]
    _mark_lines(out[first:], text, word)


def _run_makefile(argv: list[str], files: _Files, context: str | None, dyn: bool,
                  out: list[SimpleCommand], depth: int) -> None:
    """The recipe lines ``make ARGS`` runs (`makefiles`: the targets asked for, else the
    default goal, and what they depend on), each parsed as a line typed in the folder make
    runs in (``-C``: entered first, a ``cd`` of the line) and named by its makefile line
    (``line 4 of Makefile``). A makefile is read up to `_FILE_CHARS` (past that, on what was
    read, as `_Files.read` does); none there: make fails, nothing runs; ``-n``, ``-q``,
    ``-t``: only the lines make runs even so (``+``, ``$(MAKE)``). A variable make exports
    (``export NAME = VALUE``, the command line's ``NAME=VALUE``) that a line reads as
    ``$NAME`` is exported first, as make does. The ``$(shell CMD)`` of a ``:=`` or ``!=``
    value runs as make reads the makefile: judged whatever the target, under -n too."""
    from labledger.reconcile.makefiles import make_run, recipes

    run = make_run(argv[1:])
    if _DYNAMIC.search(run.folder) or any(
            _DYNAMIC.search(f) for f in run.files):
        return
    folder = os.path.normpath(os.path.join(files.bases[-1], _expanduser(run.folder)))

    def read(path: str) -> str | None:  # (up to the line's file budget, not a script's)
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except (OSError, ValueError):
            return None
        text = files.read(path, again=True) if regular else None
        return None if text is None or "\x00" in text else text

    found = recipes(run, read, folder, files.env)
    if found is None:
        return
    name, recipe_lines, environment, read_shells = found
    lines = [*read_shells, *recipe_lines]  # the `$(shell)` of `X := …` runs first, as read
    if run.folder != ".":
        _command(["cd", run.folder], [], list, "cd " + run.folder, context, dyn, False, out,
                 depth + 1)
    for recipe in lines:
        first = len(out)
        # the variables make exports that the line reads from its environment ($$NAME):
        # exported in its own shell first
        exports = "".join(f"export {variable}={shlex.quote(value)}; "
                          for variable, value in environment.items()
                          if re.search(r"\$\{?" + variable + r"\b", recipe.text))
        _parse(exports + recipe.text, context, dyn, False, out, depth + 1)
        for cmd in out[first:]:
            if cmd.origin is None:
                cmd.origin = (recipe.file if recipe.file != name else name, recipe.line)


def _run_package_script(argv: list[str], name: str, files: _Files, context: str | None,
                        dyn: bool, out: list[SimpleCommand], depth: int) -> None:
    """The ``package.json`` scripts ``npm run NAME`` (yarn, pnpm, bun) runs
    (`package_scripts`), and those ``npm install`` runs of the package's own lifecycle, each
    parsed as a line typed in the package's folder (entered first, a ``cd`` of the line) and
    named by its script (``in `package.json` script `clean```); ``-w NAME``/``--workspaces``:
    the scripts of those workspaces, each in its folder."""
    from labledger.reconcile.package_scripts import (
        install_run,
        package_folder,
        package_run,
        script_lines,
        workspace_folders,
        workspace_root,
    )

    run = package_run(name, argv[1:]) or install_run(name, argv[1:])
    if run is None or _DYNAMIC.search(run.folder) or _DYNAMIC.search(run.name):
        return
    start = os.path.join(files.bases[-1], _expanduser(run.folder))
    root = workspace_root(start) if run.workspace_root else \
        package_folder(start) if not run.folder else os.path.normpath(start)
    if root is None:
        return
    text = _script_text(os.path.join(root, "package.json"), files)
    if text is None:
        return
    folders = [root]
    if run.workspaces or run.every:
        if any(_DYNAMIC.search(w) for w in run.workspaces):
            return
        folders = ([root] if run.install else []) + workspace_folders(root, text, run)
    for folder in folders:
        if folder != root:
            text = _script_text(os.path.join(folder, "package.json"), files) or ""
        lines = script_lines(text, run)
        if not lines:
            continue
        if folder != os.path.normpath(files.bases[-1]):
            _command(["cd", folder], [], list, "cd " + shlex.quote(folder), context, dyn,
                     False, out, depth + 1)
        for script, line in lines:
            first = len(out)
            _parse(line, context, dyn, False, out, depth + 1)
            for cmd in out[first:]:
                if cmd.origin is None:
                    cmd.origin = (f"package.json` script `{script}", 0)  # (quoted by hook)


def _run_pyproject_script(argv: list[str], name: str, files: _Files, context: str | None,
                          dyn: bool, out: list[SimpleCommand], depth: int) -> None:
    """The ``pyproject.toml`` scripts ``pdm run NAME``, ``hatch run NAME`` and ``poe NAME``
    run (`pyproject_scripts`), each line parsed as typed in the project's folder (the nearest
    one up holding a ``pyproject.toml``; entered first, a ``cd`` of the line) and named by its
    script."""
    from labledger.reconcile.pyproject_scripts import pyproject_lines

    here = files.bases[-1]
    folder = here
    while not os.path.isfile(os.path.join(folder, "pyproject.toml")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent
    text = _script_text(os.path.join(folder, "pyproject.toml"), files)
    lines = pyproject_lines(name, argv[1:], text) if text is not None else None
    if not lines:
        return
    if folder != here:
        _command(["cd", folder], [], list, "cd " + shlex.quote(folder), context, dyn, False,
                 out, depth + 1)
    for script, line in lines:
        if len(out) >= _MAX_COMMANDS:
            return
        first = len(out)
        _parse(line, context, dyn, False, out, depth + 1)
        for cmd in out[first:]:
            if cmd.origin is None:
                cmd.origin = (f"pyproject.toml` script `{script}", 0)  # (quoted by hook)


def _run_dvc_stages(argv: list[str], files: _Files, context: str | None, dyn: bool,
                    out: list[SimpleCommand], depth: int) -> None:
    """What ``dvc repro``/``dvc exp run`` does (`dvc_stages`): each stage's outputs removed
    (as ``rm -rf OUTPUT``), then its commands, each typed in the stage's folder (entered
    first, a ``cd`` of the line) and named by its stage; from the ``dvc.yaml`` of the folder
    it runs in, or those its targets name (``sub/dvc.yaml``, ``sub/dvc.yaml:train``)."""
    from labledger.reconcile.dvc_stages import dvc_run, stage_lines

    run = dvc_run(argv[1:])
    if run is None or any(_DYNAMIC.search(t) for t in run.targets):
        return
    here = files.bases[-1]
    wanted: dict[str, list[str] | None] = {}  # a dvc.yaml -> the stages named (None: all)
    for target in run.targets or ("",):
        if target.endswith((".yaml", ".yml")):
            file, stage = target, ""
        elif ":" in target:
            file, _, stage = target.rpartition(":")
        else:
            file, stage = "", target
        path = os.path.normpath(os.path.join(here, _expanduser(file or "dvc.yaml")))
        named = wanted.get(path, [])
        wanted[path] = None if not stage or named is None else [*named, stage]
    for path, stages in wanted.items():
        text = _script_text(path, files)
        if text is None:
            continue
        folder = os.path.dirname(path)
        for line in stage_lines(text, stages or []):
            if len(out) >= _MAX_COMMANDS:
                return
            where = os.path.normpath(os.path.join(folder, line.folder))
            if where != files.bases[-1]:
                _command(["cd", where], [], list, "cd " + shlex.quote(where), context, dyn,
                         False, out, depth + 1)
            first = len(out)
            _parse(line.text if line.kind == "cmd" else "rm -rf -- " + shlex.quote(line.text),
                   context, dyn, False, out, depth + 1)
            for cmd in out[first:]:
                if cmd.origin is None:
                    cmd.origin = (f"dvc.yaml` stage `{line.stage}", 0)  # (quoted by hook)


def _run_justfile(argv: list[str], files: _Files, context: str | None, dyn: bool,
                  out: list[SimpleCommand], depth: int) -> None:
    """The lines ``just [RECIPE [ARGS]]`` runs (`justfiles`: the recipe, else the first,
    and its dependencies), each parsed as a line typed in the justfile's folder (entered
    first, a ``cd`` of the line) and named by its justfile line; a shebang recipe's body as
    one script (Python's as ``python3 -c``'s program, another language's as ``INTERP -e``'s:
    searched for delete calls). No justfile, or
    no such recipe: just refuses, nothing runs; ``--dry-run``, ``--list``...: nothing runs."""
    from labledger.reconcile.justfiles import find_justfile, just_lines, just_run

    run = just_run(argv[1:])
    if not run.runs or any(_DYNAMIC.search(w) for w in (run.file or "", run.folder or "")):
        return
    here = files.bases[-1]
    path = os.path.normpath(os.path.join(here, _expanduser(run.file))) if run.file \
        else find_justfile(here)
    if path is None:
        return
    lines = just_lines(run, lambda p: _script_text(p, files), path, here, files.env)
    for line in lines or []:
        if len(out) >= _MAX_COMMANDS:
            return
        if line.folder != files.bases[-1]:
            _command(["cd", line.folder], [], list, "cd " + shlex.quote(line.folder), context,
                     dyn, False, out, depth + 1)
        first = len(out)
        if line.interpreter is not None:  # a Python (or perl, node...) recipe: its program
            flag = "-c" if line.interpreter.startswith("python") else "-e"
            _parse(shlex.join([line.interpreter, flag, line.text]), context, dyn, False, out,
                   depth + 1)
        else:
            _parse(line.text, context, dyn, False, out, depth + 1)
        for cmd in out[first:]:
            if cmd.origin is None:
                cmd.origin = (os.path.basename(line.file), line.line)


def _shell_file(argv: list[str], name: str) -> tuple[str, list[str] | None] | None:
    """(the script, the words it runs with; None: its caller's, unknown) of ``bash [OPTIONS]
    FILE ARGS``, ``bash [-s ARGS] < FILE``, ``busybox sh FILE``, ``sbatch [OPTIONS] FILE
    ARGS``, ``source FILE [ARGS]``, ``./FILE ARGS`` (these two outside the system's folders);
    None for any other command. Redirections are not its words (`_redirections_apart`)."""
    if name == "busybox":
        return _shell_file(argv[1:], argv[1]) if argv[1:2] and argv[1] in _SHELLS else None
    argv, stdin = _redirections_apart(argv)
    if name in ("source", "."):
        # (not an environment's setup the system holds: `. /etc/os-release`, `source
        # /opt/ros/humble/setup.bash`: no script of the agent's)
        if len(argv) < 2 or _system_file(argv[1]):
            return None
        return argv[1], argv[2:] or None
    if name == "sbatch":
        i = 1
        while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
            word = argv[i]
            if word == "--wrap" or word.startswith("--wrap="):
                return None
            i += 1 if "=" in word or word in _SBATCH_FLAGS or (
                not word.startswith("--") and len(word) > 2) else 2
        return (argv[i], argv[i + 1:]) if i < len(argv) else None
    if name in _SHELLS:
        i, reads_stdin = 1, False
        while i < len(argv) and argv[i][:1] in ("-", "+") and argv[i] not in ("-", "+"):
            word = argv[i]
            if word == "--":
                i += 1
                break
            short = word.startswith("-") and not word.startswith("--")
            if word == "--command" or (not word.startswith("--") and "c" in word) or (
                    short and "n" in word):
                return None  # -c: `_shell_script`; -n: it runs nothing
            reads_stdin = reads_stdin or (short and "s" in word)
            i += 2 if word in _SHELL_VALUE_OPTIONS else 1
        if reads_stdin or i >= len(argv):  # its script is its stdin: `bash < job.sh`
            return (stdin, argv[i:]) if stdin is not None else None
        return argv[i], argv[i + 1:]
    word = argv[0]
    if "/" not in word or _DYNAMIC.search(word) or _system_file(word):
        return None
    return word, argv[1:]


def _system_file(word: str) -> bool:
    """``word`` names a file in one of the system's folders (`_SYSTEM_FOLDERS`)."""
    return not _DYNAMIC.search(word) and \
        os.path.abspath(_expanduser(word)).startswith(_SYSTEM_FOLDERS)


_REDIRECTION = re.compile(r"^([0-9]*|&)(>>|>\||>&|<>|<&|>|<)(.*)$", re.S)


def _redirections_apart(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without its redirections (``> log``, ``2>&1``, ``&>/dev/null``, ``< in``)
    and the file its stdin reads (``< FILE``), if any."""
    words: list[str] = []
    stdin: str | None = None
    i = 0
    while i < len(argv):
        m = _REDIRECTION.match(argv[i]) if i else None
        if m is None or argv[i].startswith(("<<", "<(")):
            words.append(argv[i])
            i += 1
            continue
        target = m.group(3)
        if not target and i + 1 < len(argv):
            target = argv[i + 1]
            i += 1
        if m.group(2) == "<" and m.group(1) in ("", "0"):
            stdin = target
        i += 1
    return words, stdin


def _script_text(path: str, files: _Files) -> str | None:
    """The text of a local script (a regular file of at most `_SCRIPT_BYTES`, no NUL byte);
    None when it cannot be read here (each use counts against the line's budget)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > _SCRIPT_BYTES:
        return None
    text = files.read(path, again=True)
    return None if text is None or "\x00" in text else text


def _interpreter_of(text: str) -> str:
    """The program a ``#!`` line names (``/usr/bin/env python3`` -> ``python3``); ""."""
    m = _SHEBANG.match(text)
    if m is None:
        return ""
    program = os.path.basename(m.group(1))
    if program == "env" and m.group(2):
        program = m.group(2)
    return program


def _python_shebang(text: str) -> bool:
    return bool(re.match(r"(python|pypy)[0-9.]*$", _interpreter_of(text)))


def _shell_shebang(text: str) -> bool:
    return _interpreter_of(text) in _SHELLS


def _note_written_script(argv: list[str], name: str, body: str, files: _Files) -> None:
    """``cat > FILE <<EOF``, ``tee FILE <<EOF``: FILE holds the here-document once it has
    run, whatever it holds now: a later ``bash FILE`` of the line runs that text."""
    targets: list[str] = []
    for i, word in enumerate(argv[1:], 1):
        if word in (">", ">|") and i + 1 < len(argv):
            targets.append(argv[i + 1])
        elif word.startswith(">") and not word.startswith(">>") and len(word) > 1 and \
                word[1:] != "|":
            targets.append(word[1:].lstrip("|"))
        elif name == "tee" and not word.startswith((">", "-")) and argv[i - 1] not in (">", ">|"):
            targets.append(word)
    for target in targets:
        if target and not _DYNAMIC.search(target):
            files.written[os.path.normpath(os.path.join(
                files.bases[-1], _expanduser(target)))] = body


def _bind(text: str, word: str, args: list[str] | None) -> str:
    """``text`` with its positional parameters (``$1``, ``${2}``, ``"$@"``, ``$*``, ``$#``,
    ``$0``) replaced by the words the script runs with, quoted as they stand (in double
    quotes, bare; single-quoted text is left alone); unchanged when those words are unknown
    (a ``source`` without words) or something in the script rebinds its parameters
    (`_REBINDS`): then they stay computed. ``${1:-x}`` and other forms stay computed."""
    if args is None or "$" not in text or _REBINDS.search(text):
        return text
    pieces: list[str] = []
    i, n, quoted = 0, len(text), False
    while i < n:
        ch = text[i]
        if ch == "'" and not quoted:
            end = text.find("'", i + 1)
            end = n if end < 0 else end + 1
            pieces.append(text[i:end])
            i = end
            continue
        if ch == "\\":
            pieces.append(text[i:i + 2])
            i += 2
            continue
        if ch == "#" and not quoted and (i == 0 or text[i - 1] in " \t\n;&|("):
            end = text.find("\n", i)
            end = n if end < 0 else end
            pieces.append(text[i:end])
            i = end
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == "$":
            m = _POSITIONAL.match(text, i)
            if m is not None:
                pieces.append(_positional(m.group(1) or m.group(2), word, args, quoted))
                i = m.end()
                continue
        pieces.append(ch)
        i += 1
    return "".join(pieces)


def _positional(which: str, word: str, args: list[str], quoted: bool) -> str:
    def one(value: str) -> str:
        if _DYNAMIC.search(value):  # computed when it runs (`bash job.sh "$RUN"`): still so
            return value
        return re.sub(r'([\\"$`])', r"\\\1", value) if quoted else shlex.quote(value)

    if which == "#":
        return str(len(args))
    if which in "@*":
        return ('" "' if quoted else " ").join(one(a) for a in args)
    k = int(which)
    return one(word if k == 0 else (args[k - 1] if k <= len(args) else ""))


def _mark_lines(commands: list[SimpleCommand], text: str, word: str) -> None:
    """Name the line of ``text`` (the script ``word``) each of its ``commands`` stands on (in
    the text's order: each looked for from the last one's line, at most `_LINE_WINDOW` lines
    on; 0 when not found); those of a script it runs keep theirs."""
    lines = text.split("\n")
    at = 0
    for cmd in commands:
        if cmd.origin is not None:
            continue
        found = 0
        if cmd.argv and cmd.argv[0] != TOO_DEEP:
            head, second = cmd.argv[0], cmd.argv[1] if len(cmd.argv) > 1 else ""
            for k in range(at, min(len(lines), at + _LINE_WINDOW)):
                if head in lines[k] and (len(second) > 200 or second in lines[k]):
                    found = k + 1
                    at = k
                    break
        cmd.origin = (word, found)


# launchers that run a Python script as `python FILE` does (`-m`/`--module`: a module, as
# `python -m`): the options of each that take no value, hyphens and underscores alike (every
# other takes one, after `=` or as the next word) (torch 2.x torch/distributed/run.py
# get_args_parser, launch.py's --use-env; deepspeed launcher/runner.py parse_args; accelerate
# commands/launch.py launch_command_parser; Python 3.11 library reference: `python -m cProfile
# [-o output_file] [-s sort_order] (-m module | myscript.py)`, the same for profile, `python -m
# pdb [-c command] (-m module | pyfile)`)
_LAUNCHER_FLAGS = {
    "torchrun": {"standalone", "module", "no_python", "run_path", "use_env", "help"},
    "deepspeed": {"module", "no_python", "no_local_rank", "no_ssh", "no_ssh_check",
                  "force_multi", "save_pid", "elastic_training", "bind_cores_to_rank", "help"},
    "accelerate": {"quiet", "cpu", "multi_gpu", "tpu", "ipex", "enable_cpu_affinity",
                   "dynamo_use_fullgraph", "dynamo_use_dynamic", "use_deepspeed", "use_fsdp",
                   "use_megatron_lm", "use_xpu", "same_network", "module", "no_python",
                   "tpu_cluster", "no_tpu_cluster", "tpu_use_sudo", "downcast_bf16",
                   "fp8_use_autocast_during_eval", "debug", "help"},
    "cProfile": {"module", "help"}, "pdb": {"module", "help"},
    # coverage.py 7 `coverage run`, memray `memray run`, line_profiler's kernprof
    "coverage": {"append", "branch", "pylib", "parallel_mode", "timid", "module", "help"},
    "memray": {"force", "live", "live_remote", "native", "follow_fork",
               "trace_python_allocators", "aggregate", "quiet", "module", "help"},
    "kernprof": {"line_by_line", "builtin", "prof_imports", "view", "rich", "skip_zero",
                 "output_interval", "quiet", "version", "module", "help"},
    "ipython": set(),  # every option one word (`--no-banner`, `--TerminalApp.x=1`, `-i`)
    # Lightning 2 `fabric run SCRIPT` (--accelerator, --devices, ... take a value; Lightning
    # 2.0's `lightning run model SCRIPT` is the same command); MosaicML's `composer [-n N]
    # SCRIPT` (LLM Foundry's launcher; -c runs a command, not Python)
    "fabric": {"help"}, "lightning": {"help"},
    "composer": {"verbose", "module", "help"},
}
# a launcher's subcommand that runs the script (`accelerate launch`, `coverage run`)
_LAUNCHER_SUBCOMMANDS = {"accelerate": ("launch",), "coverage": ("run",), "memray": ("run",),
                         "fabric": ("run",), "lightning": ("run", "model")}
# short options that take no value, by launcher (those of torchrun, deepspeed, accelerate,
# cProfile and pdb: `_LAUNCHER_SHORT_FLAGS[""]`); `-c` of memray and ipython runs code
_LAUNCHER_SHORT_FLAGS = {
    "": {"-m": "module", "-q": "quiet", "-h": "help"},
    "coverage": {"-a": "append", "-L": "pylib", "-p": "parallel_mode", "-m": "module",
                 "-h": "help"},
    "memray": {"-f": "force", "-q": "quiet", "-m": "module", "-c": "code", "-h": "help"},
    "kernprof": {"-l": "line_by_line", "-b": "builtin", "-v": "view", "-r": "rich",
                 "-z": "skip_zero", "-i": "output_interval", "-q": "quiet", "-V": "version",
                 "-m": "module", "-h": "help"},
    "ipython": {"-m": "module", "-c": "code", "-h": "help"},
    "composer": {"-v": "verbose", "-m": "module", "--module_mode": "module", "-c": "no_python",
                 "--command_mode": "no_python", "-h": "help"},
}
# the modules run as `python -m MODULE [OPTIONS] FILE` that run FILE: the launcher they are
_LAUNCHER_MODULES = {"torch.distributed.run": "torchrun", "torch.distributed.launch": "torchrun",
                     "cProfile": "cProfile", "profile": "cProfile", "pdb": "pdb",
                     "coverage": "coverage", "memray": "memray", "kernprof": "kernprof"}


def _launched_operand(argv: list[str]) -> tuple[bool, str] | None:
    """(whether it is a module, the word) of the script a launcher runs with Python:
    ``torchrun [OPTIONS] FILE|-m MODULE``, ``accelerate launch ...``, ``deepspeed ...``
    (`_LAUNCHER_FLAGS`; ``cProfile``, ``pdb``: what `_LAUNCHER_MODULES` runs); None for
    another command, for one that runs no script (``--help``) or runs it without Python
    (``--no-python``: a shell script, a binary)."""
    name = os.path.basename(argv[0]) if argv else ""
    if name not in _LAUNCHER_FLAGS:
        return None
    if name in _LAUNCHER_SUBCOMMANDS:
        words = _LAUNCHER_SUBCOMMANDS[name]
        if tuple(argv[1:1 + len(words)]) != words:
            return None
        args = argv[1 + len(words):]
    else:
        args = argv[1:]
    flags = _LAUNCHER_FLAGS[name]
    short = _LAUNCHER_SHORT_FLAGS.get(name, _LAUNCHER_SHORT_FLAGS[""])
    module = False
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            i += 1
            break
        option, eq, _ = args[i].partition("=")
        key = short.get(option) or option.lstrip("-").replace("-", "_")
        if key in ("help", "no_python", "code", "version"):
            return None
        module = module or key == "module"
        # a flag, a value after `=` or attached to a short option (`-r3`): one word
        i += 1 if eq or key in flags or name == "ipython" or (
            not option.startswith("--") and len(option) > 2) else 2
    return (module, args[i]) if i < len(args) else None


def _python_operand(argv: list[str]) -> tuple[bool, str] | None:
    """(whether it is a module, the word) of ``python [OPTIONS] FILE|-m MODULE``; None for
    ``-c``, ``-`` and no operand (python(1): ``-W``/``-X`` take a value, the other letters
    are flags, bundled or not; ``-m``'s value attached or next)."""
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "-" or word == "--":
            return None if word == "-" else ((False, argv[i + 1]) if i + 1 < len(argv)
                                             else None)
        if not word.startswith("-"):
            return False, word
        if word.startswith("--"):
            i += 2 if word == "--check-hash-based-pycs" else 1
            continue
        step = 1
        for k, ch in enumerate(word[1:], 1):
            if ch == "c":
                return None
            if ch == "m":
                rest = word[k + 1:]
                if rest:
                    return True, rest
                return (True, argv[i + 1]) if i + 1 < len(argv) else None
            if ch in "WX":
                step = 1 if k < len(word) - 1 else 2
                break
        i += step
    return None


def _python_runs(program: str, context: str | None, dyn: bool, remote: bool,
                 out: list[SimpleCommand], depth: int, whole: bool = True) -> None:
    """The command lines a Python program hands to a shell or starts (`python_runs`), parsed
    as commands of their own; a program too deep to read stands whole (`TOO_DEEP`). Not
    ``whole`` (a local script's): only the lines it writes out."""
    from labledger.reconcile.python_runs import python_commands

    runs = python_commands(program, literal_only=not whole)
    if runs is None:
        if whole:
            out.append(SimpleCommand([TOO_DEEP, program], context or program, True, remote))
        return
    for line, computed in runs:
        _parse(line, context, dyn or computed, remote, out, depth + 1)


_RUNPOD_EXEC_VALUES = {"--pod_id", "--pod-id"}  # runpodctl exec python's string flag


def _runpod_exec_python(argv: list[str]) -> list[str] | None:
    """The words after ``runpodctl exec python`` (its flags from before ``python`` put in
    front: cobra reads flags wherever they stand, ``runpodctl exec --pod_id ID python
    FILE``); None for any other runpodctl command."""
    if argv[1:2] != ["exec"]:
        return None
    flags: list[str] = []
    i = 2
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        flags.append(argv[i])
        if argv[i] in _RUNPOD_EXEC_VALUES and i + 1 < len(argv):
            flags.append(argv[i + 1])
            i += 1
        i += 1
    return [*flags, *argv[i + 1:]] if argv[i:i + 1] == ["python"] else None


def _runpod_exec(args: list[str], here: str, dyn: bool, files: _Files | None,
                 out: list[SimpleCommand], depth: int) -> None:
    """``runpodctl exec python [--pod_id ID] FILE``: runpodctl copies the local FILE to the pod
    and runs it there with ``python3.11`` (runpod/runpodctl cmd/exec/functions.go,
    PythonOverSSH): a program run on the box, judged as ``python FILE`` with its text (as
    ``python -c``'s) through ssh, the runpodctl line naming the pod, and each command line
    the program hands to the pod's shell or starts (`python_runs`: ``os.system``,
    ``subprocess``) as a command run there. A FILE that cannot be read here (missing now,
    computed, a FIFO) runs something unknown there (`opaque`). ``-h``/``--help`` (not as
    ``--pod_id``'s value, not after ``--``) prints cobra's help: nothing runs."""
    operands: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in _RUNPOD_EXEC_VALUES:
            i += 2
            continue
        if word == "--":
            operands += args[i + 1:]
            break
        if word in ("-h", "--help"):
            return
        if not word.startswith("-"):
            operands.append(word)
        i += 1
    if not operands:
        return
    text = None if files is None or _computed(operands[0]) else files.read(operands[0])
    if text is None:
        out.append(SimpleCommand(["python3.11", operands[0]], here, dyn, True, opaque=True))
        return
    out.append(SimpleCommand(["python3.11", operands[0], text], here, dyn, True, program=text))
    _python_runs(text, here, dyn, True, out, depth)


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


def _runner_commands(argv: list[str], name: str, files: _Files | None = None
                     ) -> list[tuple[list[str], bool]]:
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
        compose = None if j is None or name != "docker-compose" else args[:j]
        if j is not None and args[j] in ("compose", "container"):
            k = _subcommand(args[j + 1:], {"exec", "run"}, _COMPOSE_GLOBAL_VALUES)
            compose = None if args[j] == "container" or k is None else args[j + 1:j + 1 + k]
            j = None if k is None else j + 1 + k
        if j is not None:  # the container (or image, or service) first
            found = _after_options(args[j + 1:], _CONTAINER_VALUE_OPTIONS, 1)
            # a compose service's volumes are in its compose file, for `exec` too (the
            # running container of a service has them); a plain `docker exec` container's
            # binds are not known here
            service: tuple[list[tuple[str, str]], str | None] = \
                ([], None) if compose is None else _compose_binds(compose, args[j + 1:], files)
            if args[j] == "run":
                entry = _entrypoint(args[j + 1:])
                if entry:  # it runs with the words after the image as its arguments
                    found = [([entry, *(found[0][0] if found else [])], False)]
                binds, workdir = _container_binds(args[j + 1:])
                return _in_host_paths(found, [*binds, *service[0]], workdir or service[1])
            return _in_host_paths(found, *service) if compose is not None else found
    if name == "kubectl":
        j = _subcommand(args, {"exec"}, _KUBECTL_VALUE_OPTIONS)
        if j is not None and "--" in args[j:]:
            return [(args[args.index("--", j) + 1:], False)]
    if name == "git":
        j = _subcommand(args, {"bisect"}, _GIT_GLOBAL_VALUES)
        if j is not None and args[j + 1:j + 2] == ["run"] and args[j + 2:]:
            return [(args[j + 2:], False)]
    if name in ("apptainer", "singularity"):  # exec [options] IMAGE CMD
        j = _subcommand(args, {"exec"}, set())
        if j is not None:
            return _in_host_paths(_after_options(args[j + 1:], _APPTAINER_VALUE_OPTIONS, 1),
                                  _apptainer_binds(args[j + 1:]), None)
    if name == "py-spy" and args[:1] in (["record"], ["top"]):  # [options] -- CMD
        return [(args[args.index("--") + 1:], False)] if "--" in args[1:] else \
            _after_options(args[1:], _PY_SPY_VALUE_OPTIONS, 0)
    if name == "nsys" and args[:1] in (["profile"], ["launch"]):
        return _after_options(args[1:], _NSYS_FLAGS, 0, all_take_values=True)
    if name == "find":
        return _find_exec_commands(args)
    if name in ("fd", "fdfind"):
        return _fd_exec_commands(args)
    if name == "labledger":
        return _labledger_command(args)
    return []


def _program_texts(argv: list[str], name: str, files: _Files | None,
                   stdin: Callable[[], list[str]], unread: list[str] | None = None
                   ) -> list[tuple[str, bool]]:
    """Shell text run by a tool whose arguments are otherwise data, each with whether it is
    computed when it runs: git's ``-c alias.x='!CMD'`` (every ``-c`` value is read: a pager,
    an editor, an ssh command may be one), ``submodule foreach CMD``, ``rebase -x CMD``,
    ``filter-branch --tree-filter CMD``, ``difftool -x CMD``; awk's strings and ``-v`` values
    when its program (inline, or its ``-f`` files) calls ``system()`` or pipes to or from a
    command; what GNU sed's ``e`` command and ``s///e`` flag run (its scripts inline, ``-e``,
    ``-f``, and the input lines a bare ``e`` runs); make's ``--eval``. ``files``: where program
    files are read (None: nowhere, the command runs on another machine); ``stdin``: what the
    command reads on its stdin (a program read from ``-f -``); ``unread``: where the program
    files (and input files run as commands) that cannot be read here are named."""
    args = argv[1:]
    unread = [] if unread is None else unread
    if name == "git":
        return _git_programs(args)
    if name in _AWKS:
        return _awk_programs(args, files, stdin, unread)
    if name in ("sed", "gsed"):
        return _sed_programs(args, files, stdin, unread)
    if name in _SHELLING_OUT and not name.startswith(("python", "pypy")):
        return _shell_out_strings(args, name)
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


# interpreters whose inline program may run shell commands (Python's is read whole:
# `python_deletes`), and the calls that run one: Perl's and Ruby's `system`/`exec`/backticks/
# `qx`, node's `child_process` (`execSync`, `spawnSync`...), PHP's `shell_exec`/`passthru`,
# R's `system`, Lua's `os.execute`/`io.popen`, Julia's `run(`...`)`
_SHELLING_OUT = {"node", "nodejs", "perl", "ruby", "php", "Rscript", "R", "lua", "julia", "bun",
                 "deno"}
_SHELL_OUT = re.compile(
    r"\b(?:system2?|exec(?:Sync|File|FileSync)?|spawn(?:Sync)?|popen|shell_exec|passthru"
    r"|proc_open|readpipe|run|execute|pipeline|capture[23]?\w*)\s*[(\"'`\[{]|\bqx\s*\W|%x\s*\W|`")
# Perl's `qx(...)`, `qx{...}`, `qx/.../` and Ruby's `%x(...)`: a command in other delimiters
_QUOTED_COMMAND = re.compile(r"(?:\bqx|%x)\s*(?:\(([^)]*)\)|\{([^}]*)\}|\[([^\]]*)\]|/([^/]*)/"
                             r"|\|([^|]*)\||!([^!]*)!)")
_PROGRAM_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|`((?:[^`\\]|\\.)*)`")


def _shell_out_strings(args: list[str], name: str) -> list[tuple[str, bool]]:
    """The string literals of the inline program (``-e``, ``-E``, ``--eval``, ``-p``, a perl
    bundle ending in ``e`` such as ``-ne``; php's ``-r``) of ``name`` when it runs a shell
    command (`_SHELL_OUT`): each may be, or be part of, the line it runs, and so may all of
    them joined (``spawnSync('rm', ['-rf', 'capsules'])``); computed when it runs, as awk's
    strings are."""
    program = None
    for i, word in enumerate(args):
        inline = word in ("-e", "-E", "--eval", "-p", "--print") or (
            name == "php" and word == "-r") or (
            name == "perl" and re.fullmatch(r"-[a-zA-Z]*[eE]", word) is not None)
        if inline and i + 1 < len(args):
            program = args[i + 1]
            break
        if word.startswith(("--eval=", "--print=")):
            program = word.split("=", 1)[1]
            break
        if not word.startswith("-"):
            break
    if program is None or not _SHELL_OUT.search(program):
        return []
    texts = [a or b or c for a, b, c in _PROGRAM_STRING.findall(program)]
    texts += [next(g for g in m.groups() if g is not None)
              for m in _QUOTED_COMMAND.finditer(program)]
    return [(text, True) for text in dict.fromkeys([*texts, " ".join(texts)]) if text.strip()]


def _git_programs(args: list[str]) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):  # git's global options
        word = args[i]
        if word == "-c" and i + 1 < len(args):
            value = args[i + 1].partition("=")[2]
            found.append((value[1:] if value.startswith("!") else value, False))
        elif word == "--config-env" or word.startswith("--config-env="):
            # `--config-env=alias.x=VAR`: the value is that variable's, in the environment
            # the command inherits
            spec = word.partition("=")[2] if "=" in word else (
                args[i + 1] if i + 1 < len(args) else "")
            variable = spec.rpartition("=")[2]
            value = os.environ.get(variable, "") if variable else ""
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


_AWKS = {"awk", "gawk", "mawk", "nawk"}
# gawk's long options (getopt_long takes any unique prefix: `--fi=prog.awk`), and those that
# take a value
_AWK_LONG = ("assign", "field-separator", "file", "source", "include", "exec", "load",
             "characters-as-bytes", "traditional", "copyright", "dump-variables", "debug",
             "gen-pot", "help", "lint", "lint-old", "bignum", "use-lc-numeric",
             "non-decimal-data", "optimize", "no-optimize", "pretty-print", "posix",
             "re-interval", "sandbox", "profile", "version", "csv", "persist", "trace")
_AWK_LONG_VALUES = {"assign": "v", "field-separator": "F", "file": "f", "source": "e",
                    "include": "i", "exec": "E", "load": "l"}
_AWK_INCLUDE = re.compile(r'^[ \t]*@include[ \t]+"([^"\n]+)"', re.M)
_AWK_INCLUDE_DEPTH = 8


def _awk_programs(args: list[str], files: _Files | None, stdin: Callable[[], list[str]],
                  unread: list[str]) -> list[tuple[str, bool]]:
    """The string literals (and ``-v`` values) of an awk program that runs commands: any of
    them may be, or be part of, the command line it runs (computed when it runs). The program
    is the first operand, or what ``-f``/``--file``/``-E``/``--exec`` files and
    ``-e``/``--source`` texts hold (``-i``/``--include`` files and ``@include`` lines add to
    it); files are read relative to the line's working folders."""
    parts: list[str] = []
    assigned: list[str] = []
    given = False  # the program comes from options: every operand is an input file
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            break
        option, value = "", None
        if word.startswith("--"):
            name, attached = _long_option(word, _AWK_LONG)
            option = _AWK_LONG_VALUES.get(name, "")
            value = attached
        elif word.startswith("-") and len(word) > 1:
            option, value = _bundled(word, "fEievFlW", "dDLop")  # -d[FILE]: optional, attached
        else:
            i -= 1  # the first operand
            break
        if not option:
            continue
        if value is None:
            value = args[i] if i < len(args) else ""
            i += 1
        if option in "fEi":
            texts = _program_file(value, files, stdin)
            if texts is None:
                unread.append(f"awk's program file {value!r}, which cannot be read here")
            parts += texts or []
            given = given or option != "i"
        elif option == "e":
            parts.append(value)
            given = True
        elif option == "v":
            assigned.append(value.partition("=")[2])
    if not given and i < len(args):
        parts.append(args[i])
    program = "\n".join(parts)
    if files is not None and "@include" in program:
        program = _awk_includes(program, files)
    if not _AWK_RUNS.search(program):
        return []
    strings = re.findall(r'"((?:[^"\\]|\\.)*)"', program)
    return [(text, True) for text in [*strings, *assigned] if text.strip()]


def _awk_includes(program: str, files: _Files) -> str:
    """``program`` with the files its ``@include "file"`` lines name (gawk: as named, or with
    ``.awk`` added), and theirs, to a bounded depth."""
    texts, seen, todo = [program], set(), [program]
    for _ in range(_AWK_INCLUDE_DEPTH):
        found: list[str] = []
        for text in todo:
            for name in _AWK_INCLUDE.findall(text):
                if name in seen:
                    continue
                seen.add(name)
                found += files.named(name) or files.named(name + ".awk")
        if not found:
            break
        texts += found
        todo = found
    return "\n".join(texts)


def _program_file(name: str, files: _Files | None, stdin: Callable[[], list[str]]
                  ) -> list[str] | None:
    """The program text in the file ``name`` (``-`` and ``/dev/stdin``: what the command reads
    on its stdin); None when it cannot be read here (missing now, computed when it runs, not
    a regular file, over the budget, or on another machine): the caller decides what an
    unknown program counts as."""
    if name in ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"):
        return stdin()
    texts = files.named(name) if files is not None else []
    return texts or None


def _bundled(word: str, with_value: str, ends: str) -> tuple[str, str | None]:
    """The option of a bundle of short flags (``-ne``, ``-fprog.awk``) that takes a value, and
    its attached value (None: it is the next word); ``("", None)`` when none does. A flag in
    ``ends`` takes the rest of the word as its own optional value, so the bundle stops there."""
    for k in range(1, len(word)):
        if word[k] in with_value:
            return word[k], word[k + 1:] or None
        if word[k] in ends:
            break
    return "", None


def _long_option(word: str, known: Collection[str]) -> tuple[str, str | None]:
    """(the long option ``word`` names, its ``=value`` or None): ``--fi=x`` is ``file`` when
    only one of ``known`` starts with ``fi`` (getopt_long takes any unique prefix)."""
    name, eq, value = word[2:].partition("=")
    if name not in known:
        matches = [k for k in known if k.startswith(name)] if name else []
        name = matches[0] if len(matches) == 1 else name
    return name, value if eq else None


# --- GNU sed: the `e` command and the `s///e` flag run shell commands ----------------------------
_SED_LONG = ("expression", "file", "in-place", "line-length", "null-data", "zero-terminated",
             "quiet", "silent", "regexp-extended", "separate", "sandbox", "unbuffered",
             "binary", "follow-symlinks", "posix", "debug", "help", "version", "regexp-perl")
_SED_PLAIN_COMMANDS = set("=dDgGhHnNpPxzF")
# a substitution whose regex matches the whole pattern space: what `e` runs is the
# replacement alone (else the rest of the line, read when it runs, is part of it)
_SED_WHOLE = {".*", "^.*$", "^.*", ".*$", "^\\(.*\\)$", "^(.*)$"}


def _sed_programs(args: list[str], files: _Files | None, stdin: Callable[[], list[str]],
                  unread: list[str]) -> list[tuple[str, bool]]:
    """What GNU sed runs through the shell: the command of each ``e command``, the replacement
    of each ``s/re/replacement/e`` (computed when the regex leaves part of the line, or the
    replacement names ``&`` or a group), and, for a bare ``e`` (which runs the input line
    itself), what it reads on stdin when the line feeds it (a pipe, a here-document). The
    script is the first operand, or the ``-e``/``--expression`` texts and ``-f``/``--file``
    files (read relative to the line's working folders; ``-f -``: stdin), joined by newlines
    as sed joins them. A bare ``e`` runs the lines of its input files too (``sed e cmds.txt``):
    each is read as a script. A script file (or, with a bare ``e``, an input file) that cannot
    be read here is named in ``unread``: what it runs is unknown. ``--sandbox`` refuses ``e``:
    then nothing runs."""
    pieces: list[str] = []
    operands: list[str] = []
    missing: list[str] = []  # script files that cannot be read here
    given = sandbox = False
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            operands += args[i:]
            break
        option, value = "", None
        if word.startswith("--"):
            name, value = _long_option(word, _SED_LONG)
            option = {"expression": "e", "file": "f", "line-length": "l"}.get(name, "")
            sandbox = sandbox or name == "sandbox"
        elif word.startswith("-") and len(word) > 1:
            option, value = _bundled(word, "efl", "i")  # -i[SUFFIX]: the rest is its suffix
        else:
            operands.append(word)  # GNU getopt: options may follow operands
            continue
        if not option:
            continue
        if value is None:
            value = args[i] if i < len(args) else ""
            i += 1
        if option == "e":
            pieces.append(value)
            given = True
        elif option == "f":
            texts = _program_file(value, files, stdin)
            if texts is None and not sandbox:
                missing.append(value)
            pieces += texts or []
            given = True
    if not given and operands:
        pieces.append(operands.pop(0))
    if sandbox:
        return []
    unread += [f"sed's script file {name!r}, which cannot be read here" for name in missing]
    if not pieces:
        return []
    found, runs_input = _sed_runs("\n".join(pieces))
    if runs_input:  # the input lines themselves: stdin, and each input file
        found += [(text, True) for text in stdin()]
        for name in operands:
            texts = _program_file(name, files, stdin) if name != "-" else []
            if texts is None:
                unread.append(f"sed's input file {name!r}, whose lines its `e` runs, which "
                              "cannot be read here")
            found += [(text, True) for text in texts or []]
    return found


def _sed_runs(script: str) -> tuple[list[tuple[str, bool]], bool]:
    """(the shell text a sed script runs, each with whether it is computed when it runs;
    whether a bare ``e`` runs the input lines themselves). A script this cannot read past
    some point (sed would refuse it, or it uses what this does not know) has the rest judged
    as a script (computed): more to judge, never less."""
    found: list[tuple[str, bool]] = []
    runs_input = False
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch in " \t\r\n;}":  # between commands, and the end of a block
            i = _skip(script, i, " \t\r\n;}")
            continue
        if ch == "#":
            i = _line_end(script, i)
            continue
        start = i
        i = _sed_address(script, i, first=True)
        j = _skip(script, i, " \t")
        if i >= 0 and j < n and script[j] == ",":
            i = _sed_address(script, _skip(script, j + 1, " \t"), first=False)
        if i < 0:
            found.append((script[start:], True))
            break
        i = _skip(script, i, " \t!")
        if i >= n:
            break  # an address without a command: sed refuses the script
        command = script[i]
        i += 1
        if command == "{" or command in _SED_PLAIN_COMMANDS:
            continue
        if command in "aic":
            i = _sed_text(script, i)[1]
        elif command == "e":
            text, i = _sed_text(script, i)
            if text.strip():
                found.append((text, False))
            if not text.strip() or text.lstrip()[0] in ";}":
                runs_input = True  # no command of its own: it runs the pattern space
        elif command in "rRwW":
            i = _line_end(script, i)
        elif command in ":btTv":
            i = _skip(script, i, " \t")
            while i < n and script[i] not in " \t\r\n;":
                i += 1
        elif command in "qQlL":
            i = _skip(script, _skip(script, i, " \t"), "0123456789")
        elif command in "sy" and i < n and script[i] not in "\n\\":
            delimiter = script[i]
            regex = _sed_part(script, i + 1, delimiter, True)
            other = _sed_part(script, regex[1], delimiter, False) if regex[1] >= 0 else ("", -1)
            if other[1] < 0:
                found.append((script[start:], True))
                break
            i = other[1]
            if command == "s":
                runs, i = _sed_flags(script, i)
                if runs:
                    found.append(_sed_replacement(regex[0], other[0], delimiter))
        else:
            found.append((script[start:], True))  # not a command sed knows (as read here)
            break
    return found, runs_input


def _skip(text: str, i: int, chars: str) -> int:
    """Past the run of ``chars`` at ``i`` (-1 stays -1)."""
    return i if i < 0 else _run_of(chars).match(text, i).end()  # type: ignore[union-attr]


@functools.cache
def _run_of(chars: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape(chars) + "]*")


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end + 1


def _sed_address(script: str, i: int, first: bool) -> int:
    """Past the address at ``i`` (none there: ``i``): a line number (``first~step``), ``$``,
    ``/regex/`` or ``\\cregexc`` with its ``I``/``M`` flags; a second one also ``+N``,
    ``~N``. -1: one that does not end."""
    n = len(script)
    if i >= n:
        return i
    ch = script[i]
    if ch.isdigit() or (not first and ch in "+~"):
        i = _skip(script, i + 1, "0123456789")
        if first and i < n and script[i] == "~":
            i = _skip(script, i + 1, "0123456789")
        return i
    if ch == "$":
        return i + 1
    if ch in "/\\":
        if ch == "\\":
            if i + 1 >= n or script[i + 1] in "\n\\":
                return -1
            i += 1
        end = _sed_part(script, i + 1, script[i], True)[1]
        return _skip(script, end, "IM")
    return i


def _sed_part(script: str, i: int, delimiter: str, regex: bool) -> tuple[str, int]:
    """(the text up to the unescaped ``delimiter`` from ``i``, the index past it); -1 when it
    does not end (a newline, or the end of the script). In a regex a bracket expression is
    whole (``s/[/]/x/``), as GNU sed reads it. Each character is looked at once or twice."""
    stops = _part_stops(delimiter, regex)
    start = i
    while i >= 0:
        m = stops.search(script, i)
        if m is None:
            return "", -1
        k = m.start()
        ch = script[k]
        if ch == delimiter:
            return script[start:k], k + 1
        if ch == "\\":
            i = k + 2
        elif ch == "\n":
            return "", -1
        else:  # `[`, in a regex
            end = _bracket_end(script, k)
            if end > 0:
                i = end
            else:  # no `[` after it on its line closes either: plain characters from here
                stops, i = _part_stops(delimiter, False), k + 1
    return "", -1


@functools.cache
def _part_stops(delimiter: str, regex: bool) -> re.Pattern[str]:
    return re.compile("[" + re.escape("\\\n" + delimiter + ("[" if regex else "")) + "]")


def _bracket_end(script: str, i: int) -> int:
    """Past the bracket expression at ``i`` (``[^]a[:alpha:]]``); minus the index of its
    line's end when it does not close on its line (then ``[`` is a plain character)."""
    j = i + 1
    if script.startswith("^", j):
        j += 1
    if script.startswith("]", j):
        j += 1
    while True:
        m = _BRACKET_STOP.search(script, j)
        if m is None:
            return -len(script)
        token = m.group()
        if token == "]":
            return m.end()
        if token == "\n":
            return -m.start()
        close = _CLASS_CLOSE[token[1]].search(script, m.end())  # [:alpha:], [.x.], [=e=]
        if close is None:
            return -len(script)
        if close.group() == "\n":
            return -close.start()
        j = close.end()


_BRACKET_STOP = re.compile(r"\[[:.=]|[\]\n]")
_CLASS_CLOSE = {c: re.compile(re.escape(c) + r"\]|\n") for c in ":.="}


def _sed_flags(script: str, i: int) -> tuple[bool, int]:
    """(whether the flags of an ``s`` command at ``i`` hold ``e``, where they end)."""
    runs = False
    n = len(script)
    while i < n:
        ch = script[i]
        if ch == "e":
            runs = True
        elif ch == "w":  # a file name, to the end of the line
            return runs, _line_end(script, i)
        elif ch in ";}#\n":
            break
        elif ch not in "gpiImM0123456789 \t\r":
            break  # sed refuses the script; what follows is read as commands
        i += 1
    return runs, i


def _sed_replacement(regex: str, replacement: str, delimiter: str) -> tuple[str, bool]:
    """The command line ``s/regex/replacement/e`` runs when it matches: the replacement with
    its escapes read; computed when it uses the match (``&``, ``\\1``, case changes) or when
    the regex leaves part of the line in place."""
    computed = regex not in _SED_WHOLE
    pieces: list[str] = []
    k, n = 0, len(replacement)
    while k < n:
        ch = replacement[k]
        if ch == "&":
            computed = True
        elif ch == "\\" and k + 1 < n:
            k += 1
            nxt = replacement[k]
            if nxt.isdigit() or nxt in "LUluE":
                computed = True
            else:
                pieces.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            k += 1
            continue
        pieces.append(ch)
        k += 1
    return "".join(pieces), computed


def _sed_text(script: str, i: int) -> tuple[str, int]:
    """(the text of an ``a``/``i``/``c``/``e`` command at ``i``, the index past it): the rest of
    the line after blanks (``a\\`` and a newline: the next line), continued over lines that
    end in a backslash (each escape read as the character it escapes), as GNU sed reads it."""
    n = len(script)
    i = _skip(script, i, " \t")
    if script.startswith("\\", i):
        i += 1
        if script.startswith("\n", i):
            i += 1
    end = n  # the first newline that no backslash escapes (an even run of them before it)
    for m in _NEWLINE.finditer(script, i):
        if (m.end() - m.start()) % 2 == 1:
            end = m.end() - 1
            break
    # each backslash escapes the character after it (`\\\\` is one backslash): in C, not a
    # Python call per escape
    text = "\\".join(part.replace("\\", "") for part in script[i:end].split("\\\\"))
    return text, min(end + 1, n)


_NEWLINE = re.compile(r"\\*\n")


# --- git: aliases in config files -----------------------------------------------------------------
# git's own commands (and the dashed ones it ships): git runs them before looking up an alias,
# so an alias of one of these names never runs
_GIT_COMMAND_NAMES = """
add am annotate apply archimport archive backfill bisect blame branch bugreport bundle cat-file
check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry
cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects
credential credential-cache credential-store cvsexportcommit cvsimport cvsserver daemon
describe diagnose diff diff-files diff-index diff-pairs diff-tree difftool fast-export
fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo
format-patch fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id grep gui hash-object
help hook http-backend imap-send index-pack init init-db instaweb interpret-trailers last-modified
log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file
merge-index merge-one-file merge-ours merge-recursive merge-resolve merge-subtree merge-tree
mergetool mktag mktree multi-pack-index mv name-rev notes p4 pack-objects pack-redundant
pack-refs patch-id prune prune-packed pull push quiltimport range-diff read-tree rebase
receive-pack reflog refs remote remote-ext remote-fd repack replace replay repo request-pull
rerere reset restore rev-list rev-parse revert rm send-email send-pack sh-i18n--envsubst
shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status
stripspace submodule subtree svn switch symbolic-ref tag unpack-file unpack-objects
update-index update-ref update-server-info upload-archive upload-pack var verify-commit
verify-pack verify-tag version web--browse whatchanged worktree write-tree
"""
_GIT_COMMANDS = frozenset(_GIT_COMMAND_NAMES.split())
_GIT_ALIAS_EXPANSIONS = 64  # aliases expanded for one line in all (git refuses a loop)
# the line is read again while a reading finds git aliases it defines that the last one did
# not know (`git c; git config alias.c clean`; one defined by an alias of another: once more)
_GIT_DEFINITION_PASSES = 3
_GIT_INCLUDE_DEPTH = 10     # as git's own limit
_GIT_PLACES = 64            # (git folder, config files) pairs looked at for one command
_GIT_KEY = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_GIT_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}
_GIT_ENV = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
            "GIT_CONFIG_NOSYSTEM", "GIT_DIR", "GIT_CONFIG_COUNT")


def _assigned(words: list[str], argv: list[str]) -> dict[str, str]:
    """The variables the line assigns for the command ``argv`` (``HOME=/x git nuke``, ``env
    GIT_CONFIG_GLOBAL=f git nuke``): the assignments among the words before it."""
    if not argv or len(argv) > len(words) or words[len(words) - len(argv):] != argv:
        return {}
    return dict(w.split("=", 1) for w in words[:len(words) - len(argv)]
                if _ASSIGNMENT.match(w))


def _git_aliases(argv: list[str], files: _Files, assigned: Mapping[str, str],
                 cmd: SimpleCommand | None = None) -> list[str | list[str]]:
    """What ``git [options] NAME ARGS...`` runs when NAME is an alias (none: git's own
    commands come first): for ``!CMD``, the shell text ``CMD ARGS...``; else the git command
    line it expands to (``git [options] WORDS... ARGS...``), to be judged in turn. Every
    definition found counts (git uses the last one): its own ``-c alias.NAME=VALUE`` and
    ``--config-env`` options, an earlier ``git config alias.NAME VALUE`` of the line
    (`git_alias_definition`) and every file git reads where it runs (``[includeIf]``
    conditions evaluated as git does: `_GitPlace`). A ``--config-env`` of a key that may
    define an alias whose variable is not assigned a literal value in front of the command
    (``V=status git --config-env=alias.c=V c``) is unread: ``cmd.git_unread`` says so (its
    value comes from wherever the line or the agent set it)."""
    args = argv[1:]
    dirs, git_dirs = list(files.bases), []
    given: list[tuple[str, str]] = []  # (key, value) of its `-c` and `--config-env` options
    moves = 0
    i = 0
    while i < len(args) and args[i].startswith("-"):
        word = args[i]
        value = args[i + 1] if i + 1 < len(args) else ""
        if word == "-C" and value and not _DYNAMIC.search(value) and moves < 64:
            moves += 1
            dirs = [os.path.join(d, _expanduser(value)) for d in dirs]
        elif word == "--git-dir" or word.startswith("--git-dir="):
            where = word.partition("=")[2] if "=" in word else value
            git_dirs += [os.path.join(d, _expanduser(where)) for d in dirs]
        elif word == "-c":
            key, _, setting = value.partition("=")
            given.append((key, setting))
        elif word == "--config-env" or word.startswith("--config-env="):
            # `--config-env=alias.x=VAR`: the value is that variable's, in the environment
            # the command inherits: known here only when assigned in front of it
            key, _, variable = (word.partition("=")[2] if "=" in word else value).rpartition("=")
            known = assigned.get(variable)
            if (known is None or _DYNAMIC.search(known)) and cmd is not None and \
                    _GIT_ALIAS_SOURCE.match(key):
                cmd.git_unread = (f"its --config-env {key}={variable} takes ${variable} from "
                                  "an environment the line may set")
            given.append((key, known or ""))
        i += 2 if word in _GIT_GLOBAL_VALUES else 1
    if i >= len(args):
        return []
    name, rest = args[i], args[i + 1:]
    if name in _GIT_COMMANDS or _DYNAMIC.search(name) or files.git_left <= 0:
        return []
    found: list[str | list[str]] = []
    envs = [files.env]
    if any(k in _GIT_ENV or k.startswith("GIT_CONFIG_") for k in assigned):
        envs.append({**files.env, **assigned})
    # git(1) `-c`: the command line's config comes on top of the files'; a definition of an
    # earlier command of the line is in a file by the time this one runs
    key = "alias." + name.lower()
    values = [v for k, v in given if k.lower() == key]
    values += files.git_defined.get(name.lower(), [])
    unread: list[str] = []
    included: list[str] = []
    values += files.git_alias(name, dirs, git_dirs, envs, given, unread, included)
    if cmd is not None:
        cmd.git_includes = list(dict.fromkeys(included))
        if unread:
            cmd.git_unread = f"its config includes {unread[0]}, which cannot be read here"
    for value in dict.fromkeys(values):
        if files.git_left <= 0:
            break
        files.git_left -= 1
        if value.startswith("!"):
            found.append(" ".join([value[1:], *map(shlex.quote, rest)]))
        else:
            found.append(["git", *args[:i], *_words(value), *rest])
    return found


# git config keys that may define an alias: its own, or a file to include (git-config(1)
# "Includes"; section names are case-insensitive)
_GIT_ALIAS_SOURCE = re.compile(r"(?i)(alias\.|include\.path$|includeif\..*\.path$)")


# git-config(1): the options of `git config NAME VALUE` (and git 2.46's `git config set`) that
# leave it a write of one key to one of git's own config files
_GIT_CONFIG_SCOPES = {"--global", "--system", "--local", "--worktree"}
_GIT_CONFIG_MODES = {"--add", "--replace-all", "--append", "--all"}


def git_config_includes(dirs: list[str], env: Mapping[str, str] | None = None
                        ) -> list[tuple[str | None, str]]:
    """Every include of the config files git reads for a command run in one of ``dirs``
    (`_Files.git_includes`), read here, in Python, with ``env`` (default: this process's)."""
    files = _Files(dirs[0] if dirs else _absolute(None), os.environ if env is None else env)
    files.bases = list(dict.fromkeys(dirs)) or files.bases
    return files.git_includes(files.bases)


def _git_env_config(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The config pairs of git's environment (git-config(1) ENVIRONMENT: ``GIT_CONFIG_COUNT``
    pairs of ``GIT_CONFIG_KEY_n`` and ``GIT_CONFIG_VALUE_n``)."""
    return [(env.get(f"GIT_CONFIG_KEY_{k}", ""), env.get(f"GIT_CONFIG_VALUE_{k}", ""))
            for k in range(_int(env.get("GIT_CONFIG_COUNT")))]


def _command_line_include(key: str, value: str, home: str) -> str | None:
    """The file a config pair of the command line includes (``include.path``,
    ``includeIf.COND.path``; ``~/`` is ``home``); None for any other pair, and for a relative
    path, which git 2.39 refuses there ("relative config includes must come from files":
    git dies, nothing runs)."""
    k = key.lower()
    if not value or not (k == "include.path" or (k.startswith("includeif.")
                                                 and k.endswith(".path"))):
        return None
    path = home + value[1:] if value.startswith("~/") else value
    return path if os.path.isabs(path) else None


def git_alias_definition(argv: list[str]) -> tuple[str, str] | None:
    """(NAME, VALUE) of a git command that only defines an alias: ``git [options] config
    [SCOPE] [--add|--replace-all] alias.NAME VALUE [VALUE-PATTERN]`` or git 2.46's ``git
    config set [SCOPE] [--append|--all] alias.NAME VALUE``; None for anything else (another
    key, a read, a file given with ``--file``, a word computed when it runs)."""
    if not argv or os.path.basename(argv[0]) != "git":
        return None
    args, i = argv[1:], 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        i += 2 if args[i] in _GIT_GLOBAL_VALUES else 1
    words = args[i + 1:] if args[i:i + 1] == ["config"] else None
    if not words:
        return None
    if words[0] == "set":
        words = words[1:]
    options = [w for w in words if w.startswith("-")]
    operands = [w for w in words if not w.startswith("-")]
    if any(o not in _GIT_CONFIG_SCOPES | _GIT_CONFIG_MODES for o in options) or \
            len(operands) not in (2, 3) or any(_DYNAMIC.search(w) for w in operands[:2]):
        return None
    section, dot, name = operands[0].partition(".")
    if section.lower() != "alias" or not dot or not name:
        return None
    return name, operands[1]


def _git_config(text: str) -> list[tuple[str, str | None, str, str | None]]:
    """The entries of a git config file: (section, subsection, key, value), section and key
    lower-cased, value None for a key without ``=``: quotes, escapes, comments and line
    continuations read as git reads them. A line git would refuse is skipped."""
    entries: list[tuple[str, str | None, str, str | None]] = []
    section, sub = "", None
    i, n = 0, len(text)
    while i < n:
        i = _skip(text, i, " \t\r\n")
        if i >= n:
            break
        ch = text[i]
        if ch in "#;":
            i = _line_end(text, i)
            continue
        if ch == "[":
            header = re.match(r'\[[ \t]*([A-Za-z0-9.-]+)[ \t]*(?:"((?:[^"\\\n]|\\.)*)")?[ \t]*\]',
                              text[i:i + 4096])
            if header is None:
                i = _line_end(text, i)
                continue
            section, sub = header.group(1).lower(), header.group(2)
            if sub is not None:
                sub = re.sub(r"\\(.)", r"\1", sub)
            elif "." in section:  # the old form, [section.sub]
                section, sub = section.split(".", 1)
            i += header.end()
            continue  # a key may follow on the same line
        key = _GIT_KEY.match(text, i)
        if key is None:
            i = _line_end(text, i)
            continue
        i = _skip(text, key.end(), " \t")
        value: str | None = None
        if i < n and text[i] == "=":
            value, i = _git_value(text, i + 1)
        else:
            i = _line_end(text, i)
        entries.append((section, sub, key.group().lower(), value))
    return entries


def _git_value(text: str, i: int) -> tuple[str, int]:
    """(a config value from ``i``, the index past its line): leading and trailing blanks and a
    ``#``/``;`` comment dropped outside double quotes, escapes read, ``\\`` at the end of a
    line continuing it."""
    pieces: list[str] = []
    length = keep = 0  # characters so far; up to ``keep`` they end in a non-blank or quoted one
    quoted = False
    n = len(text)
    i = _skip(text, i, " \t")
    while i < n:
        plain = (_GIT_QUOTED_RUN if quoted else _GIT_RUN).match(text, i)
        if plain is not None:
            chunk = plain.group()
            pieces.append(chunk)
            solid = chunk if quoted else chunk.rstrip(" \t\r")
            if solid:
                keep = length + len(solid)
            length += len(chunk)
            i = plain.end()
            continue
        ch = text[i]
        if ch == "\n":
            break
        if ch in "#;":  # a comment (outside quotes: inside, the run above took it)
            i = _line_end(text, i) - 1
            break
        if ch == '"':
            quoted = not quoted
            i += 1
            continue
        # a backslash
        nxt = text[i + 1:i + 2]
        if nxt == "\n" or (nxt == "\r" and text[i + 2:i + 3] == "\n"):
            i += 2 if nxt == "\n" else 3  # a continuation line
            continue
        escaped = _GIT_ESCAPES.get(nxt, nxt)
        pieces.append(escaped)
        length += len(escaped)
        keep = length
        i += 2
    return "".join(pieces)[:keep], i + 1


_GIT_RUN = re.compile(r'[^\n#;\\"]+')
_GIT_QUOTED_RUN = re.compile(r'[^\n\\"]+')


# --- program files: read here, from the line's working folders ---------------------------------
_FILE_CHARS = 1 << 20     # one program or config file; past this it counts as unreadable too
_FILES_CHARS = 8 << 20    # all the files read for one line


class _Files:
    """Where the tools of one command line read their programs from when they run: sed's and
    awk's ``-f`` files, git's config files. A relative name is read from the payload's working
    folder and from each folder a ``cd`` earlier in the line moves to (an over-reading: more
    to judge, never less). Regular files only (a FIFO or a device would block the hook), at
    most `_FILE_CHARS` each and `_FILES_CHARS` in all; a file longer than that is judged on
    what was read, and also counts as one unreadable command (``partial``)."""

    def __init__(self, cwd: str, env: Mapping[str, str], line: str = "") -> None:
        self.bases = [cwd]
        self.env = env
        self.line = line  # the whole command line: what stands for a program not read
        self.left = _FILES_CHARS
        self.partial: list[str] = []
        self.git_left = _GIT_ALIAS_EXPANSIONS
        # the shell aliases the line defines (`alias x=…`, `BASH_ALIASES[x]=…`): name -> value
        self.aliases: dict[str, str] = {}
        # the git aliases the line defines (`git config alias.x VALUE`, `git_alias_definition`)
        # for its later git commands: lower-cased name -> values
        self.git_defined: dict[str, list[str]] = {}
        # the shell scripts being read (`_run_shell_file`), innermost last: one that runs
        # itself is not read again
        self.running: list[str] = []
        # the files a here-document of the line is written to (`cat > j.sh <<EOF`): path ->
        # the text they hold once it has run
        self.written: dict[str, str] = {}
        self._texts: dict[str, str | None] = {}
        self._configs: dict[str, list[tuple[str, str | None, str, str | None]]] = {}
        self._indexes: dict[str, tuple[dict[str, list[str]], list[tuple[str | None, str]],
                                       list[str]]] = {}
        self._reached: dict[tuple[str | None, tuple[str, ...], str], list[str]] = {}

    def enter(self, args: list[str]) -> None:
        """``cd ARGS``: its folder is one more the line's names may be relative to."""
        folder = next((a for a in args if not a.startswith("-") or a == "-"), "~")
        if folder != "-" and not _DYNAMIC.search(folder) and len(self.bases) < 64:
            self.bases.append(os.path.normpath(os.path.join(
                self.bases[-1], _expanduser(folder))))

    def named(self, name: str) -> list[str]:
        """The texts of the file ``name`` as a command names it (relative: to each folder
        of the line)."""
        if not name or _DYNAMIC.search(name):
            return []
        name = _expanduser(name)
        paths = dict.fromkeys(os.path.normpath(os.path.join(b, name)) for b in self.bases)
        return [t for t in (self.read(p, again=True) for p in paths) if t is not None]

    def read(self, path: str, again: bool = False) -> str | None:
        """The text of the regular file ``path``, None when it cannot be read (read once;
        ``again``: each use of it counts against the budget, as a new read would)."""
        if path in self._texts:
            text = self._texts[path]
            if again and text is not None:
                if len(text) > self.left:
                    return None
                self.left -= len(text)
            return text
        if self.left <= 0:
            return None
        text = None
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_CLOEXEC", 0))
        except (OSError, ValueError):
            fd = -1
        if fd >= 0:
            try:
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    limit = min(_FILE_CHARS, self.left)
                    with os.fdopen(os.dup(fd), "rb") as f:
                        data = f.read(limit + 1)
                    text = data[:limit].decode("utf-8", errors="replace")
                    self.left -= len(data)
                    if len(data) > limit:
                        self.partial.append(text)
            except OSError:
                text = None
            finally:
                os.close(fd)
        self._texts[path] = text
        return text

    def git_alias(self, name: str, dirs: list[str], git_dirs: list[str],
                  envs: list[Mapping[str, str]], given: Iterable[tuple[str, str]] = (),
                  unread: list[str] | None = None, included: list[str] | None = None
                  ) -> list[str]:
        """Every value of ``alias.NAME`` in the config files git reads for a command run in
        one of ``dirs`` (or on one of ``git_dirs``), with each environment of ``envs``:
        system, global (``$GIT_CONFIG_GLOBAL``, else ``$XDG_CONFIG_HOME/git/config`` and
        ``~/.gitconfig``), the repository's (found upward), the files their ``[include]``
        sections name and those ``[includeIf]`` sections name whose condition holds there
        (`_GitPlace.holds`), ``$GIT_CONFIG_COUNT`` pairs, and the files the command line's
        config (``given``: its ``-c`` pairs, and those pairs) includes, with what they
        include in turn (their conditions taken as true). An included file of the command
        line that cannot be read is added to ``unread`` (the line may write it first), and
        each of them to ``included``."""
        key = name.lower()
        values: list[str] = []
        for env in envs:
            home = env.get("HOME") or _expanduser("~")
            pairs = [*given, *_git_env_config(env)]
            cli = [p for p in (_command_line_include(k, v, home) for k, v in pairs) if p]
            if unread is not None:
                unread += [p for p in cli if self.read(p) is None]
            if included is not None:
                included += cli
            for git_dir, paths in self._git_places(dirs, git_dirs, env, home):
                reached = self._git_reached(git_dir, paths, home)
                if cli:
                    reached = reached + self._git_walk(
                        tuple(cli), _GitPlace(self, git_dir, home), home)
                for path in reached:
                    values += self._git_index(path)[0].get(key, [])
            values += [v for k, v in _git_env_config(env) if k.lower() == "alias." + key]
        return list(dict.fromkeys(values))

    def git_includes(self, dirs: list[str]) -> list[tuple[str | None, str]]:
        """Every ``[include]`` and ``[includeIf]`` of the config files git reads for a command
        run in one of ``dirs`` (with this line's environment), followed whatever their
        condition (a condition may hold once the line has run): (the condition, None for an
        ``[include]``; the included file's path, absolute). At most `_GIT_PLACES` places,
        `_GIT_INCLUDE_DEPTH` levels."""
        home = self.env.get("HOME") or _expanduser("~")
        found: dict[tuple[str | None, str], None] = {}
        for _, paths in self._git_places(dirs, [], self.env, home):
            found.update(dict.fromkeys(self._git_follow(paths, home, lambda c, p: True)[1]))
        return list(found)

    def _git_places(self, dirs: list[str], git_dirs: list[str], env: Mapping[str, str],
                    home: str) -> list[tuple[str | None, tuple[str, ...]]]:
        """(the git folder, the config files git starts from) for git run in each of
        ``dirs``: its includes' conditions depend on both. At most `_GIT_PLACES`."""
        places: dict[tuple[str | None, tuple[str, ...]], None] = {}
        for d in dirs:
            if git_dirs:
                repos: list[str | None] = list(git_dirs)
            elif env.get("GIT_DIR"):
                repos = [os.path.join(d, env["GIT_DIR"])]
            else:
                repos = [self._git_dir(d)]
            for git_dir in repos:
                places[(git_dir, tuple(self._git_config_files(d, git_dir, env, home)))] = None
                if len(places) >= _GIT_PLACES:
                    return list(places)
        return list(places)

    def _git_reached(self, git_dir: str | None, paths: tuple[str, ...], home: str
                     ) -> list[str]:
        """The config files git reads from ``paths`` where its git folder is ``git_dir``,
        includes followed (each condition evaluated), once per place. Two passes, as git's:
        the remote URLs that ``hasconfig:remote.*.url:`` conditions test are those of every
        file reached with those conditions taken as true."""
        cache_key = (git_dir, paths, home)
        if cache_key not in self._reached:
            place = _GitPlace(self, git_dir, home)
            every = self._git_walk(paths, place, home)
            place.urls = [u for path in every for u in self._git_index(path)[2]]
            self._reached[cache_key] = self._git_walk(paths, place, home)
        return self._reached[cache_key]

    def _git_walk(self, paths: tuple[str, ...], place: _GitPlace, home: str) -> list[str]:
        return self._git_follow(
            paths, home, lambda c, p: c is None or place.holds(c, p))[0]

    def _git_follow(self, paths: Iterable[str], home: str,
                    follows: Callable[[str | None, str], bool]
                    ) -> tuple[list[str], list[tuple[str | None, str]]]:
        """The config files reached from ``paths`` following the includes ``follows`` takes
        (its condition, None for an ``[include]``; the including file), at most
        `_GIT_INCLUDE_DEPTH` levels, and those includes (condition; the included file's path,
        absolute)."""
        reached: list[str] = []
        followed: dict[tuple[str | None, str], None] = {}
        seen: set[str] = set()

        def visit(path: str, depth: int) -> None:
            path = os.path.normpath(path)
            if depth > _GIT_INCLUDE_DEPTH or path in seen:
                return
            seen.add(path)
            reached.append(path)
            for condition, value in self._git_index(path)[1]:
                if follows(condition, path):
                    included = home + value[1:] if value.startswith("~/") else value
                    target = os.path.normpath(os.path.join(os.path.dirname(path), included))
                    followed[(condition, target)] = None
                    visit(target, depth + 1)

        for path in paths:
            visit(path, 0)
        return reached, list(followed)

    def _git_index(self, path: str) -> tuple[dict[str, list[str]],
                                            list[tuple[str | None, str]], list[str]]:
        """What a config file holds that matters here, read once: its aliases (lower-cased
        name -> values), its includes (the condition of an ``[includeIf]``, None for an
        ``[include]``; the path), its remote URLs."""
        if path not in self._indexes:
            aliases: dict[str, list[str]] = {}
            includes: list[tuple[str | None, str]] = []
            urls: list[str] = []
            for section, sub, k, value in self._config(path):
                if value is None:
                    continue
                if section == "alias" and sub is None:
                    aliases.setdefault(k, []).append(value)
                elif section == "include" and sub is None and k == "path" and value:
                    includes.append((None, value))
                elif section == "includeif" and sub is not None and k == "path" and value:
                    includes.append((sub, value))  # git ignores one without a condition
                elif section == "remote" and sub is not None and k == "url":
                    urls.append(value)
            self._indexes[path] = (aliases, includes, urls)
        return self._indexes[path]

    def _git_config_files(self, d: str, git_dir: str | None, env: Mapping[str, str],
                          home: str) -> list[str]:
        paths: list[str] = []
        if not env.get("GIT_CONFIG_NOSYSTEM"):
            paths.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
        if env.get("GIT_CONFIG_GLOBAL") is not None:
            paths.append(env["GIT_CONFIG_GLOBAL"])
        else:
            xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
            paths += [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")]
        if git_dir is not None:
            common = self.read(os.path.join(git_dir, "commondir"))
            shared = os.path.join(git_dir, common.strip()) if common and common.strip() else (
                git_dir)
            paths += [os.path.join(shared, "config"), os.path.join(git_dir, "config.worktree")]
        # a relative one (`GIT_CONFIG_GLOBAL=team.cfg git nuke`) is relative to where git runs
        return [p if os.path.isabs(p) else os.path.join(d, p) for p in paths if p]

    def branch(self, git_dir: str) -> str | None:
        """The branch checked out in ``git_dir`` (its ``HEAD``: ``ref: refs/heads/NAME``);
        ``""`` for none (a detached HEAD); None when that cannot be read here (no HEAD, or
        the reftable format, whose HEAD names no branch)."""
        head = self.read(os.path.join(git_dir, "HEAD"))
        if head is None:
            return None
        head = head.strip()
        if not head.startswith("ref:"):
            return ""
        ref = head[4:].strip()
        if ref == "refs/heads/.invalid":
            return None
        return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else ""

    def _git_dir(self, start: str) -> str | None:
        """The git folder of the repository ``start`` is in (``.git``, the folder a ``.git``
        file points to, or a bare repository), looked for upward as git does."""
        folder = os.path.normpath(start)
        for _ in range(256):
            dotgit = os.path.join(folder, ".git")
            if os.path.isdir(dotgit):
                return dotgit
            pointer = self.read(dotgit)
            if pointer is not None and pointer.startswith("gitdir:"):
                return os.path.join(folder, pointer[len("gitdir:"):].strip())
            if os.path.isfile(os.path.join(folder, "HEAD")) and \
                    os.path.isdir(os.path.join(folder, "objects")) and \
                    os.path.isdir(os.path.join(folder, "refs")):
                return folder
            parent = os.path.dirname(folder)
            if parent == folder:
                return None
            folder = parent
        return None

    def _config(self, path: str) -> list[tuple[str, str | None, str, str | None]]:
        if path not in self._configs:
            text = self.read(path)
            self._configs[path] = _git_config(text) if text is not None else []
        return self._configs[path]


class _GitPlace:
    """Where git runs, as its ``[includeIf "CONDITION"]`` sections test it (git-config(1),
    "Conditional includes"), evaluated as git evaluates them:

    - ``gitdir:PATTERN`` / ``gitdir/i:`` (case-insensitive): the git folder's path (resolved,
      then as written) matches; ``~/`` is $HOME, ``./`` the folder of the config file holding
      the condition (matched literally), a pattern not starting with ``/`` gets ``**/`` in
      front, one ending in ``/`` gets ``**`` after; wildcards as `_wildmatch` (pathname).
    - ``onbranch:PATTERN``: the branch ``HEAD`` names matches (a trailing ``/`` gets ``**``).
    - ``hasconfig:remote.*.url:GLOB``: some ``remote.<name>.url`` of the config matches.
    - ``hostname:GLOB`` (git 2.46): this machine's name matches.

    False where git's is: no repository for ``gitdir:``/``onbranch:``, a detached HEAD. What
    cannot be evaluated here counts as true (more to judge, never less): a condition this does
    not know (a newer git may), an unreadable ``HEAD``, ``%(prefix)/``. (git itself resolves
    aliases before it sets up the repository and skips ``onbranch:`` for them; `git config`
    evaluates it: counted here when the branch matches.)"""

    def __init__(self, files: _Files, git_dir: str | None, home: str) -> None:
        self.files, self.git_dir, self.home = files, git_dir, home
        self.urls: list[str] | None = None  # None: hasconfig conditions hold (first pass)

    def holds(self, condition: str, config_path: str) -> bool:
        if condition.startswith(("gitdir:", "gitdir/i:")):
            icase = condition.startswith("gitdir/i:")
            pattern = condition.split(":", 1)[1]
            return self.git_dir is not None and self._gitdir(pattern, icase, config_path)
        if condition.startswith("onbranch:"):
            if self.git_dir is None:
                return False
            branch = self.files.branch(self.git_dir)
            if branch is None:
                return True
            pattern = condition[len("onbranch:"):]
            return bool(branch) and _wildmatch(
                pattern + "**" if pattern.endswith("/") else pattern, branch)
        if condition.startswith("hasconfig:remote.*.url:"):
            glob = condition[len("hasconfig:remote.*.url:"):]
            return self.urls is None or any(_wildmatch(glob, url) for url in self.urls)
        if condition.startswith("hostname:"):
            return _wildmatch(condition[len("hostname:"):], socket.gethostname(),
                              pathname=False)
        return True

    def _gitdir(self, pattern: str, icase: bool, config_path: str) -> bool:
        if pattern.startswith("%(prefix)/"):
            return True
        if pattern == "~" or pattern.startswith("~/"):
            pattern = self.home + pattern[1:]
        elif pattern.startswith("~"):
            pattern = _expanduser(pattern)
        prefix = 0
        if pattern.startswith("./"):
            folder = os.path.dirname(os.path.realpath(config_path))
            pattern = folder + pattern[1:]
            prefix = len(folder) + 1
        elif not pattern.startswith("/"):
            pattern = "**/" + pattern
        if pattern.endswith("/"):
            pattern += "**"
        assert self.git_dir is not None
        for text in dict.fromkeys((os.path.realpath(self.git_dir),
                                   os.path.abspath(self.git_dir))):
            head, rest = text[:prefix], text[prefix:]
            if prefix and (len(text) < prefix or (head.lower() != pattern[:prefix].lower()
                                                  if icase else head != pattern[:prefix])):
                continue
            if _wildmatch(pattern[prefix:], rest, casefold=icase):
                return True
        return False


_WILD_CLASSES: dict[str, Callable[[str], bool]] = {
    "alnum": str.isalnum, "alpha": str.isalpha, "digit": str.isdigit, "lower": str.islower,
    "upper": str.isupper, "space": str.isspace, "xdigit": lambda c: c in string.hexdigits,
    "punct": lambda c: c in string.punctuation, "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127, "graph": lambda c: c.isprintable()
    and not c.isspace(), "print": str.isprintable}
_WILD_TEXT = 8192  # longer texts (paths, URLs, branch names) never match


def _wildmatch(pattern: str, text: str, *, pathname: bool = True,
               casefold: bool = False) -> bool:
    """git's ``wildmatch``: ``?``, ``*`` (not across ``/`` with ``pathname``), ``**`` (across
    ``/`` when it is a whole path component: ``**/`` also matches no folder at all), ``[...]``
    classes (``!``/``^``, ranges, ``[:alpha:]``; never ``/`` with ``pathname``), ``\\``
    escapes. The positions reachable in ``text`` are one integer's bits, advanced once per
    pattern token: linear in the pattern's length times the text's (never backtracking)."""
    if casefold:
        pattern, text = pattern.lower(), text.lower()
    if len(text) > _WILD_TEXT or len(pattern) > _WILD_TEXT:
        return False
    n = len(text)
    every = (1 << (n + 1)) - 1
    masks: dict[str, int] = {}

    def mask(test: Callable[[str], bool]) -> int:  # bit j: text[j] passes
        return sum(1 << j for j, c in enumerate(text) if test(c))

    def char_mask(c: str) -> int:
        if c not in masks:
            masks[c] = mask(lambda x: x == c)
        return masks[c]

    plain = mask(lambda c: c != "/") if pathname else (1 << n) - 1
    slashes = char_mask("/")
    at = 1  # bit 0: nothing matched yet
    i, m = 0, len(pattern)
    while i < m and at:
        ch = pattern[i]
        if ch == "*":
            j = i
            while j < m and pattern[j] == "*":
                j += 1
            whole = j - i >= 2 and (i == 0 or pattern[i - 1] == "/") and (
                j == m or pattern[j] == "/")
            low = at & -at  # the first reachable position: `**` reaches all after it
            if not pathname or (whole and j == m):
                at = every & ~(low - 1)
            elif whole:  # `**/`: no folder, or anything ending in `/`
                at |= ((slashes & ~(low - 1)) << 1) & every
                j += 1
            else:  # `*` (and `**` inside a component): within one component
                while True:
                    step = at | ((at & plain) << 1)
                    if step == at:
                        break
                    at = step
            i = j
            continue
        if ch == "?":
            at = ((at & plain) << 1) & every
            i += 1
            continue
        if ch == "[":
            test, i = _wild_class(pattern, i + 1, pathname)
            if test is None:
                return False  # git aborts on an unclosed class: no match
            at = ((at & mask(test)) << 1) & every
            continue
        if ch == "\\" and i + 1 < m:
            i += 1
            ch = pattern[i]
        at = ((at & char_mask(ch)) << 1) & every
        i += 1
    return i >= m and bool(at >> n & 1)


def _wild_class(pattern: str, i: int, pathname: bool
                ) -> tuple[Callable[[str], bool] | None, int]:
    """The test of the bracket expression starting at ``i`` (past ``[``) and the index past
    its ``]``; (None, i) when it does not close."""
    negate = pattern.startswith(("!", "^"), i)
    i += negate
    m = len(pattern)
    singles: set[str] = set()
    ranges: list[tuple[str, str]] = []
    named: list[Callable[[str], bool]] = []
    first = True
    while i < m and (first or pattern[i] != "]"):
        first = False
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= m:
                return None, i
            singles.add(pattern[i + 1])
            i += 2
            continue
        if ch == "[" and pattern.startswith(":", i + 1):
            end = pattern.find(":]", i + 2)
            if end < 0:
                return None, i
            known = _WILD_CLASSES.get(pattern[i + 2:end])
            if known is None:
                return None, i  # git: a malformed class aborts
            named.append(known)
            i = end + 2
            continue
        if pattern.startswith("-", i + 1) and i + 2 < m and pattern[i + 2] != "]":
            high = pattern[i + 2]
            if high == "\\" and i + 3 < m:
                high, i = pattern[i + 3], i + 1
            ranges.append((ch, high))
            i += 3
            continue
        singles.add(ch)
        i += 1
    if i >= m:
        return None, i

    def test(c: str) -> bool:
        hit = c in singles or any(lo <= c <= hi for lo, hi in ranges) or any(
            t(c) for t in named)
        return hit != negate and not (pathname and c == "/")

    return test, i + 1


def _expanduser(path: str) -> str:
    """``~`` and ``~user`` expanded; as written when that cannot be done (a NUL byte)."""
    try:
        return os.path.expanduser(path)
    except (ValueError, KeyError, OSError):
        return path


def _int(value: str | None) -> int:
    try:
        return max(0, min(int(value or 0), 1000))
    except ValueError:
        return 0


# the program files of the line being parsed (set by `simple_commands`)
_FILES: ContextVar[_Files | None] = ContextVar("labledger_shell_files", default=None)


def _option_values(args: list[str], with_value: Collection[str], wanted: Collection[str]
                   ) -> Iterator[tuple[str, str]]:
    """(option, value) of each option of ``wanted`` among ``args``' leading options (up to
    the first operand or ``--``): ``-v X``, ``--volume X``, ``--volume=X``, ``-vX``."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] not in ("-", "--"):
        word = args[i]
        option, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if not eq and word in with_value:
            value = args[i + 1] if i + 1 < len(args) else ""
            i += 1
        elif not word.startswith("--"):  # a bundle, as getopt reads it (`-itv SRC:DST`)
            for k, letter in enumerate(word[1:], 2):
                if "-" + letter in with_value:
                    option, value = "-" + letter, word[k:].removeprefix("=")
                    if not value:
                        value = args[i + 1] if i + 1 < len(args) else ""
                        i += 1
                    break
        if option in wanted:
            yield option, value
        i += 1


def _container_binds(args: list[str]) -> tuple[list[tuple[str, str]], str | None]:
    """The host folders a ``docker run`` (podman, nerdctl, ``compose run``) binds writable
    into its container, as (path in the container, host path as written), and its working
    folder (``-w``, ``--workdir``). ``-v SRC:DST[:OPTS]`` binds a host path when SRC is one
    (absolute, ``./``-relative, ``~``, ``$PWD``; a bare name is a named volume, one part an
    anonymous one); ``--mount type=bind,source=SRC,target=DST``. Read-only ones (``:ro``,
    ``readonly``) are left out: nothing is deleted through them."""
    binds: list[tuple[str, str]] = []
    workdir = None
    for option, value in _option_values(args, _CONTAINER_VALUE_OPTIONS,
                                        {"-v", "--volume", "--mount", "-w", "--workdir"}):
        if option in ("-w", "--workdir"):
            workdir = value
        elif option == "--mount":
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            if fields.get("type") != "bind" or any(
                    k in fields and fields[k] in ("", "1", "true") for k in ("readonly", "ro")):
                continue
            source = fields.get("source", fields.get("src"))
            target = fields.get("target", fields.get("destination", fields.get("dst")))
            if source and target:
                binds.append((target, source))
        else:
            parts = value.split(":")
            if len(parts) >= 2 and _host_path(parts[0]) and "ro" not in (
                    parts[2].split(",") if len(parts) > 2 else ()):
                binds.append((parts[1], parts[0]))
    return binds, workdir


def _entrypoint(args: list[str]) -> str:
    """The ``--entrypoint CMD`` a ``docker run`` (podman, nerdctl, ``compose run``) gives,
    the last one ("" for none, or for ``--entrypoint ''``, which empties the image's)."""
    values = [value for _, value in _option_values(args, _CONTAINER_VALUE_OPTIONS,
                                                   {"--entrypoint"})]
    return values[-1] if values else ""


# the compose files `docker compose` reads where `-f` names none, first found from the folder
# it runs in up (compose v2), and the override file read after each
_COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")


def _compose_binds(compose: list[str], sub: list[str], files: _Files | None
                   ) -> tuple[list[tuple[str, str]], str | None]:
    """The writable binds, as (path in the container, host path), and the working folder of
    the service that ``docker compose [COMPOSE] run|exec SUB`` names, from its compose files:
    ``-f FILE`` (each, in order), else the first of `_COMPOSE_FILES` from the folder it runs
    in up (or ``--project-directory``) with its ``.override`` file. A short volume
    ``./runs:/w`` (relative to the project folder, the first file's; absolute, ``~``,
    ``$PWD``) or a long one of ``type: bind``; read-only ones (``:ro``, ``read_only``) and
    named volumes are left out. A file that cannot be read or parsed (YAML) gives none."""
    if files is None:
        return [], None
    rest = skip_options(sub, _CONTAINER_VALUE_OPTIONS, 0)
    if not rest or _DYNAMIC.search(rest[0]):
        return [], None
    service = rest[0]
    named = [v for o, v in _option_values(compose, _COMPOSE_GLOBAL_VALUES, {"-f", "--file"})]
    folder = next((v for o, v in _option_values(compose, _COMPOSE_GLOBAL_VALUES,
                                                {"--project-directory"})), None)
    here = files.bases[-1]
    if any(_DYNAMIC.search(w) for w in [*named, folder or ""]):
        return [], None
    if named:
        paths = [os.path.normpath(os.path.join(here, _expanduser(f))) for f in named]
    else:
        start = os.path.normpath(os.path.join(here, _expanduser(folder or ".")))
        paths = _found_compose_files(start)
    if not paths:
        return [], None
    top = os.path.normpath(os.path.join(here, _expanduser(folder))) if folder \
        else os.path.dirname(paths[0])
    binds: list[tuple[str, str]] = []
    workdir = None
    for path in paths:
        spec = _compose_service(path, service, files)
        volumes = spec.get("volumes")
        for volume in volumes if isinstance(volumes, list) else []:
            bind = _compose_volume(volume, top)
            if bind is not None:
                binds.append(bind)
        if isinstance(spec.get("working_dir"), str):
            workdir = spec["working_dir"]
    return binds, workdir


def _found_compose_files(start: str) -> list[str]:
    """The compose file found from ``start`` up (`_COMPOSE_FILES`), and its override file
    (``compose.override.yaml`` beside ``compose.yaml``...) when there is one."""
    folder = start
    while True:
        for name in _COMPOSE_FILES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                stem, ext = os.path.splitext(name)
                override = os.path.join(folder, f"{stem}.override{ext}")
                return [path, override] if os.path.isfile(override) else [path]
        parent = os.path.dirname(folder)
        if parent == folder:
            return []
        folder = parent


def _compose_service(path: str, service: str, files: _Files) -> dict[str, Any]:
    """The mapping of ``service`` in the compose file ``path`` ({} when there is none, or
    the file cannot be read or parsed as YAML)."""
    text = _script_text(path, files)
    if text is None:
        return {}
    try:
        import yaml

        data = yaml.safe_load(text)
    except Exception:  # not YAML (or nested past the parser's limits): no service read
        return {}
    services = data.get("services") if isinstance(data, dict) else None
    spec = services.get(service) if isinstance(services, dict) else None
    return spec if isinstance(spec, dict) else {}


def _compose_volume(volume: Any, top: str) -> tuple[str, str] | None:
    """(path in the container, host path) of one compose volume that binds a host folder
    writable; None for a named volume, a read-only bind, or any other shape."""
    if isinstance(volume, str):
        parts = volume.split(":")
        if len(parts) < 2 or not _host_path(parts[0]) or "ro" in (
                parts[2].split(",") if len(parts) > 2 else ()):
            return None
        source, target = parts[0], parts[1]
    elif isinstance(volume, dict) and volume.get("type") == "bind" and \
            not volume.get("read_only"):
        if not isinstance(volume.get("source"), str) or not isinstance(volume.get("target"), str):
            return None
        source, target = volume["source"], volume["target"]
    else:
        return None
    if source.startswith("."):  # relative to the project folder, not where compose runs
        source = os.path.normpath(os.path.join(top, source))
    return target, source


def _apptainer_binds(args: list[str]) -> list[tuple[str, str]]:
    """apptainer/singularity ``-B``/``--bind SRC[:DST[:OPTS]][,...]`` as (path in the
    container, host path); DST defaults to SRC (its default binds, ``$HOME``, ``$PWD``,
    ``/tmp``, keep their paths: nothing to read)."""
    binds: list[tuple[str, str]] = []
    for _, value in _option_values(args, _APPTAINER_VALUE_OPTIONS, {"-B", "--bind"}):
        for spec in value.split(","):
            parts = spec.split(":")
            if parts[0] and len(parts) >= 2 and parts[1] and "ro" not in parts[2:]:
                binds.append((parts[1], parts[0]))
    return binds


def _host_path(source: str) -> bool:
    """``-v``'s source is a host path (not a named volume): absolute, relative from ``.``,
    from home, or computed (``$PWD``, ``$(pwd)``)."""
    return source.startswith(("/", ".", "~", "$", "`"))


# how a container's paths are written where a bind's path in the container starts them
_PWD_SPELLINGS = ("$(pwd)", "`pwd`", "${PWD}", "$(pwd -P)", "$(pwd -L)")


def _in_host_paths(found: list[tuple[list[str], bool]], binds: list[tuple[str, str]],
                   workdir: str | None) -> list[tuple[list[str], bool]]:
    """The commands a container runs, each path of theirs under a bind written as the host
    path it is (``docker run -v /data/exp1:/w img rm -rf /w/.labledger`` deletes
    ``/data/exp1/.labledger``: judged so), in every word (a ``bash -c`` script's, a
    ``python -c`` program's too). A working folder under a bind is entered first (``cd``),
    so that relative paths there are read from the host folder it is."""
    binds = [(os.path.normpath(target), source.rstrip("/") or "/")
             for target, source in binds if target.startswith("/") and target != "/"]
    if not binds or not found:
        return found
    for spelling in _PWD_SPELLINGS:
        binds = [(t, "$PWD" + s[len(spelling):] if s.startswith(spelling) else s)
                 for t, s in binds]
    binds.sort(key=lambda b: -len(b[0]))  # (the deepest bind first: -v a:/w -v b:/w/data)
    host = dict(binds)
    pattern = re.compile(r"(?<![\w.~$/-])(" + "|".join(re.escape(t) for t, _ in binds)
                         + r")(?=/|$|[^\w.-])")

    def to_host(word: str) -> str:
        return pattern.sub(lambda m: host[m.group(1)], word)

    translated = [([inner[0], *map(to_host, inner[1:])], computed) for inner, computed in found]
    entered = to_host(workdir) if workdir else None
    if entered is not None and entered != workdir:
        return [(["cd", entered], False), *translated]
    return translated


def _after_options(args: list[str], with_value: set[str], operands: int,
                   all_take_values: bool = False) -> list[tuple[list[str], bool]]:
    """The command after ``args``' options (`skip_options`) and ``operands`` more words; with
    ``all_take_values``, every option not in ``with_value`` (then: its flags) and not
    ``--opt=value`` takes the next word (nsys)."""
    if all_take_values:
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] != "--":
            i += 1 if "=" in args[i] or args[i] in with_value else 2
        inner = args[i + (args[i:i + 1] == ["--"]):]
    else:
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


def _fd_exec_commands(args: list[str]) -> list[tuple[list[str], bool]]:
    """fd's ``-x|--exec CMD...`` (once per path found) and ``-X|--exec-batch CMD...`` (once,
    with every path): the command, up to a ``;`` or the end (fd(1): "all positional
    arguments following --exec are considered to be arguments to the command"), the paths
    found appended or put for ``{}``: computed when it runs, as find's are. The option also
    at the end of a bundle (``-Hx rm``), the command's first word in its word (``-xrm``,
    ``--exec=rm``), as fd reads them (`fd_exec_start`)."""
    found: list[tuple[list[str], bool]] = []
    i = 0
    while i < len(args):
        first = fd_exec_start(args[i])
        if first is not None:
            j = i + 1
            while j < len(args) and args[j] != ";":
                j += 1
            command = ([first] if first else []) + args[i + 1:j]
            if command:
                found.append((command, True))
            i = j
        i += 1
    return found


# fd's short options that take a value (the rest of a bundle, or the next word)
_FD_SHORT_VALUES = frozenset("dteESocj")


def fd_exec_start(word: str) -> str | None:
    """The word starts fd's ``-x``/``-X`` command: the command's first word where the word
    holds it (``-xrm``, ``-X=rm``, ``--exec=rm``; "" where the next word is), None for any
    other word (``-ex``: -e takes ``x`` as its value)."""
    if word in ("-x", "--exec", "-X", "--exec-batch"):
        return ""
    name, eq, value = word.partition("=")
    if eq and name in ("--exec", "--exec-batch"):
        return value
    if not word.startswith("-") or word.startswith("--"):
        return None
    for k, letter in enumerate(word[1:], 2):
        if letter in _FD_SHORT_VALUES:
            return None
        if letter in "xX":
            return word[k:].removeprefix("=")
    return None


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
        if (word in _KEYWORDS and word != "time") or _ASSIGNMENT.match(word):
            argv = argv[1:]  # (`time -p`: a wrapper with its options)
        elif base == "env" and any(a.startswith(("-S", "--split-string")) for a in argv[1:2]):
            flag = argv[1]
            rest = flag.split("=", 1)[1] if "=" in flag else (
                flag[2:] if flag.startswith("-S") and len(flag) > 2 else " ".join(argv[2:3]))
            argv = _words(rest) + argv[3 if rest and flag in ("-S", "--split-string")
                                              else 2:]
        elif base in _MPI_LAUNCHERS:
            argv = _mpi_program(argv[1:])
        elif base in _WRAPPERS:
            via_xargs = via_xargs or base in ("xargs", "parallel")
            after = skip_options(argv[1:], _WRAPPERS[base], _OPERANDS.get(base, 0))
            if not after and base in ("sudo", "doas") and _runs_a_shell(argv[1:]):
                return ["sh"]  # `sudo -s`, `sudo -i`: a shell reading its script from stdin
            if base == "flock" and after[:1] in (["-c"], ["--command"]):
                return ["sh", "-c", *after[1:2]]  # flock(1): FILE -c COMMAND, run by sh -c
            if base == "watch" and after and not any(
                    o in ("-x", "--exec") for o in argv[1:len(argv) - len(after)]):
                return ["sh", "-c", " ".join(after)]  # watch(1): its words, run by sh -c
            argv = after
            if base == "env":
                while argv and _ASSIGNMENT.match(argv[0]):
                    argv = argv[1:]
            if base == "parallel" and ":::" in argv:
                argv = argv[:argv.index(":::")] + argv[argv.index(":::") + 1:]
        else:
            break
    return ["\0xargs", *argv] if via_xargs and argv else argv


def _mpi_program(args: list[str]) -> list[str]:
    """The program and its words an MPI launcher runs: ``args`` after its options
    (`_MPI_VALUES`; ``--`` ends them)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            i += 1
            break
        i += 1 + _MPI_VALUES.get(args[i], 0)
    return args[i:]


# tmux(1) 3.x: the commands that run a shell-command (after their options), each with the
# option letters taking a value; send-keys types its keys into a pane's shell
_TMUX_GLOBAL_VALUES = "cfLST"  # tmux [-2CDhlNuVv] [-c shell-command] [-f file] [-L ...] ...
_TMUX_RUNS = {
    **dict.fromkeys(("new-session", "new"), "cefFnstxy"),
    **dict.fromkeys(("new-window", "neww"), "ceFnt"),
    **dict.fromkeys(("split-window", "splitw"), "ceFlpt"),
    **dict.fromkeys(("respawn-pane", "respawnp", "respawn-window", "respawnw"), "cet"),
    **dict.fromkeys(("run-shell", "run"), "cdt"),
    **dict.fromkeys(("display-popup", "popup"), "bcdehsStTwxy"),
}
_TMUX_TYPES = {"send-keys": "cNt", "send": "cNt"}
# tmux key names: one that ends or breaks the line typed (Enter runs it, C-c drops it); the
# rest of a key word is typed as it is
_TMUX_KEYS = re.compile(r"^(?:[CMS]-.+|Enter|KPEnter|Escape|Tab|BTab|BSpace|Up|Down|Left"
                        r"|Right|Home|End|IC|DC|NPage|PPage|PageUp|PageDown|PgUp|PgDn"
                        r"|F\d{1,2})$")


def _getopt(args: list[str], with_value: str, ends_word: str = "") -> tuple[str, list[str]]:
    """(the option letters set, the operands) of ``args`` read as getopt(3) reads them: a
    letter of ``with_value`` takes the rest of its word or the next one; a letter of
    ``ends_word`` the rest of its word; ``--`` ends them."""
    letters = ""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        word = args[i]
        i += 1
        if word == "--":
            break
        for k, letter in enumerate(word[1:], 1):
            letters += letter
            if letter in with_value:
                i += 0 if k < len(word) - 1 else 1
                break
            if letter in ends_word:
                break
    return letters, args[i:]


def _tmux_scripts(argv: list[str]) -> list[str]:
    """The shell text a ``tmux`` line runs: the ``-c`` shell-command, each command's
    shell-command (`_TMUX_RUNS`: one word is a script, several are run as they are), the keys
    ``send-keys`` types (`_TMUX_KEYS`: ``Enter`` ends a line, ``Space`` is a blank; ``-l``:
    literal); commands are chained with a ``;`` word."""
    scripts: list[str] = []
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-", "--"):
        word = argv[i]
        value = next((k for k, ch in enumerate(word[1:], 1) if ch in _TMUX_GLOBAL_VALUES), 0)
        given = word[value + 1:] if value and value < len(word) - 1 else (
            argv[i + 1] if value and i + 1 < len(argv) else "")
        if value and word[value] == "c" and given:
            scripts.append(given)  # tmux -c shell-command: run by the default shell
        i += 2 if value and value == len(word) - 1 else 1
    command: list[str] = []
    for word in [*argv[i + (argv[i:i + 1] == ["--"]):], ";"]:
        if word != ";" and not (word.endswith(";") and not word.endswith("\\;")):
            command.append(word)
            continue
        if word != ";":
            command.append(word[:-1])
        if command and command[0] in _TMUX_RUNS:
            operands = _getopt(command[1:], _TMUX_RUNS[command[0]])[1]
            if operands:
                scripts.append(operands[0] if len(operands) == 1 else shlex.join(operands))
        elif command and command[0] in _TMUX_TYPES:
            letters, keys = _getopt(command[1:], _TMUX_TYPES[command[0]])
            if not set(letters) & set("XHM"):  # copy-mode commands, hex, a mouse event
                scripts.append("".join(
                    k if "l" in letters else " " if k == "Space" else
                    "\n" if _TMUX_KEYS.match(k) else k for k in keys))
        command = []
    return scripts


# screen(1): the options taking a value; those that attach, list or send a command to a
# session rather than start one (`-X CMD`: one of its commands)
_SCREEN_VALUES = "cehpsStT"
_SCREEN_NO_COMMAND = {"-ls", "-list", "-wipe", "-Q", "-v", "-version", "-help"}


def _screen_scripts(argv: list[str]) -> list[str]:
    """The shell text a ``screen`` line runs: the command (and its words) a new session
    starts (``screen -dmS name CMD ...``: not a reattach, ``-r``/``-x``, or a detach alone),
    the text ``-X stuff`` types into a window and the command ``-X screen`` starts there."""
    # (`-X command args`: the rest is one command to a session; `-Logfile FILE` reads as
    # letters, its "e" taking the file as ``-e`` would)
    letters, operands = _getopt(argv[1:], _SCREEN_VALUES, ends_word="X")
    if not operands or any(w in _SCREEN_NO_COMMAND for w in argv[1:len(argv) - len(operands)]):
        return []
    if "X" in letters:
        if operands[0] == "stuff":  # typed: its \n, \r, ^M, ^J end a line
            return [re.sub(r"\\[nr]|\^[MJ]|\\01[25]", "\n", " ".join(operands[1:]))]
        return [shlex.join(operands[1:])] if operands[0] == "screen" and operands[1:] else []
    if set(letters) & set("rRx") or (set(letters) & set("dD") and "m" not in letters):
        return []
    return [shlex.join(operands)]


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
        if token in ("$(", "`"):  # the substitution whole, to its end (unclosed: the text's)
            end = _substitution_span(text, pos)[0] if token == "$(" else _backtick_end(text, pos)
            pieces.append(text[m.start():end])
            pos = end
        elif first == "'":
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


def _backtick_end(text: str, i: int) -> int:
    """Where the backtick substitution whose body starts at ``i`` ends (after its closing
    backtick, one escaped by a backslash aside; the end of the text when there is none)."""
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "`":
            return i + 1
        i += 1
    return n


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
        i += 2 if word in with_value or _bundled_value(word, with_value) else 1
    return argv[i + operands:]


def _bundled_value(word: str, with_value: Collection[str]) -> bool:
    """The bundle of short options ``word`` ends in one that takes the next word as its
    value (``-iu root``), as getopt reads a bundle: the first letter that takes a value takes
    the rest of the word, where there is a rest (``-v/data:/w``, ``-v$(pwd):/w``)."""
    if len(word) <= 2 or word[1] == "-":
        return False
    for k, letter in enumerate(word[1:], 1):
        if "-" + letter in with_value:
            return k == len(word) - 1
    return False


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


def _ssh_remote(argv: list[str], with_value: set[str] = _SSH_VALUE_OPTIONS
                ) -> tuple[list[str] | None, str]:
    """The destination (with its -F/-o options) and the remote command of ``ssh [options]
    host [options] [--] command...`` (``with_value``: the option letters taking a value). A
    -F or -o after the host counts too: ssh reads options until the command."""
    host: str | None = None
    where: list[str] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            if host is None and i < len(argv):
                host = argv[i]
                i += 1  # the host follows
            break
        if word.startswith("-") and len(word) > 1:
            # bundled flags (-vp 22): a value option takes the rest, or the next word
            for k, ch in enumerate(word[1:], 1):
                if ch in with_value:
                    value = word[k + 1:] if k < len(word) - 1 else (
                        argv[i + 1] if i + 1 < len(argv) else "")
                    if ch in "Fo":
                        where += ["-" + ch, value]
                    if k == len(word) - 1:
                        i += 1
                    break
            i += 1
            continue
        if host is not None:
            break
        host = word
        i += 1
    return (None if host is None else [*where, host]), " ".join(argv[i:])


def _ansi_c(part: str) -> str:
    """``$'...'`` (ANSI-C quoting, where ``\\'`` is a quote) as a plain single-quoted word."""
    if "$'" not in part:
        return part

    def plain(m: re.Match[str]) -> str:
        body = m.group(1).replace("\\'", "'")
        return shlex.quote(body)

    return re.sub(r"\$'((?:[^'\\]|\\.)*)'", plain, part)


def _split(script: str) -> list[tuple[str, list[str], int]]:
    """Cut at ``; & && || | |& newline ( ) { }`` outside quotes (a ``#`` comment ends a line),
    each part with the bodies of the here-documents it opens and its pipeline's number (parts
    joined by ``|``, or grouped by parentheses, braces, a loop or a conditional, share one;
    ``;``, ``&``, ``&&``, ``||`` and a newline outside those start the next). An ``&`` of a
    redirection (``2>&1``, ``>&2``, ``<&3``, ``&>log``, ``&>>log``) cuts nothing; a
    here-document's body belongs to the part whose ``<<`` opened it, whatever follows on its
    line (``python - <<EOF | tail``, ``bash <<EOF && echo done``)."""
    parts: list[tuple[str, list[str]]] = []
    groups: list[int] = []  # each part's pipeline number
    current: list[str] = []
    # here-document delimiters opened on this line: (delimiter, tabs stripped, the index its
    # part will have in `parts`)
    pending: list[tuple[str, bool, int]] = []
    i, n = 0, len(script)
    # open parentheses, and open braces, loops and conditionals: a cut inside one does not
    # end the pipeline (`(cd x; ls) | xargs rm`, `ls | while read d; do rm "$d"; done`)
    group, parens, blocks = 0, 0, 0

    def close(cut: str = "") -> None:
        nonlocal group, parens, blocks
        text = "".join(current)
        first = text.split(None, 1)[0] if text.strip() else ""
        if first in _BLOCK_OPENS:
            blocks += 1
        elif first in _BLOCK_CLOSES:
            blocks = max(0, blocks - 1)
        parts.append((text, []))
        groups.append(group)
        current.clear()
        if cut == "(":
            parens += 1
        elif cut == ")":
            parens = max(0, parens - 1)
        elif cut != "|" and not parens and not blocks:
            group += 1

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
        elif ch == "<" and script.startswith("<<<", i):
            # a here-string, whole (its last two `<` open no here-document)
            current.append("<<<")
            i += 3
            continue
        elif ch == "<" and script.startswith("<<", i):
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
            close("\n")
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
        elif ch == "|" and current and current[-1].endswith(">"):
            current.append("|")  # `>|`: a redirection that overwrites a noclobber file
        elif ch == "|":
            if script.startswith("||", i):  # an or-list: the next pipeline
                close("||")
                i += 1
            else:  # a pipe (`|&` too: its `&` is part of it)
                close("|")
                i += 1 if script.startswith("|&", i) else 0
        elif ch in ";&\n()":
            close(ch)
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
    return [(p.strip(), b, g) for (p, b), g in zip(parts, groups, strict=True) if p.strip() or b]


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
