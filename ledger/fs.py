"""Detect filesystems where `flock` and `O_APPEND` cannot be trusted.

NFS, SMB, sshfs and other FUSE network mounts either ignore advisory locks, emulate them per
client, or turn an append into read-modify-write; cloud-sync folders (Dropbox, OneDrive, iCloud,
Google Drive, Nutstore, Baidu) replace files behind the writer's back. Several processes sharing a
segment there can interleave or lose events, so the ledger refuses them unless every process gets
its own segment (`labledger init --segment-per-process`), which needs no lock at all.
"""

from __future__ import annotations

import os
from pathlib import Path

NETWORK_FSTYPES = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "9p", "ceph", "glusterfs",
    "lustre", "gpfs", "beegfs", "davfs", "fuse.sshfs", "sshfs", "fuse.rclone", "fuse.s3fs",
    "fuse.gcsfuse", "fuse.goofys", "fuse.juicefs", "fuse.davfs2", "fuse.mountpoint-s3",
    "fuse.blobfuse", "fuse.blobfuse2", "fuse.ossfs", "fuse.cosfs", "fuse.glusterfs",
})
CLOUD_SYNC_MARKERS = ("Dropbox", "OneDrive", "Google Drive", "GoogleDrive", "iCloud Drive",
                      "Mobile Documents", "Nutstore", "坚果云", "BaiduNetdisk", "百度网盘")

MOUNTS_FILE = "/proc/self/mounts"


def _unescape(field: str) -> str:
    # /proc/mounts escapes space, tab, newline and backslash as octal (\040 ...)
    return field.encode().decode("unicode_escape") if "\\" in field else field


def fstype_of(path: Path, mounts_text: str | None = None) -> str | None:
    """The filesystem type of the mount holding ``path`` (longest mount-point prefix)."""
    if mounts_text is None:
        try:
            mounts_text = Path(MOUNTS_FILE).read_text(errors="replace")
        except OSError:
            return None
    target = os.path.realpath(path)
    best, best_type = "", None
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point, fstype = _unescape(fields[1]), fields[2]
        prefix = point.rstrip("/") + "/"
        if (target == point or target.startswith(prefix) or point == "/") and len(point) >= len(
            best
        ):
            best, best_type = point, fstype
    return best_type


def unsafe_reason(path: Path, mounts_text: str | None = None) -> tuple[str, str] | None:
    """``(fstype, why)`` when appends under a shared lock are unreliable at ``path``, else None."""
    real = os.path.realpath(path)
    for marker in CLOUD_SYNC_MARKERS:
        if f"/{marker}" in real:
            return ("a cloud-sync folder", f"the path contains {marker!r}")
    fstype = fstype_of(path, mounts_text)
    if fstype is None:
        return None
    if fstype in NETWORK_FSTYPES or (fstype.startswith("fuse.") and fstype != "fuse.portal"):
        return (fstype, "a network or FUSE filesystem")
    return None
