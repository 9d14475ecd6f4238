"""Fixtures for the content-store tests: a fresh store and helpers that build source trees.

A tree spec maps names to ``bytes`` (a file), ``str`` (a symlink with that target) or another
mapping (a directory).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import Store


def _build(root: Path, spec: dict[str, Any]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, value in spec.items():
        path = root / name
        if isinstance(value, str):
            os.symlink(value, path)
        elif isinstance(value, bytes):
            path.write_bytes(value)
        else:
            _build(path, value)
    return root


def _read(root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in os.scandir(root):
        path = Path(entry.path)
        if entry.is_symlink():
            out[entry.name] = os.readlink(path)
        elif entry.is_dir(follow_symlinks=False):
            out[entry.name] = _read(path)
        else:
            out[entry.name] = path.read_bytes()
    return out


@pytest.fixture
def build_tree() -> Callable[[Path, dict[str, Any]], Path]:
    """Create a tree spec on disk; returns its root."""
    return _build


@pytest.fixture
def read_tree() -> Callable[[Path], dict[str, Any]]:
    """Read a directory back into a tree spec (symlinks read, never followed)."""
    return _read


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / ".labledger" / "cas")


@pytest.fixture
def make_file(tmp_path: Path) -> Callable[..., Path]:
    """Write bytes to a new source file under ``tmp_path/src``."""
    counter = iter(range(1_000_000))

    def make(data: bytes, name: str | None = None) -> Path:
        path = tmp_path / "src" / (name or f"file-{next(counter)}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    return make


@pytest.fixture
def store_files() -> Callable[[Store], tuple[list[Path], list[Path]]]:
    """``(object files, temp files)`` currently in a store."""

    def listing(store: Store) -> tuple[list[Path], list[Path]]:
        objects = sorted(p for p in store.objects_dir.rglob("*") if p.is_file())
        temps = sorted(store.tmp_dir.iterdir()) if store.tmp_dir.exists() else []
        return objects, temps

    return listing
