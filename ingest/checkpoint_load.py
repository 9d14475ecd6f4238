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

**Resume state** (`is_resume_state`: the optimizer, scheduler, scaler, RNG and training-argument
files that Hugging Face's Trainer, Accelerate and DeepSpeed save beside the weights) is not
weights, so the weights rule (tensors, a weights key) would fail it for ever. Such a file is
checked as resume state instead: it must be a whole ``torch.save`` zip archive (a ``data.pkl``
member, and every member's CRC read back: a cut-short or damaged file fails; nothing is
unpickled for this), and ``torch.load(weights_only=True)`` must then load it (any tensors it
holds real and finite, none required), unless weights_only refuses it for a class it will not
build (``Unsupported global``: a pickled ``TrainingArguments`` dataclass, numpy's RNG arrays,
DeepSpeed's loss scaler), which is accepted on the whole archive alone and reported
(`LoadResult.refused`). Resume state is never unpickled with code, ``allow_pickle`` or not.
"""

from __future__ import annotations

import importlib.util
import json
import os
import posixpath
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec

LOADER = "torch.load(weights_only=True)"
# What passed a resume-state file: its archive's CRCs, and weights_only's load of it (or its
# refusal of a class, when the archive is whole).
RESUME_LOADER = "zip CRC + torch.load(weights_only=True)"
RESUME_ARCHIVE_ONLY = "zip CRC"
# Resume state by file name (the basename), from the savers' own naming:
# - Hugging Face transformers, trainer.py: TRAINING_ARGS_NAME "training_args.bin",
#   OPTIMIZER_NAME "optimizer.pt", OPTIMIZER_NAME_BIN "optimizer.bin" (FSDP), SCHEDULER_NAME
#   "scheduler.pt", SCALER_NAME "scaler.pt", and "rng_state.pth" / "rng_state_{process}.pth";
# - Accelerate, utils/constants.py + checkpointing.py: "optimizer[_i].bin", "scheduler[_i].bin",
#   "sampler[_i].bin", "scaler.pt", "random_states_{process}.pkl";
# - DeepSpeed, runtime/engine.py: "[bf16_]zero_pp_rank_{dp}_mp_rank_{mp:02d}_optim_states.pt"
#   (and the expert-parallel "expp_rank_..._optim_states.pt").
# Weights beside them (model.safetensors, pytorch_model*.bin, mp_rank_*_model_states.pt, a
# Lightning .ckpt) keep the weights rule.
# ("N" is a process or rank number: digits only, so "optimizer_2_final.bin" is no resume state)
RESUME_STATE_NAMES = (
    "training_args.bin",
    "optimizer.pt", "optimizer.bin", "optimizer_N.bin",
    "scheduler.pt", "scheduler.bin", "scheduler_N.bin",
    "sampler.bin", "sampler_N.bin",
    "scaler.pt",
    "rng_state.pth", "rng_state_N.pth",
    "random_states_N.pkl",
    "*_optim_states.pt",
)
_RESUME_STATE = re.compile("|".join(
    re.escape(n).replace("N", r"\d+").replace(r"\*", ".*") for n in RESUME_STATE_NAMES))
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
# "module": DeepSpeed's mp_rank_*_model_states.pt keeps the model's state dict there
WEIGHT_KEYS = ("model_state_dict", "model", "state_dict", "module")
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
    keys = [k for k in WEIGHT_KEYS if k in obj]
    if keys:
        # the key must hold weights: {"module": None, "optimizer": ...} (review) or
        # {"model": "resnet50"} names a weights key and holds none
        found = []
        for k in keys:
            walk(obj[k], found)
            if found:
                return None
        return f"its weights key ({keys[0]}) holds no tensors"
    if obj and all(isinstance(v, torch.Tensor) for v in obj.values()):
        return None  # a flat state dict
    keys = ", ".join(sorted(map(str, obj))[:8])
    return ("no weights key (model_state_dict, model, state_dict or module) and not a flat "
            f"state dict of tensors; its keys: {keys}")

import pickle, zipfile
REFUSED_GLOBAL = re.compile(r"Unsupported global: GLOBAL ([A-Za-z0-9_.]+)")

def archive_problem(path):
    # Why path is not a whole torch.save zip archive, or None: every member is read back
    # against its CRC (zipfile; nothing is unpickled), so a cut-short or damaged file fails.
    try:
        with zipfile.ZipFile(path) as zf:
            if not any(n == "data.pkl" or n.endswith("/data.pkl") for n in zf.namelist()):
                return "it is a zip archive, but not one torch.save wrote (no data.pkl in it)"
            bad = zf.testzip()
    except zipfile.BadZipFile as exc:
        return ("it is not a whole zip archive (torch.save's format): " + describe(exc)
                + "; cut short, damaged, or saved in torch's legacy format")
    except Exception as exc:
        return "its zip archive could not be read: " + type(exc).__name__ + ": " + describe(exc)
    if bad is not None:
        return f"its archive member {bad} fails its CRC check: the file is damaged"
    return None

def tensors_problem(obj, result, need_tensors):
    # Every tensor in obj real (not meta) and finite; at least one when need_tensors.
    tensors = []
    too_deep = walk(obj, tensors)
    result["tensors"] = len(tensors)
    if too_deep:
        return too_deep
    if not tensors:
        return "it holds no tensors" if need_tensors else None
    meta = [t for t in tensors if t.is_meta]
    if meta:
        return (f"{len(meta)} of {len(tensors)} tensors are meta tensors with no data (saved "
                "from a model on the meta device?); the weights are not in the file")
    try:
        bad = [i for i, t in enumerate(tensors)
               if (t.is_floating_point() or t.is_complex()) and t.numel() and not finite(t)]
    except Exception as exc:
        return ("its tensors could not be checked for NaN or infinity: "
                + type(exc).__name__ + ": " + describe(exc))
    if bad:
        return f"{len(bad)} of {len(tensors)} tensors hold NaN or infinity"
    return None

import pickletools
# A resume-state file weights_only refuses for a class is passed on its archive alone only when
# every global its pickle names is one weights_only itself allows, or a trainer library's own
# (the Trainer's TrainingArguments and its enums, DeepSpeed's loss scaler), or numpy's array
# and RNG state builders: never builtins.eval, subprocess, os, a torch.nn module (a model with
# its weights, which the weights rule checks), or any other code.
TRAINER_MODULES = ("transformers.", "accelerate.", "deepspeed.", "numpy.dtypes.")
NUMPY_GLOBALS = {"numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct",
                 "numpy.core.multiarray.scalar", "numpy._core.multiarray.scalar",
                 "numpy.ndarray", "numpy.dtype"}
STRING_OPS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING",
              "BINSTRING", "STRING"}
GET_OPS = {"GET", "BINGET", "LONG_BINGET"}
PUT_OPS = {"PUT", "BINPUT", "LONG_BINPUT"}

def torch_allowed_globals():
    try:
        from torch._weights_only_unpickler import _get_allowed_globals
        names = set(_get_allowed_globals())
    except Exception:
        names = {"collections.OrderedDict", "builtins.set", "torch.Size", "torch.device",
                 "torch.serialization._get_layout", "torch.nn.parameter.Parameter"}
        names |= {"torch." + n for n in dir(torch)
                  if isinstance(getattr(torch, n, None), torch.dtype) or n.endswith("Storage")}
        names |= {"torch._utils." + n for n in dir(torch._utils) if n.startswith("_rebuild_")}
    return names

def pickle_globals(path):
    # Every global data.pkl names ("module.name"), read op by op, nothing unpickled; a
    # STACK_GLOBAL whose two strings are not the two values pushed right before it (as
    # Python's pickler writes it) is "?", which no rule allows.
    with zipfile.ZipFile(path) as zf:
        name = next(n for n in zf.namelist() if n == "data.pkl" or n.endswith("/data.pkl"))
        data = zf.read(name)
    found, pushed, memo = [], [], {}
    for op, arg, _ in pickletools.genops(data):
        kind = op.name
        if kind in ("GLOBAL", "INST"):
            module, _, attr = str(arg).partition(" ")
            found.append(module + "." + attr)
            pushed.append(None)
        elif kind == "STACK_GLOBAL":
            pair = pushed[-2:]
            ok = len(pair) == 2 and all(isinstance(v, str) for v in pair)
            found.append(pair[0] + "." + pair[1] if ok else "?")
            pushed.append(None)
        elif kind in STRING_OPS:
            pushed.append(arg if isinstance(arg, str) else None)
        elif kind in GET_OPS:
            pushed.append(memo.get(arg))
        elif kind in PUT_OPS:
            memo[arg] = pushed[-1] if pushed else None
        elif kind == "MEMOIZE":
            memo[len(memo)] = pushed[-1] if pushed else None
        elif kind not in ("PROTO", "FRAME"):
            pushed.append(None)
    return found

def foreign_globals(path):
    allowed = torch_allowed_globals()
    return sorted({g for g in pickle_globals(path)
                   if g not in allowed and g not in NUMPY_GLOBALS
                   and not g.startswith(TRAINER_MODULES)})

def check_resume_state(path, result):
    # Resume state (optimizer, scheduler, scaler, RNG, training arguments): a whole torch.save
    # archive that weights_only=True loads, or refuses only for a class it will not build.
    problem = archive_problem(path)
    if problem:
        result["error"] = problem
        return
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except MemoryError:
        raise
    except Exception as exc:
        refused = (REFUSED_GLOBAL.search(ANSI.sub("", str(exc)))
                   if isinstance(exc, pickle.UnpicklingError) else None)
        if refused is None:  # not a refusal of a class: the bytes do not load
            first = describe(exc)
            result["error"] = ("torch.load(weights_only=True) failed: " + type(exc).__name__
                               + (f": {first}" if first else ""))
            return
        try:
            foreign = foreign_globals(path)
        except Exception as exc:
            foreign = ["(its pickle could not be read: " + type(exc).__name__ + ")"]
        if foreign:
            result["error"] = ("torch.load(weights_only=True) refused it, and its pickle names "
                               "what no trainer's resume state holds: " + ", ".join(foreign[:5])
                               + (" ..." if len(foreign) > 5 else "")
                               + " (code that would run if it were loaded with "
                               "weights_only=False, or a model, which the weights rule checks)")
            return
        result["ok"], result["loader"] = True, cfg["resume_archive_only"]
        result["refused"] = "Unsupported global: GLOBAL " + refused.group(1)
        return
    result["error"] = tensors_problem(obj, result, need_tensors=False)
    result["ok"] = result["error"] is None

for line in sys.stdin:
    item = json.loads(line)
    path, name = item[0], item[1]
    resume = len(item) > 2 and bool(item[2])
    safet = name.endswith(".safetensors") and not resume
    loader = ("safetensors" if safet else
              cfg["resume_loader"] if resume else
              "torch.load(weights_only=False)" if cfg["allow_pickle"] else
              "torch.load(weights_only=True)")
    result = {"path": path, "ok": False, "tensors": 0, "error": None, "loader": loader,
              "resume_state": resume}
    if UNSAFE_TORCH and not safet and (resume or not cfg["allow_pickle"]):
        result["error"] = UNSAFE_TORCH
        print(json.dumps(result), flush=True)
        continue
    try:
        if resume:
            check_resume_state(path, result)
            print(json.dumps(result), flush=True)
            continue
        if safet:
            from safetensors.torch import load_file
            obj = load_file(path, device="cpu")
        else:
            obj = torch.load(path, map_location="cpu", weights_only=not cfg["allow_pickle"])
        problem = tensors_problem(obj, result, need_tensors=True)
        if problem is None and cfg["require_weights_key"]:
            problem = weights_problem(obj)
        result["error"], result["ok"] = problem, problem is None
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
    # Checked as resume state (`is_resume_state`), not weights.
    resume_state: bool = False
    # weights_only's refusal of a resume-state file accepted on its whole archive alone
    # (``Unsupported global: GLOBAL transformers.training_args.TrainingArguments``).
    refused: str | None = None


def is_resume_state(name: str) -> bool:
    """Whether the file ``name`` (a path; its basename decides) is resume state that a trainer
    saves beside the weights (`RESUME_STATE_NAMES`), checked as such rather than as weights."""
    base = posixpath.basename(name.replace(os.sep, "/"))
    return _RESUME_STATE.fullmatch(base) is not None


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
                             "resume_loader": RESUME_LOADER,
                             "resume_archive_only": RESUME_ARCHIVE_ONLY,
                             "proc_status": PROC_STATUS})
        self._proc = subprocess.Popen([sys.executable, "-c", _CHILD, config],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
        self._paths: list[str] = []
        self._queued: list[str] = []

    def submit(self, path: Path, name: str, *, resume_state: bool = False) -> None:
        """Queue one file; ``name`` is its original name (``.safetensors`` picks the reader).
        ``resume_state``: check it as resume state, not weights (see the module doc)."""
        self._paths.append(str(path))
        self._queued.append(json.dumps([str(path), name, resume_state]) + "\n")

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
                                                error=item["error"], loader=item.get("loader"),
                                                resume_state=bool(item.get("resume_state")),
                                                refused=item.get("refused"))
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
    ``model_state_dict``, ``model``, ``state_dict`` or ``module`` or to be a flat dict of
    tensors.
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
        # a trainer's resume state beside the weights (`is_resume_state`) is checked as such
        # here too: `close` of a Trainer's output folder quarantined it for its scheduler.pt
        loader.submit(Path(p), n, resume_state=is_resume_state(n))
    return loader.results(timeout)
