"""Errors raised while turning actions into events and stored objects.

Every error a caller can act on derives from `IngestError`; each keeps its facts as attributes
and renders them with ``to_json()`` so the CLI can print them under ``--json``::

    IngestError                        exit 1: the command failed
     ├── CheckpointSourceError         a checkpoint path that is missing, not a file, or changed
     ├── CapsuleConfigError            `.labledger/capsule.toml` is not valid
     ├── CapsuleExistsError            the export destination already exists (nothing was moved)
     ├── CapsuleSourceError            a source directory that cannot be closed (nothing moved)
     │    └── CapsuleSourceMissingError  exit 2: it does not exist, or is not a directory
     │         └── CapsuleSourceEmptyError  `ingest-dir`: it holds no file to record
     ├── CapsuleInterruptedError       an earlier closure left `.partial/<run>` behind
     ├── CapsuleBusyError              another closure of the same run is in progress
     ├── CapsuleRunningError           the ledger shows the run as still running
     ├── CapsuleUnplacedError          recorded as sealed, but not yet renamed into place
     ├── CapsuleSourceKeptError        `close --move`: sealed and in place, the source kept
     ├── CapsuleQuarantinedError       exit 3: the candidate failed and was quarantined
     └── RunRefusedError               `labledger run --strict`: the launch could not be recorded,
                                       so the command was not started
"""

from __future__ import annotations

from pathlib import Path

from labledger.cas.errors import ReportableError


class IngestError(ReportableError):
    """Base for ingest errors a caller can act on."""


class CheckpointSourceError(IngestError):
    """A checkpoint path that cannot be recorded: missing, not a regular file, or changing."""

    _fields = ("path", "problem")

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"checkpoint {path}: {problem}; nothing was recorded")
        self.path, self.problem = path, problem


class CapsuleConfigError(IngestError):
    """`.labledger/capsule.toml` does not parse or names an unknown option."""

    _fields = ("path", "problem")

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem} (see docs/capture.md, 'capsule.toml')")
        self.path, self.problem = path, problem


class CapsuleExistsError(IngestError):
    """The export destination already exists; sealed capsules are never overwritten."""

    _fields = ("run", "destination")

    def __init__(self, run: str, destination: Path, sealed: str | None = None) -> None:
        if sealed:
            # Any export root: a run is sealed once, wherever its capsule went.
            text = (f"run {run} is already sealed (capsule.sealed {sealed[:12]}); a sealed run "
                    f"is never closed again, in any export root. Nothing was copied or moved. "
                    f"Re-running mints a new run id: close new files under a new --run")
        else:
            text = (f"{destination} already exists; a capsule is never overwritten. Nothing "
                    f"was copied or moved. Move it out of the way, or pick another "
                    f"--export-root")
        super().__init__(text)
        self.run, self.destination = run, destination


class CapsuleSourceError(IngestError):
    """A source directory that cannot be used (missing, not a directory, or holds the target)."""

    _fields = ("source", "problem")

    def __init__(self, source: Path, problem: str) -> None:
        super().__init__(f"{source}: {problem}; nothing was copied, moved or recorded")
        self.source, self.problem = source, problem


class CapsuleSourceMissingError(CapsuleSourceError):
    """The source names no directory (a typo, a file): bad input, exit 2 like any path on the
    command line that does not exist. The rest of `CapsuleSourceError` (a source that holds the
    export root, an unwritable parent for --move, an unreadable file) is a failure, exit 1."""


class CapsuleSourceEmptyError(CapsuleSourceMissingError):
    """`ingest-dir` of a folder with no file in it (empty, or only empty folders): a run adopted
    with nothing of its own is a wrong path, not a result; bad input, exit 2, like a folder that
    does not exist."""


class CapsuleInterruptedError(IngestError):
    """An earlier closure of the same run left its candidate in ``.partial/``."""

    _fields = ("run", "partial")

    def __init__(self, run: str, partial: Path, *, sealed_digest: str | None = None,
                 destination: Path | None = None) -> None:
        if sealed_digest is None:
            text = (f"{partial} exists: an earlier closure of run {run} was interrupted. "
                    f"Nothing was copied or moved; inspect it, then move it out of the way "
                    f"(labledger never deletes it) and close again")
        else:
            # Already sealed: closing again can only refuse; the store holds the capsule.
            text = (f"run {run} is sealed as tree {sealed_digest}, but {partial} is not that "
                    f"tree (it changed after the seal). Nothing was copied or moved. Move "
                    f"{partial} out of the way (labledger never deletes it), then restore the "
                    f"sealed capsule from the store: labledger cas get {sealed_digest} -o "
                    f"{destination}")
        super().__init__(text)
        self.run, self.partial = run, partial


class CapsuleBusyError(IngestError):
    """Another closure of the same run holds its lock (``.partial/.lock-<run>``)."""

    _fields = ("run", "partial")

    def __init__(self, run: str, partial: Path) -> None:
        super().__init__(
            f"another `labledger close` of run {run} is in progress (it holds the lock beside "
            f"{partial}); nothing was copied or moved. Wait for it to finish, then look at its "
            f"result")
        self.run, self.partial = run, partial


class CapsuleRunningError(IngestError):
    """The ledger shows the run as still running: launched, with no `run.exited` since."""

    _fields = ("run", "launched", "since", "host")

    def __init__(self, run: str, launched: str, since: str, host: str | None) -> None:
        where = f" on {host}" if host else ""
        super().__init__(
            f"run {run} is still running according to the ledger (run.launched "
            f"{launched[:12]} at {since}{where}, no run.exited since); a process still writing "
            f"would change the capsule after its seal. Nothing was copied or moved. Close it "
            f"once the command has exited, or pass --allow-running if you know it no longer "
            f"writes (its wrapper was killed, the box is gone)")
        self.run, self.launched, self.since, self.host = run, launched, since, host


class CapsuleUnplacedError(IngestError):
    """The capsule was stored and recorded as sealed, but ``.partial/<run>`` could not be
    renamed to ``<run>``: running the same `labledger close` again finishes it."""

    _fields = ("run", "partial", "destination", "event_id", "problem")

    def __init__(self, run: str, partial: Path, destination: Path, event_id: str,
                 problem: str) -> None:
        super().__init__(
            f"run {run} is sealed and recorded (event {event_id[:12]}), but {partial} could not "
            f"be moved to {destination}: {problem}. Nothing is lost (the capsule is in the "
            f"store); run the same `labledger close` again to put it in place")
        self.run, self.partial, self.destination = run, partial, destination
        self.event_id, self.problem = event_id, problem


class CapsuleSourceKeptError(IngestError):
    """`close --move` across filesystems sealed, recorded and placed the capsule (a copy), but
    the source could not be removed, so it was kept whole (``partly``: removal failed half-way).
    ``sealed`` is the `SealedCapsule` the closure returned."""

    _fields = ("run", "source", "destination", "event_id", "problem")

    def __init__(self, run: str, source: Path, destination: Path, event_id: str, problem: str,
                 *, partly: bool = False, sealed: object = None) -> None:
        kept = "was partly removed" if partly else "was kept (nothing in it was deleted)"
        super().__init__(
            f"run {run} is sealed in {destination} (capsule.sealed {event_id[:12]}), but the "
            f"moved source {source} {kept}: {problem}. The capsule is the run now; remove "
            f"{source} yourself once you no longer need it")
        self.run, self.source, self.destination = run, source, destination
        self.event_id, self.problem, self.sealed = event_id, problem, sealed


class CapsuleQuarantinedError(IngestError):
    """The candidate failed validation (or the closure failed) and was moved to quarantine.

    ``problems`` lists every rule it broke; ``quarantine`` is where its files are now;
    ``event_id`` is the `capsule.quarantined` event (None if the ledger could not be written).
    """

    _fields = ("run", "quarantine", "attempt", "problems", "event_id")

    def __init__(self, run: str, quarantine: Path, attempt: int, problems: list[str],
                 event_id: str | None) -> None:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more"
                                           if len(problems) > 5 else "")
        super().__init__(
            f"run {run} was not sealed: {shown}. Its files are in {quarantine} (see REASON.txt "
            f"there); fix the run and close it again")
        self.run, self.quarantine, self.attempt = run, quarantine, attempt
        self.problems, self.event_id = problems, event_id


class RunRefusedError(IngestError):
    """`--strict`: the launch could not be recorded, so the command was never started."""

    _fields = ("run", "problem")

    def __init__(self, run: str, problem: str) -> None:
        super().__init__(
            f"run {run} was not started: {problem}. --strict refuses to run a command the ledger "
            f"cannot record; fix the ledger (`labledger init`, free disk space, a local disk) or "
            f"drop --strict to run it anyway with the failure reported")
        self.run, self.problem = run, problem


class TransportError(IngestError):
    """The box could not be reached or read (connection, authentication, a remote command).

    A transport failure never records success: events already written stay, nothing claims a
    file that was not received and compared.
    """

    _fields: tuple[str, ...] = ("source", "problem")

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}; nothing further was pulled or recorded. Check the "
                         f"connection and run `labledger pull` again: finished files are not "
                         f"transferred twice and a partial file resumes where it stopped")
        self.source, self.problem = source, problem


class HostKeyError(TransportError):
    """The box's SSH host key is unknown (not pinned) or differs from the pinned one."""

    _fields: tuple[str, ...] = ("source", "problem", "host", "fingerprint", "known_hosts")

    def __init__(self, host: str, fingerprint: str, problem: str, known_hosts: str) -> None:
        IngestError.__init__(self, f"{host}: host key {fingerprint} {problem}; nothing was read "
                             f"or recorded")
        self.source, self.problem = host, problem
        self.host, self.fingerprint, self.known_hosts = host, fingerprint, known_hosts


class SecondFactorError(TransportError):
    """The box accepted the key (or password) and then asked for more: a second factor
    (keyboard-interactive: a TOTP code, a Duo push; or a password after the key), which paramiko
    cannot show at a terminal. Never retried; ``labledger pull`` answers it through OpenSSH at a
    terminal (``--ssh auto``/``openssh``, `labledger.ingest.transport_mux`). ``methods``: what
    the box still asks for."""

    _fields: tuple[str, ...] = ("source", "problem", "methods")

    def __init__(self, source: str, user: str, methods: list[str]) -> None:
        asked = ", ".join(methods) or "more"
        problem = (f"authentication as {user} needs a second factor: the box accepted the first "
                   f"one and asks for {asked}, which paramiko cannot prompt for")
        IngestError.__init__(self, f"{source}: {problem}; nothing was read or recorded. Pull "
                             f"from a terminal with --ssh openssh (or the default --ssh auto): "
                             f"OpenSSH asks for it once, at the terminal")
        self.source, self.problem, self.methods = source, problem, methods


class BoxPythonMissingError(TransportError):
    """The OpenSSH transport (`labledger.ingest.transport_mux`) lists and hashes with the box's
    ``python3``, and the box has none (3.5 or later) where the probe looks. A setting of the
    box, never retried (exit 1)."""

    _fields: tuple[str, ...] = ("source", "problem")

    def __init__(self, source: str) -> None:
        problem = ("the box has no python3 (3.5 or later, on the login's PATH or in the usual "
                   "places), which --ssh openssh lists and hashes with")
        IngestError.__init__(self, f"{source}: {problem}; nothing was read or recorded. Install "
                             f"python3 on the box, or pull with --ssh paramiko (SFTP lists, "
                             f"sha256sum hashes) where the box lets paramiko log in")
        self.source, self.problem = source, problem


class SftpUnavailableError(TransportError):
    """The box's SSH server let us in, but SFTP, which pull reads with, cannot be used there: a
    setting of that box (refused, or a start-up file printing into the session), so never
    retried. ``fix`` says what to change."""

    _fields: tuple[str, ...] = ("source", "problem", "fix")

    def __init__(self, source: str, problem: str, fix: str) -> None:
        IngestError.__init__(self, f"{source}: {problem}; nothing was read or recorded. {fix}")
        self.source, self.problem, self.fix = source, problem, fix


class PullSourceError(IngestError):
    """`labledger pull` was given a source, roster or manifest it cannot use (exit 2)."""

    _fields = ("source", "problem")

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}; nothing was pulled or recorded")
        self.source, self.problem = source, problem
