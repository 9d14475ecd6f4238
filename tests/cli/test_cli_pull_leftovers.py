"""`labledger cas gc` and the partial files interrupted pulls leave; a pull whose store commit
fails, as the user sees it."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path

import pytest

from labledger.ingest.errors import TransportError
from labledger.ingest.pull import pull
from labledger.ingest.transport import LocalTransport
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call
from tests.ingest.test_pull_leftovers import Cut, fail_store_sync, small_box

pytestmark = pytest.mark.usefixtures("pull_project")  # conftest: the project, its own HOME


def partials(ledger: Ledger) -> list[Path]:
    return sorted(open_store(ledger).tmp_dir.glob("pull-*.partial"))


def abandoned(ledger: Ledger, box: Path, days: float = 8) -> Path:
    """A pull cut mid-file whose box was then destroyed: its partial, last written ``days``
    ago."""
    with pytest.raises(TransportError):
        pull(ledger, Cut(LocalTransport(box), "data.bin", 1 << 20), run="r1", retries=1,
             backoff=0.01, verify_checkpoints=False, merge_ledger=False)
    [left] = partials(ledger)
    then = time.time() - days * 86400
    os.utime(left, (then, then))
    return left


def test_gc_shows_an_abandoned_partial_with_its_box_and_removes_it(
        capsys: pytest.CaptureFixture[str], ledger: Ledger, tmp_path: Path) -> None:
    box = small_box(tmp_path / "box")
    left = abandoned(ledger, box)
    code, out, err = call(capsys, "cas", "gc")
    assert code == 0, err
    [line] = [x for x in out.splitlines() if "pull partial" in x]
    assert line.startswith(f"would remove pull partial {left}  {1 << 20} bytes  "
                           f"(dir:{box}: data.bin; last written ")
    assert "would remove 1 pull partial file" in err
    assert left.exists()  # a dry run by default
    code, out, err = call(capsys, "--json", "cas", "gc", "--no-dry-run")
    assert code == 0, err
    data = json.loads(out)
    [item] = data["partials_removed"]
    assert item["path"] == str(left)
    assert item["size"] == 1 << 20
    assert (item["source"], item["file"]) == (f"dir:{box}", "data.bin")
    assert data["partials_kept_recent"] == 0
    assert data["partials_in_use"] == 0
    assert not left.exists()


def test_partial_grace_zero_frees_partials_now_and_leaves_objects_to_their_grace(
        capsys: pytest.CaptureFixture[str], ledger: Ledger, tmp_path: Path) -> None:
    box = small_box(tmp_path / "box")
    left = abandoned(ledger, box, days=0)
    mine = tmp_path / "notes.txt"
    mine.write_text("stored by hand, not yet recorded\n")
    code, out, err = call(capsys, "cas", "put", str(mine))
    assert code == 0, err
    digest = out.split()[0]
    code, out, err = call(capsys, "cas", "gc", "--no-dry-run")
    assert code == 0, err
    assert left.exists()  # written just now: within the default grace (7d)
    assert "kept 1 written to within --partial-grace" in err
    code, out, err = call(capsys, "cas", "gc", "--partial-grace", "0", "--no-dry-run")
    assert code == 0, err
    assert not left.exists()
    assert open_store(ledger).exists(digest)  # young objects keep the 7 days of --grace
    assert "removed 1 pull partial file" in err


def test_gc_never_removes_partials_while_a_pull_runs(
        capsys: pytest.CaptureFixture[str], ledger: Ledger, tmp_path: Path) -> None:
    from labledger.cas.gc import hold_pull_partials

    box = small_box(tmp_path / "box")
    left = abandoned(ledger, box, days=30)
    store = open_store(ledger)
    with hold_pull_partials(store):  # what every running pull holds
        code, out, err = call(capsys, "--json", "cas", "gc", "--partial-grace", "0",
                              "--no-dry-run")
        assert code == 0, err
        data = json.loads(out)
        assert data["partials_removed"] == []
        assert data["partials_in_use"] == 1
        assert left.exists()
        code, _, err = call(capsys, "cas", "gc", "--partial-grace", "0", "--no-dry-run")
        assert code == 0, err
        assert "1 because a pull is running" in err
        assert left.exists()
    code, _, err = call(capsys, "cas", "gc", "--partial-grace", "0", "--no-dry-run")
    assert code == 0, err
    assert not left.exists()


@pytest.mark.parametrize("value", ["-1", "soon", "nan"])
def test_a_bad_partial_grace_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                               ledger: Ledger, tmp_path: Path,
                                               value: str) -> None:
    left = abandoned(ledger, small_box(tmp_path / "box"))
    code, out, err = call(capsys, "cas", "gc", "--partial-grace", value, "--no-dry-run")
    assert code == 2
    assert "'--partial-grace'" in err
    assert "is not a duration like 90s, 12h or 7d" in err
    assert out == ""
    assert left.exists()


def test_a_full_store_at_commit_is_one_true_line_and_the_pull_resumes(
        capsys: pytest.CaptureFixture[str], ledger: Ledger, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from labledger.cas import _fs

    box = small_box(tmp_path / "box")
    real = _fs.fsync_paths
    fail_store_sync(monkeypatch, errno.ENOSPC)
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(box), "--no-verify")
    assert code == 1
    assert "Traceback" not in err
    [line] = err.strip().splitlines()
    assert "no space left on the local disk" in line
    assert "was removed" not in line
    assert f"kept in {open_store(ledger).tmp_dir}" in line
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--from-dir", str(box),
                          "--no-verify")
    assert json.loads(err.strip().splitlines()[-1])["error"] == "PullWriteError"
    monkeypatch.setattr(_fs, "fsync_paths", real)  # (undo() would undo the project too)
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--from-dir", str(box),
                          "--no-verify")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["bytes_transferred"] == 0  # kept whole: nothing crossed again
    assert all(f["status"] == "pulled" for f in summary["files"])
