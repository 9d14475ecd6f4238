"""Audit: every command that takes user input, fed a malformed or refused one, leaves no trace.

The quality bar: a command that receives a malformed event, manifest, roster, profile or
document exits with the documented code (docs/exit-codes.md), says what is wrong on stderr,
prints no traceback, and leaves the project as it was. "As it was" is judged on the whole
project folder: every path (empty files and empty folders included), every file's bytes and
every mode: a stray lock file, an empty cache folder or a loosened mode is a trace too.

One table, one real `labledger` process per row, each in a fresh copy of one seeded project
(a run with a stored result, a claim on it, a rented box that hosted it, a README that states
the claim, a git work tree with a pre-commit hook of its own). Rows whose exit is 3 (ran to
the end and found problems: the gate refused) start from a project whose read caches are
current, since a command that ran to the end may keep what it computed; every other row
starts with no cache at all, so a refusal that writes one is caught.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3

LABLEDGER = Path(sys.executable).with_name("labledger")
NO_OBJECT = "blake3:" + "0" * 64

# A stored result in the shape of the metrics files evaluation scripts write: metric -> number
# (huggingface/transformers examples/pytorch/text-classification/run_glue.py saves them with
# trainer.save_metrics("eval", ...) as eval_results.json; here nested by split, our numbers).
METRICS = '{"test": {"psnr": 31.42, "ssim": 0.8731}, "epoch": 300}\n'
METRICS_DIGEST = "blake3:" + blake3(METRICS.encode()).hexdigest()
# A README results section, a Markdown table of PSNR per model as in
# PrasannaPulakurthi/U2Net-Image-Denoising README.md, stating the claim with a marker
# (docs/reconcile.md).
README = ("# Denoising on Kodak24\n\n## Results\n\n| Model | PSNR (dB) |\n|---|---|\n"
          "| ours | <!-- claim:C1 -->31.42 |\n")
# A pre-commit hook someone wrote by hand, a shell script like git/git
# templates/hooks--pre-commit.sample (what `git init` installs as pre-commit.sample): it runs a
# check and a non-zero exit stops the commit.
OWN_HOOK = "#!/bin/sh\n# run the linters before every commit\nexec ruff check .\n"


def _env(root: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LABLEDGER_")}
    env.update(LABLEDGER_ROOT=str(root), LABLEDGER_WRITER="test-writer",
               LABLEDGER_ACTOR="tester@test", LABLEDGER_SETTLE_S="0", HOME=str(home),
               GIT_CONFIG_NOSYSTEM="1")
    env.pop("SSH_AUTH_SOCK", None)
    return env


def _cli(root: Path, home: Path, *args: str, stdin: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LABLEDGER), *args], cwd=root, env=_env(root, home), input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded project every row copies (without its read caches)."""
    root = tmp_path_factory.mktemp("seed") / "project"
    home = root.parent / "home"
    root.mkdir()
    home.mkdir()
    (root / "runs" / "r1").mkdir(parents=True)
    (root / "runs" / "r1" / "metrics.json").write_text(METRICS)
    (root / "README.md").write_text(README)
    steps: list[list[str]] = [
        ["init"],
        ["rent", "--profile", "vastai", "--instance", "box1", "--host", "root@127.0.0.1:1"],
        ["emit", "run.launched", "--run", "r1", "--instance", "box1",
         "--data", '{"command": ["python", "train.py", "--epochs", "300"]}'],
        ["ingest-dir", "runs/r1", "--run", "r1", "--instance", "box1"],
        ["emit", "run.exited", "--run", "r1", "--instance", "box1", "--data",
         '{"exit_code": 0}'],
        ["claim", "add", "C1", "--run", "r1", "--metric", "test.psnr", "--direction",
         "higher", "--statement", "PSNR on Kodak24"],
    ]
    for step in steps:
        done = _cli(root, home, *step)
        assert done.returncode == 0, (step, done.stderr)
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=_env(root, home))
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(OWN_HOOK)
    hook.chmod(0o755)
    shutil.rmtree(root / ".labledger" / "cache", ignore_errors=True)
    return root


def _tree(root: Path) -> dict[str, tuple[str, int, bytes]]:
    """Every path under ``root`` (itself included): its type, its mode, and its bytes (a
    file) or target (a link). Empty files and folders count: they are traces too."""
    found: dict[str, tuple[str, int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        for name in [".", *dirs, *files]:
            path = Path(folder, name)
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                kind, data = "link", os.readlink(path).encode()
            elif stat.S_ISDIR(st.st_mode):
                kind, data = "dir", b""
            else:
                kind, data = "file", path.read_bytes()
            found[str(path.relative_to(root))] = (kind, stat.S_IMODE(st.st_mode), data)
    return found


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return ([f"added {p}" for p in sorted(after.keys() - before.keys())]
            + [f"removed {p}" for p in sorted(before.keys() - after.keys())]
            + [f"changed {p}: mode {oct(before[p][1])} -> {oct(after[p][1])}"
               f"{', bytes differ' if before[p][2] != after[p][2] else ''}"
               for p in sorted(before.keys() & after.keys()) if before[p] != after[p]])


def _other_host_key() -> str:
    """An ed25519 public key no sshd holds (a box whose key changed since it was pinned)."""
    blob = b"".join(len(part).to_bytes(4, "big") + part
                    for part in (b"ssh-ed25519", bytes(range(32))))
    return "ssh-ed25519 " + base64.b64encode(blob).decode()


@dataclass(frozen=True)
class Refusal:
    """One row: ``args`` for `labledger`, the exit ``code``, ``words`` stderr must hold.

    ``files`` are written into the project before the snapshot (the malformed input);
    ``stdin`` is fed to the command. In args, files and stdin, ``{box}`` becomes the sshd
    target of a box folder, ``{key}`` the client key and ``{port}`` the sshd port.
    """

    args: tuple[str, ...]
    code: int
    words: tuple[str, ...]
    files: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None

    @property
    def over_ssh(self) -> bool:
        text = " ".join([*self.args, *self.files.values(), self.stdin or ""])
        return any(mark in text for mark in ("{box}", "{key}", "{port}"))


def R(*args: str, code: int = 2, words: tuple[str, ...] | str = (),
      files: dict[str, str] | None = None, stdin: str | None = None) -> Refusal:
    return Refusal(args, code, (words,) if isinstance(words, str) else words, files or {},
                   stdin)


# Malformed inputs in the shapes users hand them over. Each JSON-lines batch: events as an
# exporter script would write them, one object per line (docs/cli.md, `labledger ingest`).
EVENTS_BAD_LINE = ('{"kind": "note", "run": "r1", "body": {"text": "eval started"}}\n'
                   '{"kind": "checkpoint.saved", "run": "r1", "body": {"step": "four"}}\n')
# A roster in the PULL/v1 shape (docs/pull.md), cut off mid-way as a failed copy leaves it.
ROSTER_CUT = '{"schema": "PULL/v1", "run": "r1", "files": [{"path": "ckpt/best.pth", "si'
# Platform profiles in the shape of the shipped ones (profiles/vastai.toml: name, title, one
# table per fact with its value, `verified` stamp and source): one cut off mid-string by a bad
# paste, one whose fact has no stamp.
PROFILE_HEAD = 'name = "mycloud"\ntitle = "My cloud"\n\n[kind]\nvalue = "gpu-vm"\n'
PROFILE_CUT = PROFILE_HEAD + 'verified = "2026-05"\nsource = "the cluster wiki, page Billi\n'
PROFILE_UNSTAMPED = PROFILE_HEAD + 'source = "the cluster wiki"\n'
# A notebook whose JSON was cut off by a crashed save.
NOTEBOOK_CUT = '{"cells": [{"cell_type": "markdown", "source": ["PSNR 31.4'
# The ledger's settings with a [reconcile] section that names an option it does not have (a
# reader's guess at "paths" for "documents").
CONFIG_BAD = '# labledger ledger settings\nformat = 1\n\n[reconcile]\npaths = ["paper/*.tex"]\n'
HOOK_DESTROY = ('{"tool_name": "Bash", "tool_input": {"command": "vastai destroy instance '
                '123"}}')

ROWS: dict[str, Refusal] = {
    # -- emit / ingest / schema ---------------------------------------------------------------
    "emit-unknown-kind": R("emit", "nosuch.kind", words="unknown event kind 'nosuch.kind'"),
    "emit-set-not-key-value": R("emit", "note", "--set", "text",
                                words="--set 'text' is not key=value"),
    "emit-data-not-json": R("emit", "note", "--data", "{text: 1}",
                            words="--data is not valid JSON"),
    "emit-attach-missing": R("emit", "note", "--set", "text=x", "--attach", "gone.bin",
                             words=("--attach", "gone.bin")),
    "emit-attach-bad-body": R("emit", "checkpoint.saved", "--run", "r1", "--set", "bogus=1",
                              "--attach", "new.bin", files={"new.bin": "fresh bytes\n"},
                              words="unknown field bogus"),
    "emit-future-at": R("emit", "note", "--set", "text=x", "--at", "2999-01-01T00:00:00Z",
                        words="is in the future"),
    "ingest-bad-line": R("ingest", "events.jsonl", files={"events.jsonl": EVENTS_BAD_LINE},
                         words=("events.jsonl:2", "step")),
    "ingest-stdin-notebook": R("ingest", "-", stdin=NOTEBOOK_CUT + '"]}]}\n',
                               words=("<stdin>:1", "cells")),
    "ingest-missing-file": R("ingest", "gone.jsonl", words="gone.jsonl"),
    "schema-unknown-kind": R("schema", "nosuch", words="unknown event kind 'nosuch'"),
    # -- capture: checkpoint, ingest-dir, close, run -------------------------------------------
    "checkpoint-missing": R("checkpoint", "gone.pth", "--run", "r1", words="gone.pth"),
    "checkpoint-bad-metric": R("checkpoint", "runs/r1/metrics.json", "--run", "r1", "--metric",
                               "psnr", words="--metric 'psnr' is not key=value"),
    "checkpoint-no-run": R("checkpoint", "runs/r1/metrics.json", words="--run RUN"),
    "ingest-dir-missing": R("ingest-dir", "runs/gone", "--run", "r2", words="runs/gone"),
    "ingest-dir-bad-run": R("ingest-dir", "runs/r1", "--run", "a b",
                            words="'a b' is not a valid run id"),
    "close-missing": R("close", "runs/gone", "--run", "r1", "--export-root", "export",
                       words=("runs/gone", "does not exist")),
    "close-empty-path": R("close", "", "--run", "r1", "--export-root", "export",
                          words="the path is empty"),
    "close-bad-run": R("close", "runs/r1", "--run", "a b", "--export-root", "export",
                       words="'a b' is not a valid run id"),
    "run-short-heartbeat": R("run", "--heartbeat", "0.5", "--", "true", words="--heartbeat"),
    "run-missing-config": R("run", "--config", "gone.yaml", "--", "true", words="gone.yaml"),
    "run-bad-run": R("run", "--run", "a b", "--", "true", words="'a b' is not a valid run id"),
    # -- claims, evidence, reconcile, hooks ------------------------------------------------------
    "claim-add-unknown-run": R("claim", "add", "C2", "--run", "r9", "--metric", "test.psnr",
                               words=("run 'r9'", "known runs: r1")),
    "claim-add-unknown-metric": R("claim", "add", "C2", "--run", "r1", "--metric", "test.lpips",
                                  "--direction", "lower", words=("'test.lpips'", "no such metric")),
    "claim-add-unknown-file": R("claim", "add", "C2", "--run", "r1", "--metric", "test.psnr",
                                "--from", "eval.json", words="no stored file 'eval.json'"),
    "claim-retract-unknown": R("claim", "retract", "C9", "--reason", "typo",
                               words="no current claim 'C9'"),
    "evidence-check-cut-file": R("evidence", "--check", code=3,
                                 files={"EVIDENCE.json": '{"claims": [{"id": "C1", "val'},
                                 words=("EVIDENCE.json", "not valid JSON")),
    "evidence-output-is-folder": R("evidence", "-o", "runs", words=("runs", "is a directory")),
    "reconcile-missing-doc": R("reconcile", "paper.md", words=("paper.md", "no such file")),
    "reconcile-cut-notebook": R("reconcile", "report.ipynb",
                                files={"report.ipynb": NOTEBOOK_CUT},
                                words=("report.ipynb", "not a valid notebook")),
    "reconcile-one-doc-cut": R("reconcile", "README.md", "report.ipynb",
                               files={"report.ipynb": NOTEBOOK_CUT},
                               words=("report.ipynb", "not a valid notebook")),
    "reconcile-unknown-option": R("reconcile", files={".labledger/config.toml": CONFIG_BAD},
                                  words=("config.toml", "unknown [reconcile] option paths")),
    "evidence-unknown-option": R("evidence", "--locations",
                                 files={".labledger/config.toml": CONFIG_BAD},
                                 words=("config.toml", "unknown [reconcile] option paths")),
    "claim-add-bad-implementation": R("claim", "add", "C2", "--run", "r1", "--metric",
                                      "test.ssim", "--implementation", "eval.py",
                                      words="--implementation 'eval.py' is not FILE:LINE"),
    "hooks-install-foreign-hook": R("hooks", "install", code=1,
                                    words=("pre-commit already exists", "--force")),
    # -- sql ------------------------------------------------------------------------------------
    "sql-write": R("sql", "drop table events", words="DROP statement"),
    "sql-two-statements": R("sql", "select 1; select 2", words="2 statements"),
    "sql-unknown-column": R("sql", "select nosuch from events", words="nosuch"),
    "sql-unknown-view": R("sql", "select * from nosuch", words="nosuch"),
    "sql-does-not-parse": R("sql", "selec run from runs", words="does not parse"),
    # -- pull -------------------------------------------------------------------------------------
    "pull-from-dir-missing": R("pull", "--run", "r1", "--from-dir", "gone", words="gone"),
    "pull-bad-run": R("pull", "--run", "a b", "--from-dir", "runs/r1",
                      words="'a b' is not a valid run id"),
    "pull-no-source": R("pull", "--run", "r1", words="give --from or --from-dir"),
    # an instance no event names (box1 mistyped): the instances the ledger knows are named
    "pull-instance-never-seen": R("pull", "--run", "r1", "--instance", "bxo1",
                                  words=("'bxo1' is not in the ledger", "recorded instances: "
                                         "box1")),
    "pull-instance-no-folder": R("pull", "--run", "r1", "--instance", "box1",
                                 words=("--instance box1", "no earlier pull")),
    "pull-cut-roster": R("pull", "--run", "r1", "--from-dir", "runs/r1", "--roster",
                         "roster.json", files={"roster.json": ROSTER_CUT},
                         words=("roster.json", "not a valid roster")),
    "pull-cut-manifest": R("pull", "--run", "r1", "--from-dir", "runs/r1", "--import-manifest",
                           "PULL_MANIFEST.json", files={"PULL_MANIFEST.json": ROSTER_CUT},
                           words=("PULL_MANIFEST.json", "not a valid manifest")),
    "pull-bad-target": R("pull", "--run", "r1", "--from", "box one:/x",
                         words="expected [user@]HOST[:PORT]:DIR"),
    "pull-export-into-missing-folder": R("pull", "--run", "r1", "--from-dir", "runs/r1",
                                         "--export-manifest", "export/r1/PULL_MANIFEST.json",
                                         words=("export/r1", "does not exist")),
    "pull-export-unknown-run": R("pull", "--run", "r9", "--export-manifest", "m.json",
                                 words=("r9", "no pull.listed")),
    "pull-unknown-host-key": R("pull", "--run", "r1", "--from", "{box}", "--identity", "{key}",
                               code=1, words="host key"),
    "pull-changed-host-key": R("pull", "--run", "r1", "--from", "{box}", "--identity", "{key}",
                               "--known-hosts", "known_hosts",
                               files={"known_hosts": "[127.0.0.1]:{port} " + _other_host_key()
                                      + "\n"},
                               code=1, words="host key"),
    # (its host key pinned beforehand: --accept-new-host-key pins it on first contact, and
    # that pin stays when the folder is then found missing)
    "pull-missing-box-folder": R("pull", "--run", "r1", "--from", "{box}/gone", "--identity",
                                 "{key}", "--known-hosts", "known_hosts",
                                 files={"known_hosts": "{pinned}"},
                                 words=("gone", "does not exist")),
    # -- instances, teardown, gate --------------------------------------------------------------
    "rent-unknown-profile": R("rent", "--profile", "nosuch", "--instance", "box2",
                              words="no platform profile named 'nosuch'"),
    "rent-again": R("rent", "--profile", "vastai", "--instance", "box1",
                    words=("box1", "already rented")),
    "stop-unknown": R("stop", "--instance", "box9", words=("box9", "no instance.rented")),
    "start-running": R("start", "--instance", "box1", words=("box1", "already running")),
    "release-unknown": R("release", "--instance", "box9", words=("box9", "no instance.rented")),
    "instances-bad-now": R("instances", "--now", "noon", words="'noon' is not a timestamp"),
    "gate-bad-instance": R("gate", "teardown", "--instance", "a b",
                           words="'a b' is not a valid instance id"),
    "gate-refused": R("gate", "teardown", "--instance", "box1", code=3,
                      words="gate REFUSED: box1"),
    "teardown-refused": R("teardown", "--instance", "box1", "--yes", code=3,
                          words=("gate REFUSED: box1", "nothing recorded")),
    "teardown-confirm-unknown": R("teardown", "--instance", "box9", "--confirm-absent",
                                  "--evidence", "gone from the console",
                                  words=("box9", "no instance.rented")),
    "teardown-confirm-bad-at": R("teardown", "--instance", "box1", "--confirm-absent", "--at",
                                 "teatime", words="'teatime' is not a timestamp"),
    "teardown-evidence-alone": R("teardown", "--instance", "box1", "--evidence", "gone",
                                 words="--evidence goes with --confirm-absent"),
    "verify-pull-bad-run": R("verify-pull", "a b", words="'a b' is not a valid run id"),
    "hook-blocks-destroy": R("hook", stdin=HOOK_DESTROY, words=("blocked", "box1")),
    "hook-blocks-cut-destroy": R("hook", stdin=HOOK_DESTROY[:-3], words="blocked"),
    # -- cas --------------------------------------------------------------------------------------
    "cas-put-missing": R("cas", "put", "gone.bin", words="gone.bin"),
    "cas-put-empty-path": R("cas", "put", "", words="the path is empty"),
    "cas-get-not-stored": R("cas", "get", NO_OBJECT, "-o", "restored", code=1,
                            words="is not in the store"),
    "cas-get-over-file": R("cas", "get", METRICS_DIGEST, "-o", "README.md", code=1,
                           words="README.md"),
    "cas-stat-bad-digest": R("cas", "stat", "blake3:xyz", words="'blake3:xyz' is not a digest"),
    "cas-cat-bad-digest": R("cas", "cat", "9f2c", words="'9f2c' is not a digest"),
    "cas-ls-bad-digest": R("cas", "ls", "sha256:00", words="'sha256:00' is not a digest"),
    "cas-gc-bad-grace": R("cas", "gc", "--grace", "-5d", "--no-dry-run", words="--grace"),
    # -- profiles, advice, reading ----------------------------------------------------------------
    "profiles-show-unknown": R("profiles", "show", "nosuch",
                               words="no platform profile named 'nosuch'"),
    "profiles-cut-own-profile": R("profiles", "list",
                                  files={".labledger/profiles/mycloud.toml": PROFILE_CUT},
                                  words="mycloud.toml"),
    "profiles-unstamped-fact": R("profiles", "show", "mycloud",
                                 files={".labledger/profiles/mycloud.toml": PROFILE_UNSTAMPED},
                                 words=("mycloud.toml", "verified")),
    "profiles-stale-bad-today": R("profiles", "stale", "--today", "someday", words="--today"),
    "advise-unknown-profile": R("advise", "cadence", "--profile", "nosuch",
                                words="no platform profile named 'nosuch'"),
    "log-bad-since": R("log", "--since", "yesterday", words="'yesterday' is not a timestamp"),
    "check-unknown-format": R("check", files={".labledger/config.toml": "format = 99\n"},
                              code=1, words="config.toml"),
    "init-on-a-file": R("init", "README.md", words=("README.md", "is a file")),
}


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """A finished run's folder on the box the sshd serves."""
    folder = tmp_path / "box" / "r1"
    folder.mkdir(parents=True)
    (folder / "metrics.json").write_text(METRICS)
    return folder


@pytest.fixture
def ssh_marks(request: pytest.FixtureRequest, box: Path) -> Iterator[dict[str, str]]:
    """The placeholders' values; starts the session's sshd only for the rows that use it."""
    refusal: Refusal = request.getfixturevalue("refusal")
    if not refusal.over_ssh:
        yield {}
        return
    sshd = request.getfixturevalue("sshd")
    yield {"{box}": sshd.target(box), "{key}": str(sshd.client_key), "{port}": str(sshd.port),
           "{pinned}": sshd.host_key_line}


def _filled(text: str, marks: dict[str, str]) -> str:
    for mark, value in marks.items():
        text = text.replace(mark, value)
    return text


@pytest.fixture(params=list(ROWS.values()), ids=list(ROWS))
def refusal(request: pytest.FixtureRequest) -> Refusal:
    row: Refusal = request.param
    return row


def test_a_refusal_leaves_the_project_as_it_was(refusal: Refusal, ssh_marks: dict[str, str],
                                                seed: Path, project: Path,
                                                tmp_path: Path) -> None:
    shutil.copytree(seed, project, symlinks=True, dirs_exist_ok=True)
    home = tmp_path / "home"
    home.mkdir()
    if refusal.code == 3:  # see the module docstring: a run to the end may keep its caches
        warmed = _cli(project, home, "sql", "select count(*) from events")
        assert warmed.returncode == 0, warmed.stderr
    for name, text in refusal.files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(_filled(text, ssh_marks))
    before = _tree(project)

    args = [_filled(a, ssh_marks) for a in refusal.args]
    stdin = None if refusal.stdin is None else _filled(refusal.stdin, ssh_marks)
    done = _cli(project, home, *args, stdin=stdin)

    assert done.returncode == refusal.code, done.stderr
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    for word in refusal.words:
        assert _filled(word, ssh_marks) in done.stderr, done.stderr
    assert _changes(before, _tree(project)) == [], done.stderr


def test_a_query_that_runs_keeps_its_read_caches(seed: Path, project: Path,
                                                 tmp_path: Path) -> None:
    """The other side of the refused query above: one that runs writes the caches that spare
    the next query the first read's work."""
    shutil.copytree(seed, project, symlinks=True, dirs_exist_ok=True)
    (tmp_path / "home").mkdir()
    done = _cli(project, tmp_path / "home", "sql", "select count(*) from events")
    assert done.returncode == 0, done.stderr
    assert list((project / ".labledger" / "cache" / "query").glob("*.json"))


def test_a_count_of_one_takes_the_singular(project: Path, tmp_path: Path) -> None:
    """Messages said "appended 1 events", "recorded 1 files", "in 1 segments from 1 writers"."""
    from labledger.ledger._words import counted

    home = tmp_path / "home"
    home.mkdir()
    (project / "run" / "test").mkdir(parents=True)
    (project / "run" / "test" / "metrics.json").write_text(METRICS)
    (project / "events.jsonl").write_text(EVENTS_BAD_LINE.splitlines()[0] + "\n")
    said = {}
    for step in (["init"], ["ingest", "events.jsonl"], ["ingest-dir", "run", "--run", "r1"],
                 ["check"]):
        done = _cli(project, home, *step)
        assert done.returncode == 0, done.stderr
        said[step[0]] = done.stderr
    assert "appended 1 event\n" in said["ingest"]
    assert f"recorded 1 file ({len(METRICS)} bytes, 2 new objects) for run r1" \
        in said["ingest-dir"]
    assert "events in 1 segment from 1 writer: ok" in said["check"]
    assert [counted(n, "entry", "entries") for n in (0, 1, 2)] == ["0 entries", "1 entry",
                                                                   "2 entries"]
