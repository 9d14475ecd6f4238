"""`pull --from/--from-dir --instance NEW` with an id no event names yet.

Before, it was silent: a typo (``vast-132`` for ``vast-123``) recorded the pull for a box that
does not exist, and the teardown gate of the real box kept refusing with no hint why. Now the
pull still goes on (it is how an owned box, or the second box of a resumed run, enters the
ledger), but says on stderr, before the box is reached, that the id is close to a known one
(a warning, even with --json or -q), or, for an id like no other, that the run is recorded on
other boxes only (a note).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cli_call as call

pytestmark = pytest.mark.usefixtures("pull_project")  # conftest: the project, its own HOME


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """A finished run's folder, no checkpoint (nothing to load: these tests are about ids)."""
    root = tmp_path / "box" / "r1"
    root.mkdir(parents=True)
    (root / "train.csv").write_text("step,loss\n100,0.41\n200,0.37\n")
    (root / "run.json").write_text('{"run": "r1"}\n')
    return root


def pull(capsys: pytest.CaptureFixture[str], box: Path, run: str, instance: str,
         *flags: str) -> tuple[int, str, str]:
    """``labledger [FLAGS] pull --run RUN --instance INSTANCE --from-dir BOX``."""
    return call(capsys, *flags, "pull", "--run", run, "--instance", instance,
                "--from-dir", str(box))


def test_a_typo_of_the_runs_box_warns_and_names_the_fix(
        capsys: pytest.CaptureFixture[str], box: Path) -> None:
    code, _, err = pull(capsys, box, "r1", "vast-123")
    assert code == 0, err
    assert "labledger: " not in err  # the first box of a new run: no warning, no note
    code, _, err = pull(capsys, box, "r1", "vast-132")
    assert code == 0, err  # the pull goes on
    assert ("labledger: warning: instance 'vast-132' is not in the ledger yet (no event names "
            "it) and is close to 'vast-123', which run r1 was pulled from") in err
    assert "pull again with --instance vast-123" in err
    # it is in the ledger now: its next pull says nothing
    code, _, err = pull(capsys, box, "r1", "vast-132")
    assert code == 0, err
    assert "labledger: warning" not in err


def test_the_warning_is_on_stderr_with_json_and_quiet(
        capsys: pytest.CaptureFixture[str], box: Path) -> None:
    assert pull(capsys, box, "r1", "gpubox")[0] == 0
    code, out, err = pull(capsys, box, "r1", "gpu-box", "--json")
    assert code == 0, err
    assert json.loads(out)["ok"] is True  # stdout stays one JSON document
    assert "close to 'gpubox'" in err
    code, out, err = pull(capsys, box, "r2", "GPUbox1", "-q")
    assert code == 0, err
    # another run, an id like a known one: a typo all the same
    assert "labledger: warning: instance 'GPUbox1' is not in the ledger yet" in err
    assert "close to 'gpubox':" in err


def test_a_typo_of_a_rented_instance_warns_before_any_pull(
        capsys: pytest.CaptureFixture[str], box: Path) -> None:
    code, _, err = call(capsys, "rent", "--profile", "vastai", "--instance", "vast-4521887",
                        "--host", "root@ssh5.vast.ai:41234")
    assert code == 0, err
    code, _, err = pull(capsys, box, "r1", "vast-4521878")
    assert code == 0, err
    assert "close to 'vast-4521887': this pull records vast-4521878 as another box" in err


def test_a_second_box_on_purpose_gets_a_note_not_a_warning(
        capsys: pytest.CaptureFixture[str], box: Path) -> None:
    assert pull(capsys, box, "r1", "box1")[0] == 0
    code, _, err = pull(capsys, box, "r1", "box2")
    assert code == 0, err
    assert "labledger: warning" not in err
    assert ("labledger: note: instance 'box2' is not in the ledger yet: this pull records it "
            "as a box of its own, besides box1, where run r1 is recorded") in err
    # a note is dropped by -q (and --json), as other notes are
    code, _, err = pull(capsys, box, "r1", "box3", "-q")
    assert code == 0, err
    assert err == ""


def test_a_new_box_for_a_new_run_is_silent(
        capsys: pytest.CaptureFixture[str], box: Path) -> None:
    assert pull(capsys, box, "r1", "box1")[0] == 0
    code, _, err = pull(capsys, box, "r2", "lambda-a100-7")
    assert code == 0, err
    assert "labledger: " not in err


def test_over_ssh_the_warning_comes_before_the_box_is_reached(
        capsys: pytest.CaptureFixture[str], box: Path, sshd: Any) -> None:
    assert pull(capsys, box, "r1", "vast-123")[0] == 0
    # an unknown host key: refused (exit 1) after the warning was given
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "vast-132", "--from",
                        sshd.target(box), "--identity", str(sshd.client_key))
    assert code == 1
    assert "close to 'vast-123'" in err
    assert err.index("close to 'vast-123'") < err.index("host key")
