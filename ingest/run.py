"""`labledger run`: wrap a command so its launch, liveness and exit become events.

Order of work (each step's failure and what it costs)
-----------------------------------------------------
1. **Facts, gathered in parallel** before anything starts: git commit, dirty flag and diff
   (`git diff HEAD`), the config file, the interpreter that will run the command (its Python,
   PyTorch and PyTorch-CUDA versions, read from package metadata and ``torch/version.py`` so
   torch is never imported: an import costs seconds and may initialise CUDA) and GPU names
   from ``nvidia-smi`` when it is on PATH. The interpreter is ``argv[0]`` when it is a
   ``python``, the ``#!`` interpreter of a console script (``torchrun``, ``accelerate``), else
   the first ``python3`` on the command's PATH (a guess, recorded as ``python_source: PATH``).
   A probe that fails leaves its field empty (`labledger.ingest._launch_facts`).
2. **Bytes first, events second**: the scrubbed diff and the scrubbed config go into the CAS,
   then `run.launched` names their digests; `cas gc` is held off from the first put until
   that append returns (`Store.holding_off_gc`). Nothing reaches either store unscrubbed (see
   `labledger.ingest.secrets`): the command line, the allowlisted environment, the diff and the
   config all pass through it first.
3. **The command starts** with ``LABLEDGER_RUN`` (and ``LABLEDGER_ROOT``, ``LABLEDGER_INSTANCE``)
   in its environment, so in-process hooks (`labledger.ingest.checkpoint`) know their run.
   SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 received by the wrapper are forwarded to it
   (USR1 is what Slurm's ``--signal`` sends before a walltime kill). A signal the wrapper was
   started ignoring (``nohup``) stays ignored for the command too. SIGINT is *not* forwarded
   while the wrapper is the foreground job of a terminal: the terminal already delivered Ctrl-C
   to the whole process group, and a second SIGINT would interrupt the command's own cleanup
   (a checkpoint being saved in an ``except KeyboardInterrupt``). For the same reason SIGHUP is
   not forwarded to a command kept in the group of a foreground job (below): a terminal's hangup
   reaches the foreground group, and the shell's SIGHUP to its jobs the whole job, command
   included.
   Unless the wrapper is the **foreground job of its controlling terminal** (no terminal at
   all: cron, ``setsid``, ``nohup`` after the login ended, a batch job, a supervisor; or a
   background job, ``timeout`` from a shell, which puts itself in a group of its own), the
   command runs in a process group of its own (Linux): a signal sent to the wrapper's whole
   group (``timeout``, ``kill -TERM -PGID``, a supervisor's ``killpg``) then reaches the
   command once, through the wrapper, instead of twice (directly and forwarded), so a first
   SIGINT or SIGTERM stays the graceful one and a second the forceful one. Because a SIGKILL
   to the group would no longer reach it, the command is given ``PR_SET_PDEATHSIG`` =
   SIGKILL: it never outlives a wrapper that was killed. A foreground job keeps the command in
   its group, so that it owns the terminal as it would alone (reads it, gets Ctrl-C and Ctrl-Z
   from it); a SIGTERM sent to a foreground job's whole group still reaches it twice (send it
   to the wrapper alone). A job started in the background and brought to the foreground later
   (``fg``) leaves the terminal with the wrapper: Ctrl-C is forwarded to the command once, but
   the command cannot read the terminal and Ctrl-Z stops only the wrapper; start a run that
   needs the terminal in the foreground. The handlers are installed before `run.launched` is
   written and stay until `run.exited` is, so no signal between the two can kill the wrapper
   and leave a launch without an exit; with ``hold_signals`` (``labledger run``) the forwarded
   signals are then ignored until the process exits, so a late one (a second Ctrl-C) cannot
   turn the wrapper's exit status, the command's as recorded, into 130.
4. **Heartbeats** (optional): a daemon thread appends `run.heartbeat` every interval, at least
   `MIN_HEARTBEAT_S` (the floor is here, in the API, so ``labledger run --heartbeat`` and
   `run_command` agree: every heartbeat is an fsynced event, and a shorter interval would flood
   the ledger while telling nothing a 1 s beat does not). The command
   is a separate process, so a slow append never slows it; appends from the thread and the main
   thread share one lock.
5. **Exit**: the child is reaped with ``wait4`` so its own peak RSS (``ru_maxrss``; it includes
   descendants it waited for) is measured, not the wrapper's probes. Until it exits the main
   thread waits in ``poll`` for its pidfd and the signal wakeup pipe together, not in
   ``wait4``, so a signal is forwarded as it arrives even when it lands just as the wait
   begins (a Python handler runs between bytecodes, not inside a blocked call). `run.exited`
   records the exit code or the signal, the duration and the peak RSS. The wrapper's exit
   status is the command's, or 128 + signal as a shell reports it; 127/126 when the command
   cannot be found / executed (as a shell).

Bookkeeping never blocks training: when the ledger cannot be opened or written (no ledger, disk
full, an unsafe filesystem) the command still runs and each failure is reported through
``report``, unless ``strict``, which raises `RunRefusedError` before the command starts. If the
wrapper itself is killed with SIGKILL, no `run.exited` is written; the run then reads as
``stalled`` once its heartbeats stop (see ``ledger/sql/runs.sql``).

The module never prints or exits: the CLI (`labledger.ledger.cli.run`) renders.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from labledger.cas import CasError
from labledger.ingest._launch_facts import PROBE_TIMEOUT_S, Facts, gather
from labledger.ingest.errors import RunRefusedError
from labledger.ingest.secrets import scrub_argv, scrub_config, scrub_env, scrub_text
from labledger.ledger.errors import InvalidEventError, LedgerError
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record

__all__ = ["FORWARDED_SIGNALS", "MIN_HEARTBEAT_S", "RunResult", "make_run_id", "run_command"]

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1,
                     signal.SIGUSR2)
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,255}$")  # the ledger's own rule
_STEM_RE = re.compile(r"[^A-Za-z0-9._-]+")
_LEDGER_FAILURES = (LedgerError, CasError, OSError)
MIN_HEARTBEAT_S = 1.0
"""The shortest heartbeat interval `run_command` (and ``labledger run --heartbeat``) takes."""

Report = Callable[[str, str], None]
"""``report(kind, message)``: ``"run"`` (the run id, before the command starts) or ``"warning"``
(something could not be recorded; the command is not affected)."""

@dataclass
class RunResult:
    """What happened to a wrapped command.

    ``exit_code`` is what the wrapper exits with (the command's status, 128 + signal when it was
    killed, 127/126 when it could not be started). ``returncode`` is the command's own status
    (None when it never started); ``signal`` the signal that ended it. ``launched_id`` and
    ``exited_id`` are the event ids, None when the ledger could not record them; ``problems``
    lists every bookkeeping failure (also sent to ``report`` as it happened).
    """

    run: str
    exit_code: int
    returncode: int | None = None
    signal: int | None = None
    duration_s: float = 0.0
    peak_rss_bytes: int | None = None
    pid: int | None = None
    launched_id: str | None = None
    exited_id: str | None = None
    heartbeats: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def is_recorded(self) -> bool:
        """Both the launch and the exit reached the ledger."""
        return self.launched_id is not None and self.exited_id is not None


# --- run ids ---------------------------------------------------------------------------------
def _command_stem(argv: Sequence[str]) -> str:
    args = [a for a in argv if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", a)]  # `env X=1 cmd`
    for i, arg in enumerate(args):
        if arg == "-m" and i + 1 < len(args):
            return args[i + 1].rsplit(".", 1)[-1]
    for arg in args[1:]:
        if not arg.startswith("-") and arg.endswith((".py", ".sh", ".bash")):
            return Path(arg).stem
    return Path(args[0]).name if args else "run"


def make_run_id(argv: Sequence[str], when: datetime | None = None) -> str:
    """A readable, unique run id: ``<command stem>-<UTC yyyymmdd-HHMMSS>-<4 hex>``.

    ``python train.py --lr 3e-4`` -> ``train-20261202-140122-9f3a``.
    """
    stem = _STEM_RE.sub("-", _command_stem(argv)).strip("-._")[:40] or "run"
    if not stem[0].isalnum():
        stem = "run-" + stem
    stamp = (when or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stem}-{stamp}-{os.urandom(2).hex()}"


# --- the ledger, guarded -------------------------------------------------------------------
class _Recorder:
    """Appends from the main and heartbeat threads under one lock; failures become reports."""

    def __init__(self, ledger: Ledger | None, report: Report, problems: list[str]) -> None:
        self.ledger = ledger
        self.lock = threading.Lock()
        self._report = report
        self.problems = problems
        self._failing: set[str] = set()

    def warn(self, message: str) -> None:
        self.problems.append(message)
        self._report("warning", message)

    def append(self, kind: str, *, run: str, instance: str | None, **body: Any) -> Record | None:
        if self.ledger is None:
            return None
        with self.lock:
            try:
                record = self.ledger.append(kind, run=run, instance=instance, **body)
            except _LEDGER_FAILURES as exc:
                if kind not in self._failing:  # one report per kind until it works again
                    self._failing.add(kind)
                    self.warn(f"could not record {kind} for run {run}: {exc}")
                return None
        self._failing.discard(kind)
        return record


_PR_SET_PDEATHSIG = 1


def _own_group_dying_with(parent: int) -> Callable[[], None]:
    """A ``preexec_fn``: put the child in a process group of its own and have the kernel
    SIGKILL it when the wrapper dies (Linux)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def setup() -> None:
        os.setpgid(0, 0)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the wrapper died before the death signal was armed
            os.kill(os.getpid(), signal.SIGKILL)

    return setup


def _foreground_job_of_terminal() -> bool:
    """The wrapper's process group is the foreground group of its controlling terminal (the
    terminal itself, whatever its standard streams are)."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)


def _in_foreground_of_terminal() -> bool:
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return True
        except OSError:
            continue
    return False


class _Forwarder:
    """Signal handlers that pass signals on to the child while it runs (main thread only).

    A Python handler runs in the main thread between two bytecodes, not when the signal
    arrives: a signal that lands after the last such point and before the main thread blocks
    in a system call only sets the handler's flag, and the handler runs when that call returns.
    Blocked in wait4 for the child, that is when the child has exited: a forwarded SIGINT would
    never reach it. So while the handlers are installed every signal also writes a byte to a
    wakeup pipe (`signal.set_wakeup_fd`), and the main thread waits for the child and that pipe
    together (`_wait`): a byte written before the wait began wakes it at once.
    """

    def __init__(self) -> None:
        self.pid: int | None = None
        self.shared_group = False  # the child is in the wrapper's process group
        self.terminal_job = False  # ... because the wrapper was its terminal's foreground job
        self.received: list[int] = []
        self.wakeup: int | None = None  # the wakeup pipe's read end, while installed
        self._previous: dict[int, Any] = {}
        self._previous_wakeup = -1
        self._wakeup_write: int | None = None

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set from the main thread
        read, write = os.pipe()  # not inherited by the child
        for end in (read, write):
            os.set_blocking(end, False)  # set_wakeup_fd needs it: a full pipe never blocks
        self.wakeup, self._wakeup_write = read, write
        self._previous_wakeup = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        for signum in FORWARDED_SIGNALS:
            current = signal.getsignal(signum)
            if current is signal.SIG_IGN:
                continue  # started under nohup & co: the child inherits the ignore
            self._previous[signum] = current
            signal.signal(signum, self._handle)

    def restore(self, *, ignore: bool = False) -> None:
        """Put back the handlers found at `install`, or (``ignore``) ignore those signals."""
        for signum, previous in self._previous.items():
            signal.signal(signum, signal.SIG_IGN if ignore else previous)
        self._previous.clear()
        if self.wakeup is not None and self._wakeup_write is not None:
            signal.set_wakeup_fd(self._previous_wakeup)
            os.close(self.wakeup)
            os.close(self._wakeup_write)
            self.wakeup = self._wakeup_write = None

    def attach(self, pid: int, *, shared_group: bool, terminal_job: bool) -> None:
        """Forward from now on, first replaying what arrived while the child was starting."""
        self.pid = pid
        self.shared_group = shared_group
        self.terminal_job = terminal_job
        for signum in list(self.received):
            # Sent before the child existed: it never reached the child, not even a Ctrl-C
            # the terminal delivered to the (then childless) foreground group.
            self._forward(pid, signum, replay=True)

    def detach(self) -> None:
        self.pid = None  # reaped: its pid may be reused, so nothing is sent any more

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        self.received.append(signum)
        pid = self.pid
        if pid is not None:
            self._forward(pid, signum)

    def _forward(self, pid: int, signum: int, *, replay: bool = False) -> None:
        if not replay and self.shared_group:
            if signum == signal.SIGINT and _in_foreground_of_terminal():
                return  # Ctrl-C reached the child's process group already
            if signum == signal.SIGHUP and self.terminal_job:
                return  # a hangup, or the shell's SIGHUP to its job, reached the group already
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


_EXIT_POLL_S = 0.05
"""Without a pidfd, how often the wrapper looks whether the child has exited (a signal still
wakes it at once)."""


def _wait(pid: int, wakeup: int | None) -> tuple[int, int | None]:
    """Reap ``pid``; returns (wait status, peak RSS in bytes of the child and its reaped
    descendants).

    ``wakeup`` is the read end of `_Forwarder`'s wakeup pipe: the wait then returns to Python
    (whose handlers run) for every signal, even one whose handler was still pending when the
    wait began (`_reap_awake`). Without it (no handlers: not the main thread) a plain wait4;
    EINTR is retried by Python (PEP 475) after any signal handler ran."""
    if wakeup is None:
        _, status, usage = os.wait4(pid, 0)
    else:
        status, usage = _reap_awake(pid, wakeup)
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    peak = int(usage.ru_maxrss) * scale
    return status, peak if peak > 0 else None


def _reap_awake(pid: int, wakeup: int) -> tuple[int, Any]:
    """Reap ``pid`` without blocking in wait4: block in poll on the wakeup pipe and a pidfd
    (Linux 5.3+; readable once the child has exited). Without a pidfd (macOS, a sandbox that
    refuses pidfd_open) the child is looked at every `_EXIT_POLL_S` as well."""
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    poller = select.poll()
    poller.register(wakeup, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    timeout_ms = None if pidfd is not None else _EXIT_POLL_S * 1000
    try:
        while True:
            reaped, status, usage = os.wait4(pid, os.WNOHANG)
            if reaped:
                return status, usage
            poller.poll(timeout_ms)
            _drain(wakeup)  # the pending handlers run as Python returns from these calls
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _drain(fd: int) -> None:
    with contextlib.suppress(BlockingIOError):
        while os.read(fd, 512):
            pass


# --- launch body ---------------------------------------------------------------------------
def _store_launch_objects(ledger: Ledger, facts: Facts, config: Path | None,
                          body: dict[str, Any], extra: dict[str, Any]) -> None:
    """Put the scrubbed diff and config into the CAS and name them in the launch body."""
    from labledger.ledger.artifacts import open_store

    store = open_store(ledger)
    if facts.diff is not None:
        text = facts.diff.decode("utf-8", "surrogateescape")
        scrubbed = scrub_text(text, line_values=True)
        body["git_diff_digest"] = store.put_bytes(
            scrubbed.encode("utf-8", "surrogateescape")).digest
        extra["git_diff_scrubbed"] = scrubbed != text
    if config is not None and facts.config is not None:
        result = scrub_config(config.name, facts.config)
        body["config_digest"] = store.put_bytes(result.data).digest
        extra["config_scrub"] = {"method": result.method, "redactions": result.redactions,
                                 "verified": result.verified}


def _record_launch(ledger: Ledger, facts: Facts, config: Path | None, body: dict[str, Any],
                   extra: dict[str, Any], run_id: str, instance: str | None,
                   result: RunResult) -> None:
    """Store the launch objects and append `run.launched` naming them. Only when there is
    something to store is gc held off (`Store.holding_off_gc`) from before the first put until
    the append returns, so no `cas gc --grace 0` removes them in between; a launch with no
    diff and no config creates no store (nor its lock file)."""
    stores = facts.diff is not None or (config is not None and facts.config is not None)
    hold: AbstractContextManager[None] = contextlib.nullcontext()
    if stores:
        from labledger.ledger.artifacts import open_store

        hold = open_store(ledger).holding_off_gc()
    with hold:
        _store_launch_objects(ledger, facts, config, body, extra)
        record = ledger.append("run.launched", run=run_id, instance=instance, **body,
                               extra=extra)
    result.launched_id = record.id


def _launch_body(argv: Sequence[str], cwd: str, env: Mapping[str, str], facts: Facts,
                 heartbeat: float | None, config: Path | None) -> tuple[dict[str, Any],
                                                                        dict[str, Any]]:
    try:
        user: str | None = getpass.getuser()
    except (KeyError, OSError):
        user = None
    body: dict[str, Any] = {
        "command": scrub_argv(argv),
        "cwd": scrub_text(cwd),
        "host": socket.gethostname(),
        "user": user,
        "pid": os.getpid(),
        "env": scrub_env(env),
        "gpus": facts.gpus,
    }
    extra: dict[str, Any] = {"pid_role": "wrapper"}
    if facts.commit is not None:
        body["git_commit"] = facts.commit
    if facts.dirty is not None:
        body["git_dirty"] = facts.dirty
        extra["git_untracked"] = facts.untracked
    for key in ("python", "torch", "cuda"):
        if facts.interpreter.get(key):
            body[key] = facts.interpreter[key]
    if facts.interpreter.get("executable"):
        extra["python_executable"] = scrub_text(facts.interpreter["executable"])
        extra["python_source"] = facts.interpreter["source"]
    if facts.driver:
        extra["nvidia_driver"] = facts.driver
    if heartbeat is not None:
        body["heartbeat_interval_s"] = float(heartbeat)
    if config is not None:
        body["config_path"] = scrub_text(str(config))
    return {k: v for k, v in body.items() if v is not None}, extra


def _start(argv: Sequence[str], cwd: str, env: Mapping[str, str], own_group: bool
           ) -> tuple[subprocess.Popen[bytes] | None, int, str | None]:
    """Start the command: (process, 0, None) or (None, 126/127, why) as a shell would.

    ``own_group``: the command gets a process group of its own and dies with the wrapper (see
    the module docstring, step 3)."""
    preexec = _own_group_dying_with(os.getpid()) if own_group else None
    try:
        return subprocess.Popen(list(argv), cwd=cwd, env=dict(env), preexec_fn=preexec), 0, None
    except FileNotFoundError as exc:
        return None, 127, f"{argv[0]}: command not found ({exc.strerror})"
    except OSError as exc:
        return None, 126, f"{argv[0]}: cannot execute ({exc.strerror or exc})"


def run_command(
    argv: Sequence[str],
    *,
    run: str | None = None,
    instance: str | None = None,
    config: str | os.PathLike[str] | None = None,
    heartbeat: float | None = None,
    strict: bool = False,
    root: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    report: Report | None = None,
    hold_signals: bool = False,
) -> RunResult:
    """Run ``argv`` as a recorded run and return how it ended.

    Parameters
    ----------
    argv
        The command and its arguments (not a shell string).
    run, instance
        The run id (generated by `make_run_id` when None) and the instance it runs on.
    config
        A configuration file to store (scrubbed) in the CAS and name in `run.launched`.
    heartbeat
        Seconds between `run.heartbeat` events, at least `MIN_HEARTBEAT_S`; None for no
        heartbeats.
    strict
        Refuse to start the command when its launch cannot be recorded.
    root, cwd, env
        Where the ledger is (as `Ledger.open`), where the command runs, and its environment
        (default: this process's); ``LABLEDGER_RUN``/``LABLEDGER_ROOT`` are added to it.
    report
        Called with ``("run", run_id)`` before the command starts and ``("warning", message)``
        for every bookkeeping failure, as it happens (from the heartbeat thread too).
    hold_signals
        Once the command has ended and `run.exited` is written, leave the forwarded signals
        ignored instead of restoring the caller's handlers, so that a late signal (a second
        Ctrl-C) cannot change how the calling process ends: for a wrapper that exits with
        ``exit_code`` next, as ``labledger run`` does.

    Raises
    ------
    InvalidEventError
        ``run`` or ``instance`` is not a valid id, or ``argv`` is empty, or ``heartbeat`` is
        not a number of seconds from `MIN_HEARTBEAT_S` up (nothing started, nothing written).
    RunRefusedError
        ``strict`` and the launch could not be recorded (nothing started).
    """
    if not argv:
        raise InvalidEventError("no command to run; put it after --", field="command")
    for what, value in (("run", run), ("instance", instance)):
        if value is not None and not _ID_RE.fullmatch(value):
            raise InvalidEventError(
                f"{value!r} is not a valid {what} id (letters, digits and ._:@+=- ; at most 256; "
                "starting with a letter or digit)", field=what)
    if heartbeat is not None and (
            isinstance(heartbeat, bool) or not isinstance(heartbeat, int | float)
            or not MIN_HEARTBEAT_S <= heartbeat <= threading.TIMEOUT_MAX):
        raise InvalidEventError(
            f"the heartbeat interval is {heartbeat!r}: it must be a number of seconds from "
            f"{MIN_HEARTBEAT_S:g} (every heartbeat is an fsynced event: a shorter interval "
            f"would flood the ledger) to {threading.TIMEOUT_MAX:.0f}", field="heartbeat")
    notify: Report = report or (lambda _kind, _message: None)
    run_id = run or make_run_id(argv)
    workdir = os.fspath(cwd) if cwd is not None else os.getcwd()
    base_env = dict(os.environ if env is None else env)
    config_path = Path(config).absolute() if config is not None else None
    result = RunResult(run=run_id, exit_code=0)

    ledger: Ledger | None = None
    launch_problem: str | None = None
    try:
        ledger = Ledger.open(root)
    except _LEDGER_FAILURES as exc:
        launch_problem = str(exc)
    recorder = _Recorder(ledger, notify, result.problems)
    if ledger is not None and run is not None:
        _refuse_sealed(ledger, run, recorder)

    try:
        facts = gather(argv, workdir, base_env)
    except Exception as exc:  # a probe bug must not keep the command from running
        facts = Facts()
        recorder.warn(f"could not gather the launch facts of run {run_id}: {exc!r}")
    if config_path is not None and ledger is not None:
        try:
            facts.config = config_path.read_bytes()
        except OSError as exc:
            recorder.warn(f"could not read the config {config_path}: {exc.strerror or exc}")
    body, extra = _launch_body(argv, workdir, base_env, facts, heartbeat, config_path)
    forwarder = _Forwarder()
    # Before run.launched: from then on a signal is caught (and replayed to the child once it
    # starts), so the wrapper cannot die between the launch and its run.exited.
    forwarder.install()
    ended = False
    try:
        _launch_and_supervise(argv, run_id, instance, workdir, base_env, heartbeat, strict,
                              ledger, launch_problem, facts, config_path, body, extra,
                              recorder, forwarder, notify, result)
        ended = True
    finally:
        # Handlers stay until run.exited is written: a second SIGTERM (Slurm's KillWait, an
        # impatient user) must not kill the wrapper between the child's exit and its record.
        # Held (ignored from then on, never back to a handler that raises or kills), the run's
        # end stays the wrapper's: its exit status is the command's, as recorded.
        forwarder.restore(ignore=hold_signals and ended)
        if ledger is not None:
            ledger.close()
    return result


def _launch_and_supervise(argv: Sequence[str], run_id: str, instance: str | None, workdir: str,
                          base_env: Mapping[str, str], heartbeat: float | None, strict: bool,
                          ledger: Ledger | None, launch_problem: str | None, facts: Facts,
                          config_path: Path | None, body: dict[str, Any],
                          extra: dict[str, Any], recorder: _Recorder, forwarder: _Forwarder,
                          notify: Report, result: RunResult) -> None:
    if ledger is not None:
        try:
            _record_launch(ledger, facts, config_path, body, extra, run_id, instance, result)
        except _LEDGER_FAILURES as exc:
            launch_problem = str(exc)
    if launch_problem is not None:
        if strict:
            raise RunRefusedError(run_id, f"the ledger could not record its launch: "
                                          f"{launch_problem}")
        recorder.warn(f"could not record the launch of run {run_id} ({launch_problem}); "
                      "the command runs without a record")

    child_env = dict(base_env)
    child_env["LABLEDGER_RUN"] = run_id
    if ledger is not None:
        child_env["LABLEDGER_ROOT"] = str(ledger.paths.project)
    if instance is not None:
        child_env["LABLEDGER_INSTANCE"] = instance
    notify("run", run_id)
    _supervise(argv, workdir, child_env, heartbeat, recorder, forwarder, result, instance)


def _refuse_sealed(ledger: Ledger, run: str, recorder: _Recorder) -> None:
    """A sealed run is never launched again (DOMAIN: re-running mints a new run id): its
    state would turn from sealed back to running, and its capsule would no longer be the run.
    A ledger that cannot be read to tell is reported, and the command runs (bookkeeping never
    blocks training)."""
    from labledger.ingest.capsule import sealed_record

    try:
        sealed = sealed_record(ledger, run)
    except _LEDGER_FAILURES as exc:
        recorder.warn(f"could not check whether run {run} was sealed before ({exc})")
        return
    if sealed is not None:
        ledger.close()
        raise InvalidEventError(
            f"run {run!r} is sealed (capsule.sealed {sealed.id[:12]} at "
            f"{sealed.body_dict().get('path')}); re-running mints a new run id: leave out --run "
            "or give a new one; nothing was started", field="run")


def _supervise(argv: Sequence[str], workdir: str, child_env: Mapping[str, str],
               heartbeat: float | None, recorder: _Recorder, forwarder: _Forwarder,
               result: RunResult, instance: str | None) -> None:
    """Start the command, beat, reap it, record `run.exited`; fills ``result``."""
    run_id = result.run
    started = time.monotonic()
    # A foreground job of a terminal keeps the command in its group (it owns the terminal as
    # it would alone); anything else gives it a group of its own (module docstring, step 3).
    terminal_job = _foreground_job_of_terminal()
    own_group = sys.platform.startswith("linux") and not terminal_job
    proc, failed_code, why = _start(argv, workdir, child_env, own_group)
    if proc is None:
        result.exit_code = failed_code
        recorder.warn(why or "the command could not be started")
        result.exited_id = _record_exit(recorder, run_id, instance, {"exit_code": failed_code},
                                        {"error": why})
        return
    result.pid = proc.pid
    forwarder.attach(proc.pid, shared_group=not own_group,
                     terminal_job=terminal_job and not own_group)
    stop = threading.Event()
    beats = _start_heartbeats(recorder, run_id, instance, proc.pid, heartbeat, stop, result)
    try:
        status, result.peak_rss_bytes = _wait(proc.pid, forwarder.wakeup)
    finally:
        forwarder.detach()
        stop.set()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    result.duration_s = time.monotonic() - started
    if beats is not None:
        beats.join(timeout=(heartbeat or 0) + PROBE_TIMEOUT_S)

    exit_body: dict[str, Any] = {"duration_s": round(result.duration_s, 6)}
    if proc.returncode < 0:
        result.signal = -proc.returncode
        result.exit_code = 128 + result.signal
        exit_body["signal"] = result.signal
    else:
        result.returncode = result.exit_code = proc.returncode
        exit_body["exit_code"] = proc.returncode
    if result.peak_rss_bytes is not None:
        exit_body["peak_rss_bytes"] = result.peak_rss_bytes
    exit_extra: dict[str, Any] = {"pid": proc.pid, "heartbeats": result.heartbeats}
    if forwarder.received:
        exit_extra["signals_received"] = [signal.Signals(s).name for s in forwarder.received]
    result.exited_id = _record_exit(recorder, run_id, instance, exit_body, exit_extra)


def _record_exit(recorder: _Recorder, run_id: str, instance: str | None,
                 body: dict[str, Any], extra: dict[str, Any]) -> str | None:
    record = recorder.append("run.exited", run=run_id, instance=instance, **body,
                             extra={k: v for k, v in extra.items() if v is not None})
    return record.id if record is not None else None


def _start_heartbeats(recorder: _Recorder, run_id: str, instance: str | None, pid: int,
                      interval: float | None, stop: threading.Event, result: RunResult
                      ) -> threading.Thread | None:
    if interval is None or recorder.ledger is None:
        return None

    def beat() -> None:
        while not stop.wait(interval):
            if recorder.append("run.heartbeat", run=run_id, instance=instance,
                               pid=pid) is not None:
                result.heartbeats += 1

    thread = threading.Thread(target=beat, name=f"labledger-heartbeat-{run_id}", daemon=True)
    thread.start()
    return thread
