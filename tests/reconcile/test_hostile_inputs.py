"""Reconcile, claims and EVIDENCE.json on input built to break a reader: never a traceback or a
hang, always the documented error naming the file.

A FIFO named as a document (reading it would block forever), and JSON nested deeper than
Python's recursion limit (a notebook, a result file, a committed EVIDENCE.json).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.ledger import Ledger
from labledger.reconcile.claims import declare_claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.doc_sources import read_documents
from labledger.reconcile.errors import ClaimInputError, DocumentError
from labledger.reconcile.evidence import differences

DEEP = "[" * 5000 + "]" * 5000


def test_a_fifo_named_as_a_document_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "paper.md"
    os.mkfifo(fifo)
    (tmp_path / "ok.md").write_text("fine\n")
    with pytest.raises(DocumentError) as info:
        read_documents([tmp_path / "ok.md", fifo], tmp_path)
    assert info.value.problems == [("paper.md", "not a regular file (a FIFO, socket or device)")]


def test_the_cli_refuses_a_fifo_with_exit_2(ledger: Ledger, project: Path) -> None:
    os.mkfifo(project / "paper.md")
    exe = Path(sys.executable).with_name("labledger")
    proc = subprocess.run([str(exe), "reconcile", "paper.md"], cwd=project, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "paper.md: not a regular file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_notebook_nested_too_deeply_is_a_document_error() -> None:
    with pytest.raises(DocumentError, match="nested too deeply"):
        read_document("n.ipynb", ('{"cells": ' + DEEP + "}").encode())


def test_a_result_file_nested_too_deeply_is_bad_input(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "r1"
    folder.mkdir()
    (folder / "metrics.json").write_text('{"psnr": 31.0, "x": ' + DEEP + "}")
    ingest_run_dir(folder, run="r1", ledger=ledger)
    before = len(list(ledger.records()))
    with pytest.raises(ClaimInputError, match="nested too deeply"):
        declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert len(list(ledger.records())) == before


def test_a_committed_evidence_file_nested_too_deeply_is_a_difference() -> None:
    document = {"project": "p", "claims": []}
    assert differences(DEEP, document) == ["the file is nested too deeply to be an EVIDENCE.json"]
    assert differences(json.dumps(document), document) != []  # not the canonical rendering
