"""Load checkpoints safely, in a child process, to prove they are usable bytes.

A checkpoint counts as loadable when ``torch.load(path, map_location="cpu", weights_only=True)``
(or safetensors' ``load_file`` for ``*.safetensors``) succeeds (no pickle code runs: torch
older than 2.6 is refused, its weights_only loader could be made to run code), the
result holds at least one tensor, none of them a meta tensor (no data), and every floating-point
tensor is finite (sparse tensors by their stored values; float8 and other dtypes ``isfinite``
does not cover are upcast for the check). Nesting is walked to any depth. The load runs in
a separate interpreter with a timeout and a memory limit so a hostile or huge
file can neither run code in nor hang the calling process, and a crash (out of memory) fails
only the child. The child prints one JSON line per file as it finishes, so a timeout still
reports the files it finished.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec

LOADER = "torch.load(weights_only=True)"
# Where the child reads its own mappings (Linux); a platform without it (macOS) loads uncapped.
PROC_STATUS = "/proc/self/status"

_CHILD = r"""
import json, os, sys, warnings
cfg = json.loads(sys.argv[1])
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch
if cfg["memory_limit"]:
    # After torch's own mappings: the budget is for the checkpoint, not the interpreter.
    # Linux shows the mappings in /proc and enforces RLIMIT_AS; macOS does neither, so there
    # the child loads without a cap (the timeout and the separate process still hold).
    import resource
    try:
        with open(cfg["proc_status"]) as fh:
            vm = [int(l.split()[1]) * 1024 for l in fh if l.startswith("VmSize:")]
    except OSError:
        vm = None
    if vm is not None:
        limit = (vm[0] if vm else 0) + int(cfg["memory_limit"])
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass  # a hard limit below this one: that one holds
WEIGHT_KEYS = ("model_state_dict", "model", "state_dict")
import re as _re
_v = _re.match(r"(\d+)\.(\d+)", str(getattr(torch, "__version__", "")))
# Before 2.6, weights_only=True could still run code from a crafted file (CVE-2025-32434).
UNSAFE_TORCH = (None if _v is None or (int(_v.group(1)), int(_v.group(2))) >= (2, 6) else
                f"torch {torch.__version__} is older than 2.6, whose weights_only=True loader "
                "can run code from a crafted file (CVE-2025-32434), so the file was not "
                "loaded; install torch>=2.6 (labledger[torch])")
MAX_NODES = 10_000_000
SPARSE = {getattr(torch, n) for n in ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                                      "sparse_bsc") if hasattr(torch, n)}
CHUNK = 1 << 22

def walk(obj, out):
    # Every tensor in obj, at any depth (iterative: no recursion limit, no depth cut-off);
    # containers met twice are walked once. Returns a problem or None.
    stack, seen, nodes = [obj], set(), 0
    while stack:
        item = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"it holds more than {MAX_NODES} objects; too many to check"
        if isinstance(item, torch.Tensor):
            out.append(item)
        elif isinstance(item, (dict, list, tuple)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return None

def finite(t):
    # Whether every value of a floating or complex tensor is finite: sparse tensors by their
    # stored values, dtypes isfinite does not cover (float8) upcast to float32, chunk by chunk.
    if t.layout in SPARSE:
        t = t.coalesce().values() if t.layout == torch.sparse_coo else t.values()
    elif t.layout != torch.strided:
        t = t.to_dense()
    t = t.reshape(-1)
    try:
        return bool(torch.isfinite(t).all())
    except (RuntimeError, NotImplementedError, TypeError):
        pass
    wide = torch.complex64 if t.is_complex() else torch.float32
    for start in range(0, t.numel(), CHUNK):
        if not bool(torch.isfinite(t[start:start + CHUNK].to(wide)).all()):
            return False
    return True

import re
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
KEY_LINE = re.compile(r"Unsupported|GLOBAL |Error|error|invalid|Invalid|corrupt|unexpected")

def describe(exc):
    # The error's first line and, when that one is generic, its most informative line: ANSI
    # codes stripped, bounded.
    text = ANSI.sub("", str(exc))
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    if not lines:
        return ""
    shown = [lines[0][:300]]
    key = next((l for l in lines[1:] if "Unsupported" in l), None) or next(
        (l for l in lines[1:] if KEY_LINE.search(l)), None)
    if key and key not in shown[0]:
        shown.append(key[:300])
    return " | ".join(shown)

def weights_problem(obj):
    if not isinstance(obj, dict):
        return None if isinstance(obj, torch.Tensor) else (
            f"it holds a {type(obj).__name__}, not a state dict")
    if any(k in obj for k in WEIGHT_KEYS):
        return None
    if obj and all(isinstance(v, torch.Tensor) for v in obj.values()):
        return None  # a flat state dict
    keys = ", ".join(sorted(map(str, obj))[:8])
    return ("no weights key (model_state_dict, model or state_dict) and not a flat state "
            f"dict of tensors; its keys: {keys}")

for line in sys.stdin:
    path, name = json.loads(line)
    safet = name.endswith(".safetensors")
    loader = ("safetensors" if safet else
              "torch.load(weights_only=False)" if cfg["allow_pickle"] else
              "torch.load(weights_only=True)")
    result = {"path": path, "ok": False, "tensors": 0, "error": None, "loader": loader}
    if UNSAFE_TORCH and not safet and not cfg["allow_pickle"]:
        result["error"] = UNSAFE_TORCH
        print(json.dumps(result), flush=True)
        continue
    try:
        if safet:
            from safetensors.torch import load_file
            obj = load_file(path, device="cpu")
        else:
            obj = torch.load(path, map_location="cpu", weights_only=not cfg["allow_pickle"])
        tensors = []
        too_deep = walk(obj, tensors)
        result["tensors"] = len(tensors)
        meta = [t for t in tensors if t.is_meta]
        if too_deep:
            result["error"] = too_deep
        elif not tensors:
            result["error"] = "it holds no tensors"
        elif meta:
            result["error"] = (f"{len(meta)} of {len(tensors)} tensors are meta tensors with "
                               "no data (saved from a model on the meta device?); the weights "
                               "are not in the file")
        else:
            try:
                bad = [i for i, t in enumerate(tensors)
                       if (t.is_floating_point() or t.is_complex()) and t.numel()
                       and not finite(t)]
            except Exception as exc:
                bad = None
                result["error"] = ("its tensors could not be checked for NaN or infinity: "
                                   + type(exc).__name__ + ": " + describe(exc))
            problem = weights_problem(obj) if cfg["require_weights_key"] else None
            if bad is None:
                pass
            elif bad:
                result["error"] = f"{len(bad)} of {len(tensors)} tensors hold NaN or infinity"
            elif problem:
                result["error"] = problem
            else:
                result["ok"] = True
    except MemoryError:
        result["error"] = f"{loader} ran out of its memory limit ({cfg['memory_limit']} bytes)"
    except Exception as exc:
        first = describe(exc)
        result["error"] = (loader + " failed: " + type(exc).__name__
                           + (f": {first}" if first else ""))
    print(json.dumps(result), flush=True)
"""


class LoadResult(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of loading one checkpoint: ``ok``, the tensor count, and why not."""

    path: str
    ok: bool
    tensors: int = 0
    error: str | None = None
    loader: str | None = None


def torch_available() -> bool:
    """Whether torch can be imported here (checked without importing it)."""
    return importlib.util.find_spec("torch") is not None


def default_memory_limit(largest: int) -> int:
    """The loader's default budget: 4 GiB, or 4x the largest checkpoint."""
    return max(4 << 30, 4 * largest)


class CheckpointLoader:
    """One child interpreter that loads checkpoints as they are submitted.

    Starting it early lets the child import torch (seconds) while the caller is still busy,
    e.g. transferring the files it will submit. `results` closes the queue and waits.
    """

    def __init__(self, *, allow_pickle: bool = False, require_weights_key: bool = False,
                 memory_limit: int | None = None) -> None:
        self.memory_limit = memory_limit if memory_limit is not None else default_memory_limit(0)
        config = json.dumps({"allow_pickle": allow_pickle, "memory_limit": self.memory_limit,
                             "require_weights_key": require_weights_key,
                             "proc_status": PROC_STATUS})
        self._proc = subprocess.Popen([sys.executable, "-c", _CHILD, config],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
        self._paths: list[str] = []
        self._queued: list[str] = []

    def submit(self, path: Path, name: str) -> None:
        """Queue one file; ``name`` is its original name (``.safetensors`` picks the reader)."""
        self._paths.append(str(path))
        self._queued.append(json.dumps([str(path), name]) + "\n")

    def results(self, timeout: float = 300.0) -> list[LoadResult]:
        """One `LoadResult` per submitted path, in order; unfinished ones (the whole queue
        did not load within ``timeout`` seconds, or the child died) are not ok."""
        done: dict[str, LoadResult] = {}
        stderr = ""
        timed_out = False
        try:
            stdout, stderr = self._proc.communicate("".join(self._queued), timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            self._proc.kill()
            stdout, stderr = self._proc.communicate()
        for line in (stdout or "").splitlines():
            try:
                item = json.loads(line)
                done[item["path"]] = LoadResult(path=item["path"], ok=bool(item["ok"]),
                                                tensors=int(item["tensors"]),
                                                error=item["error"], loader=item.get("loader"))
            except (ValueError, KeyError, TypeError):
                continue
        last = ((stderr or "").strip().splitlines() or ["no output"])[-1][:300]
        if timed_out:
            why = f"did not load within {timeout:g} s"
        elif "No module named 'torch'" in last:
            why = ("torch is not installed here, so it cannot be loaded to verify it: pip "
                   "install 'labledger[torch]' (the CPU build: see docs/getting-started.md)")
        else:
            why = f"the loader process failed ({last})"
        return [done.get(p) or LoadResult(path=p, ok=False, error=why) for p in self._paths]

    def abort(self) -> None:
        """Stop the child without loading anything."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.communicate()


def load_checkpoints(
    paths: Sequence[Path],
    *,
    timeout: float = 300.0,
    names: Sequence[str] | None = None,
    allow_pickle: bool = False,
    require_weights_key: bool = False,
    memory_limit: int | None = None,
) -> list[LoadResult]:
    """Load each checkpoint in one child interpreter; one `LoadResult` per path, in order.

    A path the child did not finish within ``timeout`` seconds (all of them together) is
    reported as not ok. The caller decides what to do when torch is missing
    (`torch_available`); this function then reports every path as not ok.

    ``names`` are the files' original names (a stored object has none): a name ending in
    ``.safetensors`` is read with the safetensors package, anything else with ``torch.load``.
    ``allow_pickle`` loads with ``weights_only=False``: the file's pickle code RUNS; only for
    files you trust. ``require_weights_key`` also requires a dict checkpoint to hold
    ``model_state_dict``, ``model`` or ``state_dict`` or to be a flat dict of tensors.
    ``memory_limit`` (bytes, default: 4 GiB or 4x the largest file) caps the child's address
    space beyond what torch itself maps (RLIMIT_AS).
    """
    if not paths:
        return []
    if names is None:
        names = [str(p) for p in paths]
    if memory_limit is None:
        memory_limit = default_memory_limit(
            max((os.path.getsize(p) for p in paths if os.path.exists(p)), default=0))
    loader = CheckpointLoader(allow_pickle=allow_pickle, require_weights_key=require_weights_key,
                              memory_limit=memory_limit)
    for p, n in zip(paths, names, strict=True):
        loader.submit(Path(p), n)
    return loader.results(timeout)
