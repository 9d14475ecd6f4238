"""Every shell command in the docs runs as written, with the exit code the page says.

The conventions (docs/README.md explains them to writers):

* Only ```` ```console ```` blocks run. In them a line starting with ``$ `` is a command; every
  other line is its output as a terminal shows it. A command continues on the next line after a
  trailing backslash, and a here-document (``<<'EOF'``) continues up to its delimiter line.
* A command must exit 0 unless its line ends with the comment ``# exit N`` (a shell ignores it,
  so the line still runs as written when pasted).
* Each page runs in order, in one ``bash`` session (so ``cd`` and variables carry over), in a
  fresh empty folder with the real ``labledger`` console script first on ``PATH``, ``HOME`` in
  the temp folder, no ``LABLEDGER_*`` variables except ``LABLEDGER_WRITER=laptop`` and
  ``LABLEDGER_ACTOR=me@laptop`` (fixed, so JSON keyed by writer is the same everywhere), and
  stdin from /dev/null.
* Setup is part of the page: a console block that creates what the next commands need
  (``$ mkdir``, ``$ python -c ...``, ``$ cat > train.py <<'EOF'``) runs like any other.
* ``<!-- docs-test: sshd -->`` on the line(s) before a console block says it needs an SSH
  server: the test starts the real OpenSSH server of tests/conftest.py and writes
  ``$HOME/.ssh/config`` with ``Host gpubox`` pointing at it (user, port, key), so the block can
  use ``--from gpubox:DIR``. Anything else that cannot run here goes in a ```` ```text ```` block.
* When the output shown under a command is JSON (one document, or one object per line), the real
  output (stdout, else stderr) must have the same shape: the same keys in every object, compared
  recursively (lists by their first element). Values are not compared (ids, times differ).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
BIN = Path(sys.executable).parent
PAGE_TIMEOUT = 600
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*(?P<words>.*?)\s*-->\s*$")
EXIT = re.compile(r"\s#\s*exit\s+(?P<code>\d+)\s*$")
HEREDOC = re.compile(r"<<-?\s*(?P<q>['\"]?)(?P<word>[A-Za-z_][A-Za-z0-9_]*)(?P=q)")
KNOWN_DIRECTIVES = {"sshd"}
# torch without numpy warns on import; `fill` keeps that out of the pages.
NOISE = re.compile(r"Failed to initialize NumPy|cpu = _conversion_method_template")

@dataclass
class Command:
    line: int
    text: str
    expect: int
    output: list[str] = field(default_factory=list)
    sshd: bool = False

    def shown(self) -> str:
        return "\n".join(self.output).strip()


def parse(text: str) -> list[Command]:
    """The commands of every console block of a Markdown page, in order."""
    lines = text.splitlines()
    commands: list[Command] = []
    directives: set[str] = set()
    i = 0
    while i < len(lines):
        d = DIRECTIVE.match(lines[i])
        if d:
            words = set(d["words"].split())
            unknown = words - KNOWN_DIRECTIVES
            if unknown:
                raise ValueError(f"line {i + 1}: unknown docs-test directive {sorted(unknown)}")
            directives |= words
            i += 1
            continue
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                directives = set()
            i += 1
            continue
        fence, info, indent = m["fence"], m["info"].strip(), len(m["indent"])
        body_start = i + 1
        j = body_start
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and not lines[j].strip().strip(fence[0])):
            j += 1
        if info.split()[:1] == ["console"]:
            body = [ln[indent:] if ln[:indent].isspace() else ln
                    for ln in lines[body_start:j]]
            commands += _commands(body, body_start + 1, "sshd" in directives)
        directives = set()
        i = j + 1
    return commands


def _commands(body: list[str], first_line: int, sshd: bool) -> list[Command]:
    found: list[Command] = []
    k = 0
    while k < len(body):
        line = body[k]
        if not line.startswith("$ "):
            if found:
                found[-1].output.append(line)
            k += 1
            continue
        start = k
        shell = [line[2:]]
        heredocs = [h["word"] for h in HEREDOC.finditer(shell[0])]
        while shell[-1].endswith("\\") and k + 1 < len(body):
            k += 1
            shell.append(body[k])
            heredocs += [h["word"] for h in HEREDOC.finditer(body[k])]
        lines = list(shell)
        for word in heredocs:
            while k + 1 < len(body):
                k += 1
                lines.append(body[k])
                if body[k] == word:
                    break
        codes = [int(e["code"]) for s in shell if (e := EXIT.search(s))]
        found.append(Command(line=first_line + start, text="\n".join(lines),
                             expect=codes[-1] if codes else 0, sshd=sshd))
        k += 1
    return found


def _json(text: str) -> Any:
    """The JSON shown or printed: one document, or a list of JSON lines; None if not JSON."""
    text = text.strip()
    if not text or text[0] not in "[{":
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        return None


def shape_diff(shown: Any, real: Any, where: str = "$") -> list[str]:
    """Where the keys of the documented JSON differ from the real output's."""
    if isinstance(shown, dict) and isinstance(real, dict):
        problems = []
        if set(shown) != set(real):
            problems.append(f"{where}: documented keys {sorted(shown)} but the command printed "
                            f"{sorted(real)}")
        for key in set(shown) & set(real):
            problems += shape_diff(shown[key], real[key], f"{where}.{key}")
        return problems
    if isinstance(shown, list) and isinstance(real, list) and shown and real:
        return shape_diff(shown[0], real[0], f"{where}[0]")
    return []


def _ssh_config(home: Path, sshd: Any) -> None:
    ssh = home / ".ssh"
    ssh.mkdir(mode=0o700, parents=True, exist_ok=True)
    (ssh / "config").write_text(
        f"Host gpubox\n    HostName 127.0.0.1\n    Port {sshd.port}\n    User {sshd.user}\n"
        f"    IdentityFile {sshd.client_key}\n", encoding="utf-8")


@dataclass
class Results:
    codes: dict[str, str]
    stdout: list[str]
    stderr: list[str]
    script_err: str


def execute(commands: list[Command], tmp: Path, sshd: Any = None, *,
            merged: bool = False) -> Results:
    """Run a page's commands in one bash session (stderr into stdout when ``merged``)."""
    work, home, out = tmp / "work", tmp / "home", tmp / "out"
    for folder in (work, home, out, tmp / "tmp"):
        folder.mkdir()
    if sshd is not None:
        _ssh_config(home, sshd)
    rc = out / "rc"
    script = ["set +e", f"cd {shlex.quote(str(work))}"]
    for n, cmd in enumerate(commands):
        err = "&1" if merged else str(out / f"{n}.err")
        script.append(f"{{ {cmd.text}\n}} >{out / f'{n}.out'} 2>{err} </dev/null")
        script.append(f'echo "{n} $?" >>{rc}')
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LABLEDGER_") and k not in ("SSH_AUTH_SOCK", "CDPATH")}
    env.update(PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
               HOME=str(home), TMPDIR=str(tmp / "tmp"), LABLEDGER_WRITER="laptop",
               LABLEDGER_ACTOR="me@laptop", COLUMNS="100")
    proc = subprocess.Popen(["bash", "--noprofile", "--norc", "-c", "\n".join(script)],
                            env=env, cwd=work, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _, script_err = proc.communicate(timeout=PAGE_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, script_err = proc.communicate()
    codes = dict(line.split() for line in rc.read_text().splitlines()) if rc.exists() else {}

    def read(name: str) -> str:
        path = out / name
        return path.read_text(errors="replace") if path.exists() else ""

    return Results(codes=codes, stdout=[read(f"{n}.out") for n in range(len(commands))],
                   stderr=[read(f"{n}.err") for n in range(len(commands))],
                   script_err=script_err.decode(errors="replace"))


def run_page(commands: list[Command], tmp: Path, sshd: Any = None) -> list[str]:
    """Run a page's commands in one bash session; return a message per unexpected result."""
    result = execute(commands, tmp, sshd)
    problems = []
    for n, cmd in enumerate(commands):
        where = f"line {cmd.line}: $ {cmd.text.splitlines()[0]}"
        if str(n) not in result.codes:
            problems.append(f"{where}\n    did not finish within {PAGE_TIMEOUT} s "
                            f"({result.script_err[-500:]})")
            break
        stdout, stderr = result.stdout[n], result.stderr[n]
        got = int(result.codes[str(n)])
        if got != cmd.expect:
            problems.append(f"{where}\n    expected exit {cmd.expect}, got {got}\n"
                            f"    stdout: {stdout[-1500:]!r}\n    stderr: {stderr[-1500:]!r}")
            continue
        shown = _json(cmd.shown())
        if shown is not None:
            real = _json(stdout) if stdout.strip() else _json(stderr)
            if real is None:
                problems.append(f"{where}\n    the page shows JSON, the command printed "
                                f"{(stdout or stderr)[-500:]!r}")
            else:
                problems += [f"{where}\n    {p}" for p in shape_diff(shown, real)]
    return problems


def _pages() -> list[Any]:
    pages = [pytest.param(p, id=f"docs/{p.name}") for p in sorted(DOCS.glob("*.md"))]
    pages.append(pytest.param(REPO / "README.md", id="README.md"))
    return pages


@pytest.mark.slow
@pytest.mark.parametrize("page", _pages())
def test_page_commands_run_as_written(page: Path, tmp_path: Path,
                                      request: pytest.FixtureRequest) -> None:
    commands = parse(page.read_text(encoding="utf-8"))
    if not commands:
        return  # nothing to run (a reference page); the fence test below still checks it
    sshd = request.getfixturevalue("sshd") if any(c.sshd for c in commands) else None
    problems = run_page(commands, tmp_path, sshd)
    assert not problems, f"{page.relative_to(REPO)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", [*sorted(DOCS.glob("*.md")), REPO / "README.md"],
                         ids=lambda p: str(p.relative_to(REPO)))
def test_fences_are_labelled(page: Path) -> None:
    """Every fence says what it holds; shell sessions are `console`, never bash/sh/shell."""
    problems = []
    in_block: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        m = FENCE.match(line)
        if not m:
            continue
        if in_block is None:
            in_block = m["fence"]
            if not m["info"].strip():
                problems.append(f"line {number}: a fence without a language (console, text, ...)")
            elif m["info"].split()[0] in ("bash", "sh", "shell", "shell-session", "zsh"):
                problems.append(f"line {number}: ```{m['info'].strip()}: use ```console with "
                                "`$ ` prompts (it runs) or ```text (it does not)")
        elif m["fence"].startswith(in_block) and not m["info"].strip():
            in_block = None
    assert not problems, f"{page.name}:\n" + "\n".join(problems)


def test_index_links_every_page() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    missing = [p.name for p in sorted(DOCS.glob("*.md"))
               if p.name not in ("index.md",) and f"]({p.name})" not in index]
    assert not missing, f"docs/index.md does not link {missing}"


# --- the harness itself -----------------------------------------------------------------------
SAMPLE = """\
Text.

```console
$ labledger init
Initialized empty labledger ledger in /tmp/x/.labledger
$ labledger gate teardown \\
    --instance box1          # exit 3
gate REFUSED
$ cat > a.toml <<'EOF'
x = 1
EOF
$ labledger sql --json 'select 1 as one'
[{"one": 1}]
```

```text
$ labledger not-run
```

<!-- docs-test: sshd -->

```console
$ labledger pull --run r1 --from gpubox:/x
```
"""


def test_parse_reads_commands_exits_heredocs_and_directives() -> None:
    commands = parse(SAMPLE)
    assert [c.text.splitlines()[0] for c in commands] == [
        "labledger init", "labledger gate teardown \\", "cat > a.toml <<'EOF'",
        "labledger sql --json 'select 1 as one'", "labledger pull --run r1 --from gpubox:/x"]
    assert [c.expect for c in commands] == [0, 3, 0, 0, 0]
    assert [c.line for c in commands] == [4, 6, 9, 12, 23]
    assert commands[2].text == "cat > a.toml <<'EOF'\nx = 1\nEOF"
    assert [c.sshd for c in commands] == [False, False, False, False, True]
    assert _json(commands[3].shown()) == [{"one": 1}]


def test_unknown_directive_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown docs-test directive"):
        parse("<!-- docs-test: skip -->\n```console\n$ true\n```\n")


def test_shape_diff_names_missing_and_extra_keys() -> None:
    assert shape_diff({"a": 1, "b": [{"c": 1}]}, {"a": 2, "b": [{"c": 3}, {}]}) == []
    problems = shape_diff({"a": 1, "b": [{"c": 1}]}, {"a": 2, "b": [{"d": 3}]})
    assert problems == ["$.b[0]: documented keys ['c'] but the command printed ['d']"]


def test_run_page_reports_an_unexpected_exit(tmp_path: Path) -> None:
    commands = parse("```console\n$ true\n$ false   # exit 1\n$ exit_is_not_a_command\n"
                     "$ echo '{\"a\": 1}'\n{\"b\": 2}\n```\n")
    problems = run_page(commands, tmp_path)
    assert len(problems) == 2
    assert "expected exit 0, got 127" in problems[0]
    assert "documented keys ['b']" in problems[1]


def fill(page: Path) -> None:
    """Replace each output that is a single `?` line with what the command really printed.

    For writers: ``python tests/docs/test_docs_commands.py docs/PAGE.md``. The project folder
    shows as /home/me/denoise; an unexpected exit code is reported on stderr.
    """
    import tempfile

    text = page.read_text(encoding="utf-8")
    commands = parse(text)
    server = None
    if any(c.sshd for c in commands):
        sys.path.insert(0, str(REPO / "tests"))
        from conftest import Sshd  # the same server the sshd fixture starts

        server = Sshd(Path(tempfile.mkdtemp()) / "sshd")
    with tempfile.TemporaryDirectory() as folder:
        result = execute(commands, Path(folder), server, merged=True)
        shown = ["\n".join(line for line in out.replace(str(Path(folder) / "work"),
                                                       "/home/me/denoise").splitlines()
                           if not NOISE.search(line))
                 for out in result.stdout]
    if server is not None:
        server.stop()
    lines, filled = text.splitlines(), []
    by_line = {c.line: (n, c) for n, c in enumerate(commands)}
    i = 0
    while i < len(lines):
        filled.append(lines[i])
        if i + 1 in by_line:
            n, cmd = by_line[i + 1]
            size = len(cmd.text.splitlines())
            filled += lines[i + 1:i + size]
            i += size
            if result.codes.get(str(n)) != str(cmd.expect):
                sys.stderr.write(f"{page}:{cmd.line}: exit {result.codes.get(str(n))}, "
                                 f"expected {cmd.expect}\n{shown[n][-800:]}\n")
            if i < len(lines) and lines[i] == "?":
                filled += shown[n].splitlines()
                i += 1
            continue
        i += 1
    page.write_text("\n".join(filled) + "\n", encoding="utf-8")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        fill(Path(name))
