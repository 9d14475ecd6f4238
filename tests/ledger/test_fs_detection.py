"""Network, FUSE and cloud-sync filesystems are refused unless each process has its own segment."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import labledger.ledger.fs as fs
from labledger.ledger.check import check_ledger
from labledger.ledger.errors import UnsafeFilesystemError
from labledger.ledger.ledger import Ledger

MOUNTS = textwrap.dedent("""\
    /dev/vda1 / ext4 rw,relatime 0 0
    proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
    tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0
    overlay /var/lib/docker/overlay2/abc/merged overlay rw,lowerdir=/l,upperdir=/u 0 0
    fileserver:/export/home /mnt/nfs nfs4 rw,vers=4.2,hard,proto=tcp 0 0
    user@box:/data /home/me/remote fuse.sshfs rw,nosuid,nodev,user_id=1000 0 0
    //nas/share /mnt/smb cifs rw,vers=3.0 0 0
    /dev/nvme0n1p2 /mnt/nfs/localdisk ext4 rw 0 0
    //nas/with\\040space /mnt/my\\040share cifs rw 0 0
    rclone: /home/me/gdrive fuse.rclone rw 0 0
    portal /run/user/1000/doc fuse.portal rw 0 0
""")


@pytest.mark.parametrize(("path", "fstype"), [
    ("/mnt/nfs/project", "nfs4"),
    ("/mnt/nfs", "nfs4"),
    ("/home/me/remote/exp1", "fuse.sshfs"),
    ("/mnt/smb/lab", "cifs"),
    ("/mnt/my share/lab", "cifs"),
    ("/home/me/gdrive/runs", "fuse.rclone"),
])
def test_network_and_fuse_mounts_are_unsafe(path: str, fstype: str) -> None:
    reason = fs.unsafe_reason(Path(path), mounts_text=MOUNTS)
    assert reason is not None
    assert reason[0] == fstype
    assert "network or FUSE" in reason[1]


@pytest.mark.parametrize(("path", "fstype"), [
    ("/home/me/project", "ext4"),
    ("/mnt/nfs/localdisk/project", "ext4"),  # the longest mount point wins
    ("/mnt/nfsx/project", "ext4"),  # a mere name prefix is not the mount
    ("/dev/shm/ledger", "tmpfs"),
    ("/var/lib/docker/overlay2/abc/merged/app", "overlay"),
    ("/run/user/1000/doc/x", "fuse.portal"),
])
def test_local_filesystems_are_safe(path: str, fstype: str) -> None:
    assert fs.fstype_of(Path(path), MOUNTS) == fstype
    assert fs.unsafe_reason(Path(path), mounts_text=MOUNTS) is None


@pytest.mark.parametrize("folder", ["Dropbox", "OneDrive", "Google Drive", "iCloud Drive"])
def test_cloud_sync_folders_are_unsafe_even_on_a_local_disk(folder: str) -> None:
    reason = fs.unsafe_reason(Path(f"/home/me/{folder}/project"), mounts_text=MOUNTS)
    assert reason is not None
    assert reason[0] == "a cloud-sync folder"
    assert folder in reason[1]


def test_cloud_sync_folder_reached_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "Dropbox" / "project"
    real.mkdir(parents=True)
    link = tmp_path / "work"
    link.symlink_to(real)
    reason = fs.unsafe_reason(link, mounts_text=MOUNTS)
    assert reason is not None
    assert "Dropbox" in reason[1]


def test_unreadable_mount_table_is_not_a_refusal(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    monkeypatch.setattr(fs, "MOUNTS_FILE", str(tmp_path / "no-such-file"))
    assert fs.unsafe_reason(tmp_path) is None


@pytest.fixture
def nfs_project(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The mount table now says the project folder is an NFS mount."""
    table = tmp_path / "mounts"
    point = os.path.realpath(project)
    table.write_text(f"/dev/vda1 / ext4 rw 0 0\nfiler:/vol/lab {point} nfs4 rw,vers=4.1 0 0\n")
    monkeypatch.setattr(fs, "MOUNTS_FILE", str(table))
    monkeypatch.setenv("LABLEDGER_MOUNTS_FILE_FOR_CHILDREN", str(table))
    return project


def test_init_refuses_nfs(nfs_project: Path) -> None:
    with pytest.raises(UnsafeFilesystemError) as info:
        Ledger.init(nfs_project)
    assert info.value.fstype == "nfs4"
    assert "--segment-per-process" in str(info.value)
    assert not (nfs_project / ".labledger").exists()


def test_cli_init_refuses_nfs_with_an_explanation(nfs_project: Path) -> None:
    code = textwrap.dedent("""
        import os, sys
        import labledger.ledger.fs as fs
        fs.MOUNTS_FILE = os.environ["LABLEDGER_MOUNTS_FILE_FOR_CHILDREN"]
        from labledger.ledger.cli import main
        sys.argv = ["labledger", "init"]
        main()
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=nfs_project, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 1, result
    assert "nfs4" in result.stderr
    assert "--segment-per-process" in result.stderr
    assert not (nfs_project / ".labledger").exists()


def test_append_to_an_existing_ledger_that_is_now_on_nfs_is_refused(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    led = Ledger.init(project)  # created on a local disk, then moved to a share
    table = tmp_path / "mounts"
    table.write_text(f"filer:/vol {os.path.realpath(project)} nfs rw 0 0\n")
    monkeypatch.setattr(fs, "MOUNTS_FILE", str(table))
    with pytest.raises(UnsafeFilesystemError):
        Ledger.open(project).append("note", text="refused")
    with pytest.raises(UnsafeFilesystemError):
        led.append("note", text="refused")
    assert not any(led.paths.segments.iterdir())


PER_PROCESS_CHILD = textwrap.dedent("""
    import os, sys
    import labledger.ledger.fs as fs
    fs.MOUNTS_FILE = os.environ["LABLEDGER_MOUNTS_FILE_FOR_CHILDREN"]
    from labledger.ledger.ledger import Ledger
    led = Ledger.open()
    for i in range(50):
        led.append("note", text=f"{sys.argv[1]}:{i}")
    print(led.writer)
""")


def test_segment_per_process_on_nfs_gives_each_process_its_own_segment(
    nfs_project: Path,
) -> None:
    led = Ledger.init(nfs_project, segment_per_process=True)
    assert "segment_per_process = true" in led.paths.config.read_text()
    children = [subprocess.Popen([sys.executable, "-c", PER_PROCESS_CHILD, name],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for name in ("a", "b")]
    writers = []
    for child in children:
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        writers.append(out.strip())

    assert writers[0] != writers[1]
    assert sorted(led.writers()) == sorted(writers)
    report = check_ledger(led.paths)
    assert report.findings == []
    assert (report.writers, report.events) == (2, 100)
    for writer, name in zip(writers, ("a", "b"), strict=True):
        records = list(Ledger.open(nfs_project).records())
        mine = [r for r in records if r.writer == writer]
        assert [r.body_dict()["text"] for r in mine] == [f"{name}:{i}" for i in range(50)]
        assert [r.seq for r in mine] == list(range(50))
