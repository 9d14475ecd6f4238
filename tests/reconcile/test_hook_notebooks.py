"""`labledger hook` on a Jupyter notebook executed from the shell, and on the shell commands a
local Python script starts.

``jupyter nbconvert --execute``, ``jupyter execute``, ``papermill`` and ``ipython NB.ipynb``
run a notebook's code cells. The notebook was judged by the command's words alone: a cell
``shutil.rmtree('capsules/c2')``, a line ``!rm -rf capsules/c2``, a ``%%bash`` cell or a
``%%writefile capsules/c2/metrics.json`` cell passed. Its code cells (nbformat 4: ``cells[]``
of ``cell_type`` ``"code"``, ``source`` a string or a list of lines) are now read as the
script ``python FILE`` runs is, and its IPython shell lines (``!CMD``, ``X = !CMD``,
``%sx``, ``%system``, ``%%bash``/``%%sh``/``%%script bash`` cells) as typed
(`shell_words._notebook_cells`). No Jupyter is installed here: the rows stand on nbformat's
and IPython's documentation.

A local script's written-out shell commands were not read either (``python cleanup.py`` with
``os.system("rm -rf capsules/c2")``); they are now, as ``python -c``'s are (not a computed
command: a script's strings are mostly prose). That row is run for real first.

The project is `test_hook_writes`' (``capsules/c2`` unverified; ``capsules/c3`` verifying).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


def _notebook(*cells: str | list[str], kind: str = "code") -> str:
    return json.dumps({"cells": [{"cell_type": kind, "source": c, "metadata": {},
                                  "outputs": [], "execution_count": None} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _parameterized(tagged: bool) -> str:
    """A notebook whose first cell (tagged ``parameters`` when ``tagged``) sets its output
    folder, which the next cell writes metrics into (papermill's parameterizing)."""
    data = json.loads(_notebook('out_dir = "runs/default"\n',
                                "import json, os\nos.makedirs(out_dir, exist_ok=True)\n"
                                "json.dump({}, open(os.path.join(out_dir, 'metrics.json'), 'w'))"))
    if tagged:
        data["cells"][0]["metadata"]["tags"] = ["parameters"]
    return json.dumps(data)


NOTEBOOKS = {
    "params.ipynb": _parameterized(True),
    "untagged.ipynb": _parameterized(False),
    "rmtree.ipynb": _notebook(["import shutil\n", "shutil.rmtree('capsules/c2')\n"]),
    "bang.ipynb": _notebook("x = 1\n!rm -rf capsules/c2", "print(x)"),
    "captured.ipynb": _notebook("files = !rm -rfv capsules/c2"),
    "bash.ipynb": _notebook("%%bash\nrm -rf capsules/c2\n"),
    "script.ipynb": _notebook("%%script bash\nrm -rf capsules/c2\n"),
    "writefile.ipynb": _notebook("%%writefile capsules/c2/metrics.json\n{\"acc\": 1}\n"),
    "timed.ipynb": _notebook("%%time\nimport os\nos.remove('capsules/c2/metrics.json')\n"),
    "system.ipynb": _notebook("import os\nos.system('rm -rf capsules/c2')"),
    "torch.ipynb": _notebook("import torch\ntorch.save({}, 'capsules/c2/metrics.json')"),
    "cd.ipynb": _notebook("%cd capsules\n", "import shutil\nshutil.rmtree('c2')"),
    # harmless ones
    "plot.ipynb": _notebook("%matplotlib inline\nimport torch\nprint(torch.ones(2))",
                            "!ls capsules/c2", "!nvidia-smi"),
    "markdown.ipynb": _notebook("rm -rf capsules/c2", kind="markdown"),
    "broken.ipynb": _notebook("def (:\n", "print(1)"),
    "html.ipynb": _notebook("%%html\n<p>rm -rf capsules/c2</p>"),
    "verified.ipynb": _notebook("import shutil\nshutil.rmtree('capsules/c3')"),
}


@pytest.fixture
def notebooks(box: Path) -> Path:  # noqa: F811
    for name, text in NOTEBOOKS.items():
        (box / name).write_text(text)
    (box / "not-json.ipynb").write_text("{ not json")
    (box / "params.yaml").write_text("out_dir: capsules/c2\nlr: 0.1\n")
    (box / "cleanup.py").write_text("import os\nos.system('rm -rf capsules/c2')\n")
    (box / "tidy.py").write_text(
        "import subprocess\nsubprocess.run(['rm', '-rf', 'build'])\n"
        "CMD = 'rm -rf capsules/c2'  # (prose a computed command never runs)\n"
        "subprocess.run(input('cmd? '), shell=True)\n")
    return box


@pytest.mark.parametrize("command", [
    "jupyter nbconvert --to notebook --execute rmtree.ipynb",
    "jupyter nbconvert --execute --inplace bang.ipynb",
    "jupyter-nbconvert --execute captured.ipynb",
    "jupyter execute bash.ipynb",
    "jupyter execute plot.ipynb script.ipynb",
    "papermill writefile.ipynb out.ipynb -p lr 0.1",
    "papermill timed.ipynb out.ipynb",
    "ipython system.ipynb",
    "jupyter nbconvert --execute --to html torch.ipynb",
    "jupyter nbconvert --execute cd.ipynb",
    "python cleanup.py",
    "ipython cleanup.py",
    # papermill's parameters, injected after the cell tagged "parameters" (papermill 2.6:
    # -p/--parameters NAME VALUE, -r/--parameters_raw, -y/--parameters_yaml, -f FILE)
    "papermill params.ipynb out.ipynb -p out_dir capsules/c2",
    "papermill params.ipynb out.ipynb --parameters out_dir capsules/c2 -p lr 0.1",
    "papermill params.ipynb out.ipynb -r out_dir capsules/c2",
    "papermill params.ipynb out.ipynb -y 'out_dir: capsules/c2'",
    "papermill params.ipynb out.ipynb -f params.yaml",
])
def test_what_a_notebook_or_script_runs_is_judged(notebooks: Path, command: str) -> None:
    verdict = _judged(notebooks, command)
    assert not verdict.allowed, command
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "jupyter nbconvert --to html rmtree.ipynb",  # converted, not executed
    "jupyter nbconvert --execute plot.ipynb",
    "jupyter execute markdown.ipynb broken.ipynb html.ipynb",
    "papermill plot.ipynb capsules/new.ipynb",
    "jupyter nbconvert --execute verified.ipynb",  # its stored copy verifies
    "jupyter nbconvert --execute not-json.ipynb",
    "jupyter nbconvert --execute missing.ipynb",
    "jupyter notebook rmtree.ipynb",  # opens it: a person runs the cells
    "python tidy.py",
    "papermill params.ipynb out.ipynb",  # its own parameters: runs/default
    "papermill params.ipynb out.ipynb -p out_dir runs/new",
    "papermill params.ipynb out.ipynb -y 'out_dir: [not yaml'",
    # no cell tagged "parameters": papermill injects them first, and the notebook's own
    # assignment after them wins
    "papermill untagged.ipynb out.ipynb -p out_dir capsules/c2",
])
def test_what_spares_the_capsule_passes(notebooks: Path, command: str) -> None:
    verdict = _judged(notebooks, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_the_script_really_deletes_the_capsule(notebooks: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(notebooks, copy, symlinks=True)
    subprocess.run([sys.executable, "cleanup.py"], cwd=copy, check=True, timeout=60,
                   capture_output=True)
    assert not (copy / "capsules" / "c2").exists()


_CELL_PARTS = ["%%bash\n", "%%script\n", "%%writefile", " capsules/c2/m.json\n", "!rm -rf ",
               "capsules/c2", "\n", "x = !ls\n", "%cd ", "..", "%%time\n", "import os\n",
               "os.system('rm -rf build')\n", "def (", "'''", "\x00", "\udcff", "%sx ", "  "]
_SOURCES = st.one_of(st.lists(st.sampled_from(_CELL_PARTS), max_size=10).map("".join),
                     st.lists(st.sampled_from(_CELL_PARTS), max_size=6), st.none(),
                     st.integers())


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(st.fixed_dictionaries({"cell_type": st.sampled_from(["code", "raw", 1]),
                                             "source": _SOURCES}), max_size=5),
       wrap=st.sampled_from(["cells", "list", "text"]))
def test_any_notebook_gets_one_verdict(box: Path, cells: list[dict[str, object]],  # noqa: F811
                                       wrap: str) -> None:
    data: object = {"cells": cells} if wrap == "cells" else cells if wrap == "list" else "x"
    (box / "nb.ipynb").write_bytes(json.dumps(data).encode("utf-8", "surrogatepass"))
    first = _judged(box, "jupyter nbconvert --execute nb.ipynb")
    again = _judged(box, "jupyter nbconvert --execute nb.ipynb")
    assert (first.allowed, first.reasons) == (again.allowed, again.reasons)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # (one file, read only)
@given(args=st.lists(st.sampled_from(["-p", "-r", "-y", "-f", "--parameters", "out_dir",
                                      "capsules/c2", "1", "x y", "a: [b", "{a: 1}", "- 1",
                                      "params.yaml", "$X", "", "\x00", "\udcff"]), max_size=8))
def test_papermill_parameters_are_python_or_nothing(tmp_path: Path, args: list[str]) -> None:
    """Whatever papermill's words, its injected cell is Python that parses (or empty)."""
    import ast

    from labledger.reconcile.shell_words import _Files, _papermill_parameters

    (tmp_path / "params.yaml").write_text("out_dir: capsules/c2\nlist: [1, 2]\n")
    cell = _papermill_parameters(args, _Files(str(tmp_path), {}))
    ast.parse(cell)
    assert all(line.split(" = ", 1)[0].isidentifier() for line in cell.splitlines())
