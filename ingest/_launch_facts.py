"""What `labledger run` learns about a launch before the command starts, gathered in parallel.

git (commit, dirty flag, `git diff HEAD`), the interpreter that will run the command and GPU
names are each a subprocess started at once and collected with a timeout, so the launch waits
for the slowest probe, not their sum. A probe that fails or times out leaves its field empty;
nothing here raises for a missing tool.

The interpreter's Python, PyTorch and PyTorch-CUDA versions are read without importing torch
(package metadata and ``torch/version.py``): an import costs seconds and may initialise CUDA.
The interpreter is ``argv[0]`` when it is a ``python``, the ``#!`` interpreter of a console
script (``torchrun``, ``accelerate``, ``deepspeed``), else the first ``python3`` on the
command's PATH (a guess, recorded as such). It is probed in-process when it is this interpreter.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PROBE_TIMEOUT_S", "Facts", "gather", "interpreter_facts"]

PROBE_TIMEOUT_S = 10.0
_PYTHON_RE = re.compile(r"^python(\d+(\.\d+)?)?$")

# Runs in the command's interpreter (or in-process when that is this one). It must not import
# torch: reading metadata and torch/version.py costs milliseconds, an import costs seconds.
_PROBE = r'''
def facts():
    import importlib.metadata as md, importlib.util as iu, os, re, sys
    out = {"python": sys.version.split()[0], "executable": sys.executable}
    try:
        out["torch"] = md.version("torch")
    except Exception:
        return out
    try:
        spec = iu.find_spec("torch")
        origin = spec.origin if spec is not None else None
        if origin:
            with open(os.path.join(os.path.dirname(origin), "version.py"), encoding="utf-8") as fh:
                text = fh.read()
            m = re.search(r"^cuda\s*(?::[^=\n]*)?=\s*['\"]([^'\"\n]+)['\"]", text, re.M)
            if m:
                out["cuda"] = m.group(1)
    except Exception:
        pass
    return out
'''


def _spawn(args: Sequence[str], cwd: str, env: Mapping[str, str] | None = None
           ) -> subprocess.Popen[bytes] | None:
    try:
        return subprocess.Popen(list(args), cwd=cwd, env=dict(env) if env is not None else None,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _collect(proc: subprocess.Popen[bytes] | None) -> bytes | None:
    """stdout of a finished probe, or None when it failed or ran past the timeout."""
    if proc is None:
        return None
    try:
        out, _ = proc.communicate(timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return out if proc.returncode == 0 else None


def _shebang_python(exe: str, path: str | None) -> str | None:
    """The Python interpreter named by a script's ``#!`` line (console scripts such as
    ``torchrun``, ``accelerate`` or ``deepspeed`` have one), else None."""
    try:
        with open(exe, "rb") as fh:
            head = fh.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and Path(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
        return shutil.which(words[0], path=path) if words and _PYTHON_RE.match(words[0]) else None
    return words[0] if words and _PYTHON_RE.match(Path(words[0]).name) else None


def _python_of(argv: Sequence[str], env: Mapping[str, str]) -> tuple[str | None, str]:
    """The interpreter whose versions describe the command, and how it was found: ``command``
    (``python ...``), ``shebang`` (a Python console script) or ``PATH`` (a guess for anything
    else: the first ``python3``/``python`` the command would find)."""
    path = env.get("PATH")
    exe = shutil.which(argv[0], path=path) if argv else None
    if argv and _PYTHON_RE.match(Path(argv[0]).name):
        return exe, "command"
    if exe is not None:
        found = _shebang_python(exe, path)
        if found is not None:
            return found, "shebang"
    return shutil.which("python3", path=path) or shutil.which("python", path=path), "PATH"


def interpreter_facts() -> dict[str, str]:
    """Python, PyTorch and PyTorch-CUDA versions of this interpreter (never imports torch)."""
    namespace: dict[str, Any] = {}
    exec(_PROBE, namespace)  # the same code the child-interpreter probe runs
    facts: dict[str, str] = namespace["facts"]()
    return facts


@dataclass
class Facts:
    """The launch facts; None/empty where a probe failed."""

    commit: str | None = None
    dirty: bool | None = None
    diff: bytes | None = None
    untracked: int | None = None
    interpreter: dict[str, str] = field(default_factory=dict)
    gpus: list[str] = field(default_factory=list)
    driver: str | None = None
    config: bytes | None = None


def gather(argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> Facts:
    git = ["git", "-c", "core.quotepath=off", "--no-pager"]
    git_env = {**env, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    procs = {
        "head": _spawn([*git, "rev-parse", "--verify", "-q", "HEAD"], cwd, git_env),
        "status": _spawn([*git, "status", "--porcelain=v1", "--untracked-files=normal"], cwd,
                         git_env),
        "diff": _spawn([*git, "diff", "HEAD", "--no-color", "--no-ext-diff"], cwd, git_env),
    }
    python, source = _python_of(argv, env)
    own = python is not None and os.path.realpath(python) == os.path.realpath(sys.executable)
    if python is not None and not own:
        probe = _PROBE + "\nimport json\nprint(json.dumps(facts()))"
        procs["python"] = _spawn([python, "-c", probe], cwd, env)
    smi = shutil.which("nvidia-smi", path=env.get("PATH"))
    if smi is not None:
        procs["gpus"] = _spawn([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                               cwd, env)
    out = {name: _collect(proc) for name, proc in procs.items()}
    facts = Facts()
    if out["head"]:
        facts.commit = out["head"].decode("ascii", "replace").strip() or None
    if out["status"] is not None:
        lines = [ln for ln in out["status"].decode("utf-8", "replace").splitlines() if ln]
        facts.dirty = any(not ln.startswith("??") for ln in lines)
        facts.untracked = sum(ln.startswith("??") for ln in lines)
        if facts.dirty and out["diff"] is not None:
            facts.diff = out["diff"]
    if "python" in procs:
        try:
            parsed = json.loads(out["python"] or b"{}")
            facts.interpreter = {str(k): str(v) for k, v in parsed.items()}
        except ValueError:
            pass
    elif own:
        facts.interpreter = interpreter_facts()
    if facts.interpreter:
        facts.interpreter["source"] = source
    gpu_lines = out.get("gpus")
    if gpu_lines:
        for line in gpu_lines.decode("utf-8", "replace").splitlines():
            name, _, driver = line.rpartition(",")
            if name.strip():
                facts.gpus.append(name.strip())
                facts.driver = driver.strip() or facts.driver
    return facts
