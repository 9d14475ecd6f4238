"""`labledger hook` against cloud storage tools that delete LOCAL files (`cloud_sync`).

``rclone sync remote:runs ./capsules`` makes the local folder identical to the remote one:
rclone.org ("sync: Make source and dest identical, modifying destination only ... Deletes any
files that exist in dest that are not in source"); a capsule the bucket lacks is gone. So do
``aws s3 sync --delete``, ``gsutil rsync -d``, ``gcloud storage rsync
--delete-unmatched-destination-objects``, ``azcopy sync --delete-destination=true`` and
``s5cmd sync --delete`` toward a local folder, and a move whose source is local (``rclone
move``, ``aws s3 mv``, ``gsutil mv``, ``gcloud storage mv``, ``s5cmd mv``) once it uploaded.
All of them passed unjudged. These tools cannot reach a bucket from here, so their own
documentation is what the rows stand on; the judging is what is run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.cloud_sync import cloud_deleted
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


@pytest.mark.parametrize(("line", "deleted"), [
    ("rclone sync remote:bucket/runs ./capsules", ["./capsules"]),
    ("rclone sync gdrive:runs ~/capsules -P", ["~/capsules"]),
    ("rclone sync :s3:bucket/runs /data/capsules", ["/data/capsules"]),
    ("rclone sync remote:runs capsules --transfers 8 --progress", ["capsules"]),
    ("rclone --config rc.conf sync remote:runs capsules", ["capsules"]),
    # an option of a backend, not known here, with its value before the subcommand (tried,
    # rclone v1.60: `rclone --local-encoding None -P sync src dst` deleted dst's extra files)
    ("rclone --local-encoding None sync remote:runs capsules", ["capsules"]),
    ("rclone --drive-chunk-size 64M move capsules gdrive:x", ["capsules"]),
    ("aws --cli-binary-format raw-in-base64-out s3 sync s3://b/runs capsules --delete",
     ["capsules"]),
    ("rclone sync remote:runs capsules --log-file capsules/c2/sync.log", ["capsules"]),
    ("rclone sync remote:runs capsules --some-new-flag", ["capsules"]),
    ("rclone bisync capsules remote:runs", ["capsules"]),
    ("rclone move capsules remote:bucket", ["capsules"]),
    ("rclone moveto capsules/c2/ckpt.pt remote:b/ckpt.pt", ["capsules/c2/ckpt.pt"]),
    ("rclone purge capsules/c2", ["capsules/c2"]),
    ("rclone delete capsules --include *.pt", ["capsules"]),
    ("rclone deletefile capsules/c2/metrics.json", ["capsules/c2/metrics.json"]),
    ("aws s3 sync s3://b/runs capsules --delete", ["capsules"]),
    ("aws --profile lab s3 sync s3://b/runs capsules --delete --exclude *.tmp", ["capsules"]),
    ("aws s3 mv capsules s3://b/x --recursive", ["capsules"]),
    ("gsutil -m rsync -d -r gs://b/runs capsules", ["capsules"]),
    ("gsutil -m rsync -rd gs://b/runs capsules", ["capsules"]),
    ("gsutil rsync -d -x .*tmp gs://b/runs file://capsules", ["capsules"]),
    ("gsutil mv capsules/c2 gs://b/x", ["capsules/c2"]),
    ("gcloud storage rsync gs://b capsules -r --delete-unmatched-destination-objects",
     ["capsules"]),
    ("gcloud storage mv capsules gs://b/x", ["capsules"]),
    ("azcopy sync https://a.blob.core.windows.net/c capsules --delete-destination=true",
     ["capsules"]),
    ("azcopy sync https://a.blob.core.windows.net/c capsules --delete-destination prompt",
     ["capsules"]),
    ("s5cmd sync --delete s3://b/runs/* capsules/", ["capsules/"]),
    ("s5cmd mv capsules/c2 s3://b/x", ["capsules/c2"]),
])
def test_what_each_tool_deletes_here(line: str, deleted: list[str]) -> None:
    words = line.split()
    assert cloud_deleted(words[0], words[1:]) == deleted


@pytest.mark.parametrize("line", [
    "rclone sync ./capsules remote:bucket",  # uploads: the remote changes
    "rclone copy remote:runs capsules",  # copies delete nothing
    "rclone copy capsules remote:runs",
    "rclone sync remote:runs capsules --dry-run",
    "rclone sync -n remote:runs capsules",
    "rclone sync -Pn remote:runs capsules",
    "rclone lsf capsules",
    "aws s3 sync s3://b/runs capsules",  # without --delete
    "aws s3 sync capsules s3://b/runs --delete",
    "aws s3 sync s3://b/runs capsules --delete --dryrun",
    "aws s3 mv s3://b/x capsules --recursive",  # the bucket's object moves
    "aws s3 cp capsules s3://b/x --recursive",
    "aws s3 rm s3://b/x --recursive",
    "aws ec2 describe-instances",
    "gsutil -m rsync -r gs://b/runs capsules",  # without -d
    "gsutil -m rsync -d -r -n gs://b/runs capsules",
    "gsutil rm -r gs://b/x",
    "gcloud storage rsync gs://b capsules --recursive",
    "gcloud storage rm -r gs://b/x",
    "gcloud compute instances list",
    "azcopy sync https://a.blob.core.windows.net/c capsules",
    "azcopy sync https://a.blob.core.windows.net/c capsules --delete-destination=false",
    "s5cmd sync s3://b/runs/* capsules/",
    "s5cmd --dry-run sync --delete s3://b/* capsules/",
    "s5cmd cp capsules/ s3://b/x/",
])
def test_what_deletes_nothing_here(line: str) -> None:
    words = line.split()
    assert not cloud_deleted(words[0], words[1:])


_FLAGS = ["-P", "--progress", "-v", "-vv", "--fast-list", "--checksum", "--some-new-flag"]
_VALUED = [["--transfers", "8"], ["--exclude", "*.tmp"], ["--log-file", "sync.log"],
           ["--bwlimit=10M"], ["--max-age", "24h"], ["--drive-chunk-size", "64M"]]


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([[f] for f in _FLAGS] + _VALUED)),
                max_size=6),
       st.sampled_from(["capsules", "./runs/a", "/d/x"]))
def test_a_sync_toward_here_always_names_its_destination(
        options: list[tuple[int, list[str]]], dest: str) -> None:
    """Options put anywhere (rclone's flags may stand before, between and after the
    subcommand and its operands), the reader knowing some and not others: what is judged
    holds the real destination (a superset, never less)."""
    slots: list[list[str]] = [[], [], [], []]
    for slot, option in options:
        slots[slot] += option
    words = [*slots[0], "sync", *slots[1], "remote:runs", *slots[2], dest, *slots[3]]
    assert dest in (cloud_deleted("rclone", words) or [])


@pytest.mark.parametrize("command", [
    "rclone sync remote:runs capsules",
    "rclone sync b2:lab/runs ./capsules/c2 --progress",
    "rclone purge capsules/c2",
    "rclone move capsules/c2 remote:archive",
    "aws s3 sync s3://lab/runs capsules --delete",
    "aws s3 mv capsules/c2 s3://lab/c2 --recursive",
    "gsutil -m rsync -r -d gs://lab/runs capsules",
    "gcloud storage rsync gs://lab/runs capsules -r --delete-unmatched-destination-objects",
    "azcopy sync https://lab.blob.core.windows.net/runs capsules --delete-destination=true",
    "s5cmd sync --delete 's3://lab/runs/*' capsules/",
    "rclone sync remote:backup .labledger",
])
def test_a_delete_of_protected_places_is_blocked(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("capsules/c2" in r or ".labledger" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "rclone sync capsules remote:runs",  # the upload a person wants
    "rclone copy remote:runs capsules",
    "rclone sync remote:runs capsules/c3",  # stored, verifies
    "rclone sync remote:runs other",
    "aws s3 sync capsules s3://lab/runs",
    "aws s3 sync s3://lab/runs capsules",
    "gsutil -m rsync -r gs://lab/runs capsules",
    "rclone sync remote:runs capsules --dry-run",
])
def test_uploads_copies_and_dry_runs_pass(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize(("line", "writes"), [
    ("rclone copy remote:runs capsules/c2", [("capsules/c2", True, False)]),
    ("rclone copy remote:runs capsules --ignore-existing", [("capsules", True, True)]),
    ("rclone copyto remote:r/m.json capsules/c2/metrics.json",
     [("capsules/c2/metrics.json", False, False)]),
    ("aws s3 cp s3://b/m.json capsules/c2/metrics.json",
     [("capsules/c2/metrics.json", False, False)]),
    ("aws s3 cp s3://b/runs capsules --recursive", [("capsules", True, False)]),
    ("aws s3 sync s3://b/runs capsules", [("capsules", True, False)]),
    ("gsutil -m cp -r gs://b/runs capsules", [("capsules", True, False)]),
    ("gsutil cp -n gs://b/m.json capsules/c2/metrics.json",
     [("capsules/c2/metrics.json", False, True)]),
    ("gcloud storage cp -r gs://b/runs file://capsules", [("capsules", True, False)]),
    ("azcopy copy https://a.blob.core.windows.net/c capsules --recursive",
     [("capsules", True, False)]),
    ("s5cmd cp s3://b/runs/* capsules/", [("capsules/", True, False)]),
    ("rclone --s3-upload-concurrency 8 copy remote:runs capsules/c2",
     [("capsules/c2", True, False)]),
    # uploads, a dry run, a copy to stdout: nothing written here
    ("rclone copy capsules remote:runs", []),
    ("aws s3 cp capsules s3://b/runs --recursive", []),
    ("rclone copy remote:runs capsules --dry-run", []),
    ("gsutil cp gs://b/m.json -", []),
    ("aws s3 ls s3://b", []),
])
def test_where_a_download_writes(line: str, writes: list[tuple[str, bool, bool]]) -> None:
    from labledger.reconcile.cloud_sync import cloud_writes

    words = line.split()
    assert [(w.dest, w.inside, w.keeps) for w in cloud_writes(words[0], words[1:])] == writes


@pytest.mark.parametrize("command", [
    "rclone copy remote:runs capsules/c2",  # may overwrite a sealed capsule's files
    "aws s3 cp s3://lab/m.json capsules/c2/metrics.json",
    "gsutil -m cp -r gs://lab/runs capsules/c2",
    "aws s3 sync s3://lab/runs capsules/c2",
    "rclone copyto remote:cfg.toml .labledger/config.toml",
    "aws s3 cp s3://lab/metrics.json capsules/c2/",  # lands onto capsules/c2/metrics.json
    "gsutil cp 'gs://lab/*.json' capsules/c2/",  # a wildcard: any name may land there
    "gsutil cp gs://lab/new.json gs://lab/metrics.json capsules/c2",  # the second source
    "gcloud storage cp gs://lab/new.json gs://lab/metrics.json capsules/c2/",
])
def test_a_download_over_protected_files_is_blocked(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command


@pytest.mark.parametrize("command", [
    "rclone copy remote:runs capsules/c2 --ignore-existing",  # only adds
    "aws s3 cp s3://lab/new.json capsules/c2",  # lands as capsules/c2/new.json: a new file
    "rclone copy remote:runs data/",
    "aws s3 cp s3://lab/m.json other/metrics.json",
    # one object into a folder written with its slash lands by its name, as without it
    # (the row above: judged as cp's landing, DEST/NAME where DEST is a folder); before,
    # the slash alone made it "may overwrite anything in capsules/c2"
    "aws s3 cp s3://lab/new.json capsules/c2/",
    "gsutil cp gs://lab/new.json capsules/c2/",
    "gcloud storage cp gs://lab/new.json capsules/c2/",
])
def test_a_download_elsewhere_or_adding_passes(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize(("line", "deleted"), [
    ("rclone sync remote:runs :local:/abs/capsules", ["/abs/capsules"]),
    ("rclone sync remote:runs :local,links:capsules", ["capsules"]),
    ("rclone purge :local:", ["."]),
    ("rclone move :local:capsules/c2 remote:runs", ["capsules/c2"]),
    ("rclone sync :local:capsules remote:runs", []),  # an upload
])
def test_rclones_local_backend_is_a_local_path(line: str, deleted: list[str]) -> None:
    """``:local:PATH`` (rclone's on-the-fly backend) was read as a remote: its deletes
    passed."""
    words = line.split()
    assert (cloud_deleted(words[0], words[1:]) or []) == deleted


def test_real_rclone_syncs_a_local_backend_over_the_capsule(
        box: Path, tmp_path: Path) -> None:  # noqa: F811
    """What the rows stand on, with rclone itself (``.ci/run`` installs it): a sync from an
    empty folder to ``:local:capsules/c2`` empties the capsule; the hook blocks the line."""
    import shutil
    import subprocess

    rclone = shutil.which("rclone")
    assert rclone is not None, "rclone is needed: .ci/run installs it"
    copy, empty = tmp_path / "copy", tmp_path / "empty"
    shutil.copytree(box, copy, symlinks=True)
    empty.mkdir()
    subprocess.run([rclone, "sync", f":local:{empty}", ":local:capsules/c2"], cwd=copy,
                   capture_output=True, check=True, timeout=60,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert not (copy / "capsules" / "c2" / "metrics.json").exists()
    verdict = _judged(box, f"rclone sync :local:{empty} :local:capsules/c2")
    assert not verdict.allowed
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons


# A model or dataset hub's download into a folder given (huggingface_hub's `--local-dir`:
# "files are downloaded to that folder", an existing file of the same name replaced) may
# overwrite any file there; these passed unjudged.
@pytest.mark.parametrize("command", [
    "huggingface-cli download org/model --local-dir capsules/c2",
    "hf download org/model model.safetensors --local-dir=capsules/c2",
    "wandb artifact get proj/art:v1 --root capsules/c2",
    "kaggle datasets download -d x/y -p capsules/c2 --unzip",
    "kaggle competitions download -c titanic --path capsules/c2",
    "gdown --folder https://drive.google.com/x -O capsules/c2",
    "gdown https://drive.google.com/x -O capsules/c2/metrics.json",
    "hf download org/data --repo-type dataset --local-dir results",  # an export root
])
def test_a_hub_download_over_protected_files_is_blocked(
        box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("overwrite" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "huggingface-cli download org/model --local-dir models/base",
    "hf download org/model",  # into its own cache
    "kaggle datasets download -d x/y",
    "gdown https://drive.google.com/x -O capsules/c2/new.bin",  # a new file
    "huggingface-cli upload org/model capsules/c2",
    "wandb artifact put capsules/c2 --name c2",
    "hf download org/model --local-dir capsules/c3",  # its stored copy verifies
])
def test_a_hub_download_elsewhere_passes(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)
