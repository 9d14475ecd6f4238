"""A plain git pre-commit hook that runs ``labledger reconcile --staged``.

For users without the pre-commit framework (with it, `.pre-commit-hooks.yaml` at the repository
root declares the same command). Invariants:

* The hook is found where git looks for it (``git rev-parse --git-path hooks/pre-commit``, so
  ``core.hooksPath`` and worktrees are honoured).
* A hook labledger did not write is never overwritten silently: without ``force`` installing
  refuses; with it the old hook is kept beside it as ``pre-commit.labledger-backup[.N]``.
* The hook calls the labledger that installed it (its absolute path), falling back to
  ``labledger`` on PATH, and says so when neither exists instead of letting the commit through.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from labledger.reconcile.doc_sources import git_toplevel, run_git
from labledger.reconcile.errors import GitHookError

__all__ = ["MARK", "InstallResult", "hook_script", "install_pre_commit"]

MARK = "# labledger pre-commit hook (written by `labledger hooks install`)"


def hook_script(executable: str | None) -> str:
    """The hook's text; ``executable`` is the labledger to prefer (None: PATH only)."""
    preferred = shlex.quote(executable) if executable else "labledger"
    return f"""#!/bin/sh
{MARK}
# Reconciles the staged documents (and a staged or present EVIDENCE.json) against the ledger
# and blocks the commit on drift. Skip it once with `git commit --no-verify`; remove this file
# to uninstall.
LABLEDGER="${{LABLEDGER:-{preferred}}}"
if ! command -v "$LABLEDGER" >/dev/null 2>&1; then
    LABLEDGER=labledger
fi
if ! command -v "$LABLEDGER" >/dev/null 2>&1; then
    echo "labledger pre-commit hook: labledger is not installed here (not at {preferred}, not \
on PATH); install it, set LABLEDGER=/path/to/labledger, or commit with --no-verify" >&2
    exit 1
fi
exec "$LABLEDGER" reconcile --staged
"""


@dataclass(frozen=True)
class InstallResult:
    path: Path
    updated: bool            # an earlier labledger hook was replaced
    backup: Path | None      # where a foreign hook was moved (with force)

    def to_json(self) -> dict[str, object]:
        return {"path": str(self.path), "updated": self.updated,
                "backup": str(self.backup) if self.backup else None}


def _hook_path(top: Path) -> Path:
    out = run_git(["rev-parse", "--git-path", "hooks/pre-commit"], top).decode().strip()
    path = Path(out)
    return path if path.is_absolute() else top / path


def _hooks_path_setting(top: Path) -> str | None:
    """git's ``core.hooksPath``, or None when it is not set (or git cannot say)."""
    try:
        value = run_git(["config", "--get", "core.hooksPath"], top).decode(errors="replace")
    except GitHookError:
        return None
    return value.strip() or None


def _check_hooks_folder(top: Path, path: Path) -> None:
    """`GitHookError` naming the first folder on the way to ``path`` that is not a folder (a
    ``core.hooksPath`` pointing at a file), before anything is moved or written."""
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            setting = _hooks_path_setting(top)
            why = (f" (git's core.hooksPath is {setting!r})" if setting is not None
                   else "")
            raise GitHookError(
                f"cannot install the pre-commit hook at {path}: {folder} is a file, not a "
                f"folder{why}; point core.hooksPath at a folder (or unset it) or remove the "
                "file", str(folder))


def install_pre_commit(cwd: Path, executable: str | None, *, force: bool = False) -> InstallResult:
    """Write the pre-commit hook of the git work tree holding ``cwd``.

    Raises `GitHookError` outside a git work tree, when a hook labledger did not write is
    there and ``force`` is false, when the hooks folder is not a folder, or when the hook
    cannot be written (each naming the path).
    """
    top = git_toplevel(cwd)
    path = _hook_path(top)
    _check_hooks_folder(top, path)
    try:
        return _install(path, executable, force=force)
    except OSError as exc:
        where = str(exc.filename or path)
        shown = "" if where == str(path) else f"{where}: "
        raise GitHookError(f"cannot install the pre-commit hook at {path}: {shown}"
                           f"{exc.strerror or exc}", where) from None


def _install(path: Path, executable: str | None, *, force: bool) -> InstallResult:
    backup: Path | None = None
    updated = False
    if path.exists() or path.is_symlink():
        try:
            current = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            current = ""
        if MARK in current:
            updated = True
        elif not force:
            raise GitHookError(
                f"{path} already exists and was not written by labledger; add "
                "`labledger reconcile --staged` to it yourself, or pass --force to replace it "
                "(the old hook is kept as pre-commit.labledger-backup)", str(path))
        else:
            backup = path.with_name("pre-commit.labledger-backup")
            n = 1
            while backup.exists():
                backup = path.with_name(f"pre-commit.labledger-backup.{n}")
                n += 1
            os.replace(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".pre-commit.{os.getpid()}.tmp")
    try:
        tmp.write_text(hook_script(executable), encoding="utf-8")
        tmp.chmod(0o755)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if backup is not None:  # put the user's hook back where it was
            with contextlib.suppress(OSError):
                os.replace(backup, path)
        raise
    return InstallResult(path=path, updated=updated, backup=backup)
