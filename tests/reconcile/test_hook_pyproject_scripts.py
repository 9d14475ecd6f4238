"""`labledger hook` on ``pdm run NAME``, ``hatch run NAME`` and ``poe NAME``: the scripts of
``pyproject.toml``.

A ``clean = "rm -rf capsules/c2"`` script passed unjudged behind ``pdm run clean`` (pdm's
``run`` was read as running a command named ``clean``), ``hatch run clean`` and ``poe clean``.
Each script is now judged as if typed in the project's folder, named by its script
(`pyproject_scripts`): pdm's ``cmd``/``shell``/``composite`` and ``pre_``/``post_`` scripts,
hatch's scripts of an environment (lists, ``{args}``, scripts naming scripts), poethepoet's
``cmd``/``shell``/``sequence``/``ref`` tasks. What poe runs is checked against poe itself (the
dev extras install poethepoet); pdm's and hatch's rows stand on their documentation.

The project is `test_hook_writes`' (``capsules/c2`` unverified).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.pyproject_scripts import pyproject_lines
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture

PYPROJECT = """[project]
name = "lab"

[tool.pdm.scripts]
clean = "rm -rf capsules/c2"
pre_tidy = "rm -rf capsules/c2"
tidy = "echo tidy"
wipe = {shell = "rm -rf capsules/* && echo gone"}
all = {composite = ["lint", "clean"]}
lint = {cmd = ["ruff", "check"]}
serve = {call = "lab.app:main"}

[tool.hatch.envs.default.scripts]
clean = ["rm -rf build", "rm -rf capsules/c2"]
test = "pytest {args}"
full = ["clean", "echo ok"]

[tool.hatch.envs.docs.scripts]
clean = "rm -rf site"

[tool.poe.tasks]
clean = "rm -rf capsules/c2"
wipe = {shell = "rm -rf capsules"}
all = {sequence = ["fmt", "clean"]}
alias = {ref = "clean"}
fmt = "ruff format"
fn = {script = "lab.app:main"}
"""


@pytest.mark.parametrize("command", [
    "pdm run clean", "pdm run tidy", "pdm run wipe", "pdm run all", "pdm -p . run clean",
    "hatch run clean", "hatch run default:clean", "hatch run full",
    "poe clean", "poe wipe", "poe all", "poe alias", "poe -C . clean",
    "cd src && pdm run clean",  # the project's folder is the one up
])
def test_a_script_that_deletes_a_capsule_is_blocked(box: Path, command: str) -> None:  # noqa: F811
    (box / "pyproject.toml").write_text(PYPROJECT)
    (box / "src").mkdir(exist_ok=True)
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("in `pyproject.toml` script `" in r and "capsules/c2" in r
               for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "pdm run lint", "pdm run serve", "pdm run python train.py", "pdm list",
    "hatch run test -k fast", "hatch run docs:clean", "hatch run nope",
    "poe fmt", "poe fn", "poe nope", "poe --help",
])
def test_scripts_that_spare_it_pass(box: Path, command: str) -> None:  # noqa: F811
    (box / "pyproject.toml").write_text(PYPROJECT)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_no_pyproject_runs_nothing(box: Path) -> None:  # noqa: F811
    assert _judged(box, "poe clean").allowed


_ECHOES = """[project]
name = "t"
[tool.poe.tasks]
one = "echo ONE"
sh = {shell = "echo SH && echo SH2"}
seq = {sequence = ["one", {cmd = "echo INLINE"}]}
alias = {ref = "one"}
args = "echo ARGS"
"""


@pytest.mark.parametrize("args", [["one"], ["sh"], ["seq"], ["alias"], ["args", "x", "y z"]])
def test_what_real_poe_runs(tmp_path: Path, args: list[str]) -> None:
    """Against poe itself: each task echoes; what poe prints running it is what the lines
    read here print."""
    poe = shutil.which("poe", path=str(Path(sys.executable).parent))
    assert poe is not None, "poe is needed: the dev extras install poethepoet"
    (tmp_path / "pyproject.toml").write_text(_ECHOES)
    real = subprocess.run([poe, "-q", *args], cwd=tmp_path, capture_output=True, text=True,
                          check=True, timeout=60)
    lines = pyproject_lines("poe", args, _ECHOES) or []
    echoed = "".join(subprocess.run(["sh", "-c", line], capture_output=True, text=True,
                                    check=True).stdout for _, line in lines)
    assert echoed == real.stdout


@given(st.text(max_size=300), st.sampled_from(["pdm", "hatch", "poe"]),
       st.lists(st.sampled_from(["run", "clean", "-p", ".", "x:clean", "--", "-l"]),
                max_size=4))
def test_any_text_and_words_give_lines_or_none(text: str, tool: str, args: list[str]) -> None:
    found = pyproject_lines(tool, args, text)
    assert found is None or all(isinstance(line, str) for _, line in found)


_SHAPES = st.recursive(
    st.none() | st.booleans() | st.integers()
    | st.sampled_from(["clean", "rm -rf x", "{args}", "clean 'open", "clean a b"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["clean", "cmd", "shell", "composite", "sequence", "ref", "pre_clean",
                         "scripts"]), inner, max_size=3), max_leaves=12)


@given(_SHAPES, st.lists(st.sampled_from(["a", "b c"]), max_size=2))
def test_scripts_of_any_shape_give_lines(scripts: object, extra: list[str]) -> None:
    """Whatever a pyproject's tables hold once parsed (TOML can hold any of these shapes)."""
    from labledger.reconcile import pyproject_scripts as ps

    table = scripts if isinstance(scripts, dict) else {"clean": scripts}
    for found in (ps._pdm(table, "clean", extra, 0), ps._hatch(table, "clean", extra, 0),
                  ps._poe(table, "clean", table.get("clean"), extra, 0)):
        assert all(isinstance(line, str) for _, line in found)
