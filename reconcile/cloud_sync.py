"""Which local paths a cloud storage tool's command deletes (for the agent hook).

Researchers keep their runs in buckets and sync them with ``rclone``, ``aws s3``, ``gsutil``,
``gcloud storage``, ``azcopy`` and ``s5cmd``. Each of these deletes LOCAL files in some of its
forms, and each form is judged here as ``rm -r`` of the local paths it may delete:

* a sync that deletes what the source lacks, where the destination is local (``rclone sync
  remote:runs ./capsules``: rclone.org, "sync: Make source and dest identical, modifying
  destination only ... Deletes any files that exist in dest that are not in source"; ``aws s3
  sync ... --delete``; ``gsutil rsync -d``; ``gcloud storage rsync
  --delete-unmatched-destination-objects``; ``azcopy sync --delete-destination=true|prompt``;
  ``s5cmd sync --delete``), and ``rclone bisync`` (either side);
* a move whose source is local (``rclone move|moveto``, ``aws s3 mv``, ``gsutil mv``,
  ``gcloud storage mv``, ``s5cmd mv``): the files leave their place once uploaded, as ``mv``'s
  sources do;
* ``rclone delete|deletefile|purge`` of a local path.

And a download writes where it lands (`cloud_writes`): into a local folder (a sync, a
recursive copy: anything the folder holds may be overwritten), or onto one local file.

What the remote lacks is not known here, so a deleting sync stands for a delete of its whole
destination (as ``rsync --delete`` is judged). A dry run (``--dry-run``, ``-n``, ``--dryrun``)
deletes nothing. Options are read without each tool's full list: where an option not known to
take a value stands before a word, the word is read both ways (a value, an operand), so the
paths judged are a superset of the real ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

__all__ = ["CLOUD_TOOLS", "CloudWrite", "cloud_deleted", "cloud_writes"]

CLOUD_TOOLS = frozenset({"rclone", "aws", "gsutil", "gcloud", "azcopy", "s5cmd"})

# options of each tool that take the next word as their value (the common ones; any other is
# read each way, `_operand_readings`)
_RCLONE_VALUES = frozenset({
    "--config", "--transfers", "--checkers", "--exclude", "--include", "--filter",
    "--exclude-from", "--include-from", "--filter-from", "--files-from", "--files-from-raw",
    "--backup-dir", "--suffix", "--log-file", "--log-level", "--bwlimit", "--max-age",
    "--min-age", "--max-size", "--min-size", "--max-depth", "--retries", "--low-level-retries",
    "--stats", "--timeout", "--contimeout", "--max-transfer", "--order-by", "--compare-dest",
    "--copy-dest", "--max-delete", "--max-backlog", "--multi-thread-streams",
    "--multi-thread-cutoff", "--buffer-size", "--cache-dir", "--tpslimit", "--user-agent",
    "--header", "--exclude-if-present", "--stats-log-level", "--workdir", "--compare",
    "--conflict-resolve", "--conflict-loser", "--conflict-suffix", "--backup-dir1",
    "--backup-dir2", "--max-lock", "--password-command", "--check-filename"})
_AWS_VALUES = frozenset({
    "--profile", "--region", "--endpoint-url", "--output", "--query", "--cli-read-timeout",
    "--cli-connect-timeout", "--ca-bundle", "--color", "--exclude", "--include", "--acl",
    "--sse", "--sse-c", "--sse-c-key", "--sse-kms-key-id", "--storage-class", "--grants",
    "--website-redirect", "--content-type", "--cache-control", "--content-disposition",
    "--content-encoding", "--content-language", "--expires", "--metadata",
    "--metadata-directive", "--page-size", "--request-payer", "--source-region",
    "--expected-size", "--checksum-algorithm", "--checksum-mode"})
_GSUTIL_VALUES = frozenset({"-o", "-h", "-u", "-i", "-x", "-j", "-a", "-y", "-s"})
_GCLOUD_VALUES = frozenset({
    "--project", "--account", "--configuration", "--verbosity", "--format",
    "--impersonate-service-account", "--billing-project", "--exclude", "-x",
    "--additional-headers", "--cache-control", "--content-type", "--content-disposition",
    "--content-encoding", "--content-language", "--custom-time", "--storage-class",
    "--predefined-acl", "--encryption-key", "--decryption-keys", "--custom-metadata"})
_AZCOPY_VALUES = frozenset({
    "--delete-destination", "--exclude-pattern", "--include-pattern", "--exclude-path",
    "--log-level", "--block-size-mb", "--cap-mbps", "--compare-hash",
    "--trusted-microsoft-suffixes", "--exclude-attributes", "--include-attributes",
    "--from-to", "--output-type"})
_S5CMD_VALUES = frozenset({
    "--endpoint-url", "--numworkers", "--retry-count", "-r", "--log", "--credentials-file",
    "--profile", "--exclude", "--include", "--storage-class", "--concurrency", "-c",
    "--part-size", "-p", "--content-type", "--cache-control", "--expires", "--acl"})

_DRY = frozenset({"--dry-run", "--dryrun", "--dry-run=true"})
# a remote of rclone (`gdrive:runs`, `:s3:bucket`), a URL of the others (`s3://`, `gs://`,
# `https://`); a local path may hold a colon after its first slash (`./a:b`)
_RCLONE_REMOTE = re.compile(r"^:?[^/\\:.~$`][^/\\:]*:")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def cloud_deleted(name: str, args: list[str]) -> list[str] | None:
    """The local paths the command ``name ARGS`` (one of `CLOUD_TOOLS`) may delete, each
    wholly (see the module docstring); None when it deletes nothing here. Its subcommand
    read each way an option not known before it allows (`_first_words`)."""
    args = _local_backend(name, args)
    found = [_deleted_reading(name, args, j) for j in _first_words(args, _VALUES.get(name, ()))]
    if all(paths is None for paths in found):
        return None
    return _unique(w for paths in found for w in paths or [])


def _deleted_reading(name: str, args: list[str], j: int) -> list[str] | None:
    """What ``name ARGS`` deletes, its subcommand at ``j``."""
    if name == "rclone":
        return _rclone(args, j)
    if name == "aws":
        if args[j] != "s3" or len(args) <= j + 1:
            return None
        return _sync_or_move(args[j + 1], args[j + 2:], _AWS_VALUES, "--delete", _not_url)
    if name == "s5cmd":
        if _dry(args[:j]):
            return None
        return _sync_or_move(args[j], args[j + 1:], _S5CMD_VALUES, "--delete", _not_url)
    if name == "gsutil":  # gsutil [-m] rsync [-d] [-r] [-n] SRC DST; gsutil mv SRC... DST
        if args[j] not in ("rsync", "mv"):
            return None
        rest = args[j + 1:]
        if _dry(rest, short_n=True):
            return None
        deletes = args[j] == "mv" or _short_flag(rest, "d", _GSUTIL_VALUES)
        return [_file_path(w) for w in _sync_or_move(
            "sync" if args[j] == "rsync" else "mv", rest, _GSUTIL_VALUES, None, _gs_local)
            or []] if deletes else None
    if name == "gcloud":
        if args[j] != "storage" or len(args) <= j + 1:
            return None
        found = _sync_or_move("sync" if args[j + 1] == "rsync" else args[j + 1], args[j + 2:],
                              _GCLOUD_VALUES, "--delete-unmatched-destination-objects",
                              _gs_local)
        return None if found is None else [_file_path(w) for w in found]
    if name == "azcopy":
        if args[j] != "sync" or _dry(args):
            return None
        value = _value_of(args[j + 1:], "--delete-destination")
        if value is None or value.lower() not in ("true", "prompt"):
            return None
        return _destinations(args[j + 1:], _AZCOPY_VALUES, _not_url)
    return None


def _rclone(args: list[str], j: int) -> list[str] | None:
    if _dry(args, short_n=True):
        return None
    sub, readings = args[j], _operand_readings(args[j + 1:], _RCLONE_VALUES)
    if sub == "sync":
        return _destinations(args[j + 1:], _RCLONE_VALUES, _rclone_local)
    if sub == "bisync":  # either side deletes what was deleted on the other
        return _unique(w for reading in readings for w in reading[:2] if _rclone_local(w))
    if sub in ("move", "moveto"):  # its source, once uploaded
        return _unique(reading[0] for reading in readings
                       if len(reading) > 1 and _rclone_local(reading[0]))
    if sub in ("delete", "deletefile", "purge"):
        return _unique(reading[0] for reading in readings
                       if reading and _rclone_local(reading[0]))
    return None


def _sync_or_move(sub: str, rest: list[str], valued: Collection[str],
                  delete_flag: str | None, local: Callable[[str], bool]) -> list[str] | None:
    """``sync`` (deleting only with ``delete_flag`` given; None: always) or ``mv``: its
    local destination, or its local sources (each operand but the last)."""
    if _dry(rest):
        return None
    if sub == "sync":
        if delete_flag is not None and _value_of(rest, delete_flag) is None:
            return None
        return _destinations(rest, valued, local)
    if sub == "mv":
        return _unique(w for reading in _operand_readings(rest, valued)
                       for w in reading[:-1] if local(w))
    return None


def _destinations(rest: list[str], valued: Collection[str],
                  local: Callable[[str], bool]) -> list[str]:
    """The last operand of each reading of ``rest`` (a source and a destination), where
    it is local."""
    return _unique(reading[-1] for reading in _operand_readings(rest, valued)
                   if len(reading) > 1 and local(reading[-1]))


def _operand_readings(args: list[str], valued: Collection[str]) -> list[list[str]]:
    """The operands of ``args`` in each way its options may be read: an option neither
    known to take a value nor written ``--name=value``, before a word that is no option,
    takes that word as its value or not, each such option either way (``sync -P SRC DST
    --drive-chunk-size 64M``: DST is the last operand in one reading, 64M in another; the
    first `_READ_EACH_WAY` of them each way, any further all one way or all the other).
    After ``--``: all operands."""
    ambiguous: list[int] = []
    i = 0
    while i < len(args) and args[i] != "--":
        word = args[i]
        i += 1
        if word.startswith("-") and word != "-" and "=" not in word:
            if word in valued:
                i += 1
            elif i < len(args) and (not args[i].startswith("-") or args[i] == "-"):
                ambiguous.append(i - 1)
    first, rest = ambiguous[:_READ_EACH_WAY], ambiguous[_READ_EACH_WAY:]
    readings: list[list[str]] = []
    for mask in range(1 << len(first)):
        for rest_take in ((False, True) if rest else (False,)):
            takes = {k for n, k in enumerate(first) if mask >> n & 1}
            takes |= set(rest) if rest_take else set()
            operands = _operands(args, valued, takes)
            if operands not in readings:
                readings.append(operands)
    return readings


_READ_EACH_WAY = 8  # options not known read each way (2 ** 8 readings at most, 2 ** 9)


def _operands(args: list[str], valued: Collection[str], takes: Collection[int]) -> list[str]:
    """The operands of ``args``, the options at the indexes ``takes`` (and known ones)
    taking the next word as their value."""
    operands: list[str] = []
    i, ended = 0, False
    while i < len(args):
        word = args[i]
        i += 1
        if ended or not word.startswith("-") or word == "-":
            operands.append(word)
        elif word == "--":
            ended = True
        elif "=" not in word and (word in valued or i - 1 in takes):
            i += 1
    return operands


def _first_words(args: list[str], valued: Collection[str]) -> list[int]:
    """Where the subcommand may stand: the first word that is neither an option nor a known
    option's value, and before it each word after an option not known (written without
    ``=``), which may be that option's value or not (rclone's backends add hundreds of
    valued options: ``--drive-chunk-size 64M sync``, flags too: ``-P sync``)."""
    found: list[int] = []
    i = 0
    while i < len(args):
        word = args[i]
        if not word.startswith("-") or word == "-":
            return [*found, i]
        i += 2 if word in valued else 1
        if word not in valued and "=" not in word and i < len(args) and (
                not args[i].startswith("-") or args[i] == "-"):
            found.append(i)  # (the subcommand, or this option's value: both are read)
            i += 1
    return found


def _short_flag(args: list[str], letter: str, valued: Collection[str]) -> bool:
    """The flag ``-LETTER`` is given, alone or in a bundle (``-rd``) before any letter that
    takes a value."""
    for word in args:
        if word.startswith("-") and not word.startswith("--"):
            for c in word[1:]:
                if c == letter:
                    return True
                if "-" + c in valued:
                    break
    return False


def _value_of(args: list[str], option: str) -> str | None:
    """The value of ``option`` (``--name=VALUE``, ``--name VALUE``; "" for a flag)."""
    for k, word in enumerate(args):
        if word == option:
            following = args[k + 1] if k + 1 < len(args) else ""
            return "" if following.startswith("-") else following
        if word.startswith(option + "="):
            return word.split("=", 1)[1]
    return None


def _dry(args: list[str], short_n: bool = False) -> bool:
    """A dry run: ``--dry-run``, ``--dryrun``; with ``short_n``, ``-n`` too (rclone,
    gsutil rsync), alone or in a bundle."""
    return any(w in _DRY for w in args) or (short_n and _short_flag(args, "n", ()))


def _unique(words: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(words))


def _rclone_local(word: str) -> bool:
    return not _RCLONE_REMOTE.match(word)


def _not_url(word: str) -> bool:
    return not _URL.match(word)


def _gs_local(word: str) -> bool:
    return word.startswith("file://") or not _URL.match(word)


def _file_path(word: str) -> str:
    return word[len("file://"):] if word.startswith("file://") else word


@dataclass(frozen=True)
class CloudWrite:
    """A local place a cloud storage tool's download writes: ``dest`` (as written), whether
    files land anywhere in it (a recursive copy, a sync: the bucket's names are not known
    here) or on ``dest`` alone (one object, ``source``: into ``dest`` by its name where
    that is a folder), and whether it keeps a file already there (``--ignore-existing``,
    ``-n``/``--no-clobber``, ``--overwrite=false``)."""

    dest: str
    inside: bool
    keeps: bool
    source: str = ""


# per tool: its subcommands that copy to a destination (the last operand), those that copy
# whole trees whatever their flags, the flags that make a copy recursive and those that keep
# existing files
_COPIERS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]] = {
    "rclone": (frozenset({"copy", "sync", "move", "copyto", "moveto", "bisync", "copyurl"}),
               frozenset({"copy", "sync", "move", "bisync"}), frozenset(),
               frozenset({"--ignore-existing"})),
    "aws": (frozenset({"cp", "sync", "mv"}), frozenset({"sync"}), frozenset({"--recursive"}),
            frozenset()),
    "gsutil": (frozenset({"cp", "rsync", "mv"}), frozenset({"rsync"}),
               frozenset({"-r", "-R"}), frozenset({"-n"})),
    "gcloud": (frozenset({"cp", "rsync", "mv"}), frozenset({"rsync"}),
               frozenset({"-r", "-R", "--recursive"}), frozenset({"-n", "--no-clobber"})),
    "azcopy": (frozenset({"copy", "cp", "sync"}), frozenset({"sync"}),
               frozenset({"--recursive", "--recursive=true"}),
               frozenset({"--overwrite=false"})),
    "s5cmd": (frozenset({"cp", "sync", "mv"}), frozenset({"sync"}), frozenset(),
              frozenset({"-n", "--no-clobber"})),
}
_VALUES = {"rclone": _RCLONE_VALUES, "aws": _AWS_VALUES, "gsutil": _GSUTIL_VALUES,
           "gcloud": _GCLOUD_VALUES, "azcopy": _AZCOPY_VALUES, "s5cmd": _S5CMD_VALUES}


def cloud_writes(name: str, args: list[str]) -> list[CloudWrite]:
    """Where the command ``name ARGS`` (one of `CLOUD_TOOLS`) writes here: the local
    destination of a download (``rclone copy remote:runs capsules/c2``, ``aws s3 cp
    s3://b/m.json capsules/c2/metrics.json``), each reading of its subcommand and operands;
    none for an upload, a dry run, or any other subcommand."""
    found: list[CloudWrite] = []
    args = _local_backend(name, args)
    for j in _first_words(args, _VALUES.get(name, ())):
        found += [w for w in _writes_reading(name, args, j) if w not in found]
    return found


# rclone's on-the-fly local backend: `:local:PATH`, with parameters `:local,links:PATH`
_RCLONE_LOCAL = re.compile(r"^:local(?:,[^:]*)?:")


def _local_backend(name: str, args: list[str]) -> list[str]:
    """``args`` with rclone's ``:local:PATH`` read as the local path it is (``:local:``
    alone: the folder it runs in)."""
    if name != "rclone":
        return args
    return [_RCLONE_LOCAL.sub("", a) or "." if _RCLONE_LOCAL.match(a) else a for a in args]


def _writes_reading(name: str, args: list[str], first: int) -> list[CloudWrite]:
    """Where ``name ARGS`` writes here, its subcommand at ``first``."""
    valued = _VALUES.get(name)
    if valued is None:
        return []
    j: int | None = first
    if j is not None and name in ("aws", "gcloud"):  # `aws s3 cp`, `gcloud storage cp`
        if args[j] != ("s3" if name == "aws" else "storage"):
            return []
        j = j + 1 if j + 1 < len(args) else None
    if j is None:
        return []
    copiers, trees, recursive, keeping = _COPIERS[name]
    sub, rest = args[j], args[j + 1:]
    if sub not in copiers or _dry(args, short_n=name == "rclone") or (
            name == "gsutil" and sub == "rsync" and _short_flag(rest, "n", valued)):
        return []
    local = _rclone_local if name == "rclone" else _gs_local if name in ("gsutil", "gcloud") \
        else _not_url
    inside = sub in trees or any(w in recursive or (
        w.startswith("-") and not w.startswith("--") and any("-" + c in recursive for c in w[1:]))
        for w in rest) or any("*" in w or "?" in w for w in rest)  # (a wildcard: any names)
    keeps = any(w in keeping for w in rest) or (
        name in ("gsutil", "gcloud", "s5cmd") and sub == "cp" and _short_flag(rest, "n", valued))
    found: list[CloudWrite] = []
    for reading in _operand_readings(rest, valued):
        ends = reading[:2] if sub == "bisync" else reading[-1:] if len(reading) > 1 else []
        for dest in ends:
            if dest != "-" and local(dest):
                # (one object lands as DEST/NAME in a folder, written with its slash or
                # not; several sources (gsutil, gcloud): any of their names)
                write = CloudWrite(_file_path(dest), inside or len(reading) > 2, keeps,
                                   "" if sub == "bisync" else reading[0])
                if write not in found:
                    found.append(write)
    return found
