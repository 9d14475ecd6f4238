"""`labledger hook` on ``dvc repro`` and ``dvc exp run``: a pipeline's stages from ``dvc.yaml``.

dvc.org, "repro": "Stage outputs are deleted from the workspace before executing the stage
commands that produce them (unless ``persist: true`` is used in dvc.yaml)". A stage whose
``outs`` held a sealed capsule was re-run unjudged, the capsule deleted first; so was a stage
whose ``cmd`` deletes one. Each stage that may run (the named ones and those they depend on;
every one without a target: which changed since ``dvc.lock`` is not computed here, fail
closed) now has its outputs judged as ``rm -rf`` of them and its commands as typed in its
``wdir``, named by the stage (`dvc_stages`). DVC is not installed here: the rows stand on its
documentation.

The project is `test_hook_writes`' (``capsules/c2`` unverified; ``capsules/c3`` verifying).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.dvc_stages import StageLine, dvc_run, stage_lines
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture

PIPELINE = """stages:
  prepare:
    cmd: python -c "print('prep')"
    outs:
      - capsules/c2
  train:
    cmd:
      - python -c "print('train')"
      - echo done
    deps:
      - capsules/c2/metrics.json
    outs:
      - runs/new
      - logs:
          persist: true
  tidy:
    wdir: capsules
    cmd: rm -rf c2
  sweep:
    foreach: [1, 2]
    do:
      cmd: echo ${item}
      outs:
        - capsules/c3
  report:
    cmd: echo report
    outs:
      - report.md
"""
# a stage whose metric, in the capsule, persists: DVC keeps it in place while the stage runs
PERSISTING = """stages:
  evaluate:
    cmd: echo eval
    metrics:
      - capsules/c2/metrics.json:
          cache: false
          persist: true
"""


@pytest.mark.parametrize(("args", "targets"), [
    (["repro"], ()), (["repro", "train"], ("train",)), (["exp", "run", "-f", "train"],
                                                       ("train",)),
    (["repro", "--glob", "tr*", "report"], ("report",)), (["repro", "sub/dvc.yaml:train"],
                                                          ("sub/dvc.yaml:train",)),
])
def test_what_runs(args: list[str], targets: tuple[str, ...]) -> None:
    run = dvc_run(args)
    assert run is not None
    assert run.targets == targets


@pytest.mark.parametrize("args", [["repro", "--dry"], ["status"], ["exp", "show"],
                                  ["repro", "--help"], ["pull"]])
def test_what_runs_nothing(args: list[str]) -> None:
    assert dvc_run(args) is None


def test_a_stage_removes_its_outputs_then_runs_its_commands() -> None:
    lines = stage_lines(PIPELINE, ["train"])
    assert lines == [
        StageLine("prepare", "rm", "capsules/c2", "."),  # upstream: its output is an input
        StageLine("prepare", "cmd", "python -c \"print('prep')\"", "."),
        StageLine("train", "rm", "runs/new", "."),  # (logs persists)
        StageLine("train", "cmd", "python -c \"print('train')\"", "."),
        StageLine("train", "cmd", "echo done", "."),
    ]
    assert [line.text for line in stage_lines(PERSISTING, [])] == ["echo eval"]


@pytest.mark.parametrize("command", [
    "dvc repro",
    "dvc repro prepare",
    "dvc repro train",  # prepare runs first
    "dvc exp run train",
    "dvc repro -f dvc.yaml:prepare",
    "dvc repro dvc.yaml",
    "dvc repro tidy",  # its command deletes it, from its wdir
    "cd src && dvc repro ../dvc.yaml:prepare",
])
def test_a_stage_that_deletes_a_capsule_is_blocked(box: Path, command: str) -> None:  # noqa: F811
    (box / "dvc.yaml").write_text(PIPELINE)
    (box / "src").mkdir(exist_ok=True)
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("in `dvc.yaml` stage `" in r and "capsules/c2" in r
               for r in verdict.reasons), verdict.reasons


def test_a_persisting_output_passes(box: Path) -> None:  # noqa: F811
    (box / "dvc.yaml").write_text(PERSISTING)
    assert _judged(box, "dvc repro evaluate").allowed


@pytest.mark.parametrize("command", [
    "dvc repro sweep",  # c3's stored copy verifies
    "dvc repro report",
    "dvc repro --dry",
    "dvc status",
    "dvc repro nope",
    "cd src && dvc repro",  # no dvc.yaml there: DVC refuses
])
def test_stages_that_spare_it_pass(box: Path, command: str) -> None:  # noqa: F811
    (box / "dvc.yaml").write_text(PIPELINE)
    (box / "src").mkdir(exist_ok=True)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@given(st.text(max_size=300), st.lists(st.sampled_from(["train", "x", ""]), max_size=2))
def test_any_text_gives_stages_or_none(text: str, targets: list[str]) -> None:
    assert all(isinstance(line, StageLine) for line in stage_lines(text, targets))


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["stages", "cmd", "outs", "deps", "do",
                                                       "wdir", "persist", "a"]),
                                      inner, max_size=3), max_leaves=15))
def test_any_shape_gives_stages_or_none(data: object) -> None:
    import json

    assert all(isinstance(line, StageLine) for line in stage_lines(json.dumps(data), []))
