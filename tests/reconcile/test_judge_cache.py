"""The reconcile cache: a cached report equals an uncached one, and it only ever misses.

Every test compares a run through the cache with a fresh run over the same inputs (the same
segments, claims and code), and counts the segments actually judged by wrapping
`documents._segment`, so "used the cache" and "judged again" are observed, not assumed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.reconcile import documents, judge_cache
from labledger.reconcile.doc_readers import Segment, read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.judge_cache import KEEP_CONTEXTS
from tests.reconcile.test_documents import CASES, CLAIMS, NOTEBOOK, claim

CLAIM_LIST = list(CLAIMS.values())


def _segments() -> list[Segment]:
    segs = [seg for i, case in enumerate(CASES)
            for seg in read_document(f"{i:03d}-{case.path}", case.text.encode())]
    segs += read_document("eval.ipynb", NOTEBOOK.encode())
    return segs


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The (path, where) of every segment judged (not read from the cache), in order."""
    seen: list[str] = []
    real = documents._segment

    def counting(run: object, seg: Segment, binds: dict[str, str]) -> None:
        seen.append(f"{seg.path}#{seg.where}")
        real(run, seg, binds)  # type: ignore[arg-type]

    monkeypatch.setattr(documents, "_segment", counting)
    return seen


def _body(path: Path) -> judge_cache._Body:
    """A cache file's entries, its checksum checked."""
    import blake3

    stored = judge_cache._DECODER.decode(path.read_bytes())
    assert stored.format == judge_cache.FORMAT
    assert blake3.blake3(stored.body).digest() == stored.checksum
    return judge_cache._BODY_DECODER.decode(stored.body)


def _rewrite(path: Path, body: judge_cache._Body) -> None:
    """Replace a cache file's entries, with a checksum that holds (as a deliberate edit)."""
    import blake3
    import msgspec

    stored = judge_cache._DECODER.decode(path.read_bytes())
    raw = msgspec.msgpack.encode(body)
    path.write_bytes(msgspec.msgpack.encode(judge_cache._File(
        stored.format, stored.context, blake3.blake3(raw).digest(), raw)))


def _same(a: object, b: object) -> None:
    assert a.to_json() == b.to_json()  # type: ignore[attr-defined]
    assert [(m.line, m.col, m.offset) for m in a.matches] == \
        [(m.line, m.col, m.offset) for m in b.matches]  # type: ignore[attr-defined]


def test_a_second_run_judges_nothing_and_reports_the_same(tmp_path: Path,
                                                          judged: list[str]) -> None:
    segs = _segments()
    fresh = reconcile_segments(segs, CLAIM_LIST, jobs=1)
    assert fresh.findings
    assert len(fresh.matches) > 20
    judged.clear()
    first = reconcile_segments(_segments(), CLAIM_LIST, cache=tmp_path / "c")
    assert len(judged) == len(segs)
    judged.clear()
    second = reconcile_segments(_segments(), CLAIM_LIST, cache=tmp_path / "c")
    assert judged == []
    _same(first, fresh)
    _same(second, fresh)
    assert {f.message for f in second.findings} == {f.message for f in fresh.findings}


def test_an_edited_document_alone_is_judged_again(tmp_path: Path, judged: list[str]) -> None:
    cache = tmp_path / "c"
    docs = {"a.md": "Ours reaches a PSNR of 31.42 dB.\n",
            "b.md": "Top-1 accuracy is 91.3%.\n",
            "c.tex": "PSNR of \\claim{C1}{31.42} dB.\n"}

    def run() -> object:
        segs = [s for p, t in docs.items() for s in read_document(p, t.encode())]
        return reconcile_segments(segs, CLAIM_LIST, cache=cache)

    assert run().ok  # type: ignore[attr-defined]
    judged.clear()
    docs["b.md"] = "Top-1 accuracy is 91.5%.\n"
    report = run()
    assert judged == ["b.md#None"]
    assert [(f.type, f.path, f.claims) for f in report.findings] == \
        [("drift", "b.md", ("A1",))]  # type: ignore[attr-defined]
    judged.clear()
    docs["b.md"] = "Top-1 accuracy is 91.3%.\n"  # back: only its latest version was kept
    assert run().ok  # type: ignore[attr-defined]
    assert judged == ["b.md#None"]
    judged.clear()
    assert run().ok  # type: ignore[attr-defined]
    assert judged == []


def test_a_changed_claim_judges_everything_again(tmp_path: Path, judged: list[str]) -> None:
    segs = [*read_document("a.md", b"Ours reaches a PSNR of 31.42 dB.\n"),
            *read_document("b.md", b"Top-1 accuracy is 91.3%.\n")]
    assert reconcile_segments(segs, CLAIM_LIST, cache=tmp_path).ok
    judged.clear()
    changed = [dataclasses.replace(c, value=31.5) if c.id == "C1" else c for c in CLAIM_LIST]
    report = reconcile_segments(segs, changed, cache=tmp_path)
    assert len(judged) == 2
    assert [(f.type, f.claims, f.evidence[0].value) for f in report.findings] == \
        [("drift", ("C1",), 31.5)]
    judged.clear()
    renamed = [dataclasses.replace(c, run="r9") if c.id == "C1" else c for c in CLAIM_LIST]
    reconcile_segments(segs, renamed, cache=tmp_path)  # a run or digest is in the messages
    assert len(judged) == 2


def test_a_binding_in_another_file_judges_again(tmp_path: Path, judged: list[str]) -> None:
    body = b"We get \\best{} dB.\n\\newcommand{\\best}{31.50}\n"
    segs = [*read_document("main.tex", body), *read_document("macros.tex", b"% nothing\n")]
    assert reconcile_segments(segs, CLAIM_LIST, cache=tmp_path).ok
    judged.clear()
    segs[1] = read_document("macros.tex", b"\\claimbind{C1}{\\best}\n")[0]
    report = reconcile_segments(segs, CLAIM_LIST, cache=tmp_path)
    assert sorted(judged) == ["macros.tex#None", "main.tex#None"]
    assert [(f.type, f.path, f.claims) for f in report.findings] == [("drift", "main.tex",
                                                                      ("C1",))]


def test_different_judging_code_misses(tmp_path: Path, judged: list[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    segs = _segments()
    reconcile_segments(segs, CLAIM_LIST, cache=tmp_path)
    judged.clear()
    monkeypatch.setattr(judge_cache, "_code_digest", b"\x01" * 32)  # another version's code
    reconcile_segments(segs, CLAIM_LIST, cache=tmp_path)
    assert len(judged) == len(segs)


def test_the_code_digest_covers_every_module_of_the_package() -> None:
    judge_cache._code_digest = None
    first = judge_cache._code()
    judge_cache._code_digest = None
    assert judge_cache._code() == first  # stable
    here = Path(judge_cache.__file__).resolve().parent
    assert {"documents.py", "numbers.py", "doc_readers.py", "anchors.py"} <= \
        {p.name for p in here.glob("*.py")}


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "other-format", "folder"])
def test_a_damaged_cache_file_is_a_miss_and_is_rewritten(tmp_path: Path, judged: list[str],
                                                         damage: str) -> None:
    segs = _segments()
    fresh = reconcile_segments(segs, CLAIM_LIST, jobs=1)
    reconcile_segments(segs, CLAIM_LIST, cache=tmp_path)
    [file] = tmp_path.glob("*.msgpack")
    data = file.read_bytes()
    if damage == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        file.write_bytes(os.urandom(len(data)))
    elif damage == "empty":
        file.write_bytes(b"")
    elif damage == "other-format":
        import msgspec

        file.write_bytes(msgspec.msgpack.encode([b"labledger-reconcile-cache-0", b"", {}]))
    else:
        file.unlink()
        file.mkdir()
    judged.clear()
    report = reconcile_segments(segs, CLAIM_LIST, cache=tmp_path)
    assert len(judged) == len(segs)
    _same(report, fresh)
    if damage != "folder":  # rewritten whole: the next run is cached again
        judged.clear()
        _same(reconcile_segments(segs, CLAIM_LIST, cache=tmp_path), fresh)
        assert judged == []


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would be\n")
    segs = _segments()
    _same(reconcile_segments(segs, CLAIM_LIST, cache=blocker / "reconcile"),
          reconcile_segments(segs, CLAIM_LIST, jobs=1))
    assert blocker.read_text() == "a file where the cache folder would be\n"


def test_the_folder_keeps_out_of_git_and_backups_and_holds_few_contexts(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    segs = read_document("a.md", b"Ours reaches a PSNR of 31.42 dB.\n")
    for i in range(KEEP_CONTEXTS + 4):
        claims = [claim("C1", "psnr", 31.42 + i, unit="dB", aliases=("Ours",))]
        reconcile_segments(segs, claims, cache=folder)
        time.sleep(0.01)  # distinct modification times
    assert len(list(folder.glob("*.msgpack"))) == KEEP_CONTEXTS
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith(
        "Signature: 8a477f597d28d172789f06886806bc55")
    # the newest context is the one kept for the last claims: cached
    newest = max(folder.glob("*.msgpack"), key=lambda p: p.stat().st_mtime_ns)
    assert newest.stat().st_size > 0
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    reconcile_segments(segs, [claim("C1", "psnr", 31.42, unit="dB", aliases=("Ours",))],
                       cache=repo / ".labledger" / "cache" / "reconcile")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=repo, capture_output=True, text=True, check=True).stdout
    assert status == ""


def test_entries_of_other_documents_are_kept_for_the_next_run(tmp_path: Path,
                                                              judged: list[str]) -> None:
    a = read_document("a.md", b"Ours reaches a PSNR of 31.42 dB.\n")
    b = read_document("b.md", b"Top-1 accuracy is 91.3%.\n")
    reconcile_segments(a + b, CLAIM_LIST, cache=tmp_path)
    reconcile_segments(b, CLAIM_LIST, cache=tmp_path)  # the hook: only what is staged
    judged.clear()
    reconcile_segments(a + b, CLAIM_LIST, cache=tmp_path)
    assert judged == []


def test_forked_judging_fills_the_cache_the_same(tmp_path: Path, judged: list[str]) -> None:
    segs = _segments()
    forked = reconcile_segments(segs, CLAIM_LIST, jobs=3, cache=tmp_path)
    judged.clear()
    cached = reconcile_segments(segs, CLAIM_LIST, jobs=3, cache=tmp_path)
    assert judged == []
    _same(cached, reconcile_segments(segs, CLAIM_LIST, jobs=1))
    _same(forked, cached)


_WRITER = """
import sys
from pathlib import Path
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from tests.reconcile.test_documents import CLAIMS
folder = Path(sys.argv[1])
i = 0
while True:  # a new document each round: every run writes the cache file again
    i += 1
    text = "".join(f"Ours reaches a PSNR of 31.42 dB in run {i}-{k}.\\n" for k in range(400))
    reconcile_segments(read_document("a.md", text.encode()), list(CLAIMS.values()),
                       cache=folder)
    print(i, flush=True)  # one whole write done: the test kills it somewhere in the next ones
"""


def test_a_run_killed_while_writing_leaves_a_whole_file(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    segs = read_document("b.md", b"Top-1 accuracy is 91.3%.\n")
    reconcile_segments(segs, CLAIM_LIST, cache=folder)
    root = Path(__file__).resolve().parents[2]
    for delay in (0.0, 0.05, 0.15, 0.3):
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(folder)], cwd=root,
                                stdout=subprocess.PIPE)
        assert proc.stdout is not None
        assert proc.stdout.readline()  # not a timing guess: it has written the cache once
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        for path in folder.glob("*.msgpack"):  # every file there decodes whole
            _body(path)
    [path] = folder.glob("*.msgpack")
    assert len(_body(path).entries) == 2  # b.md, and the writers' a.md (its latest version)
    report = reconcile_segments(segs, CLAIM_LIST, cache=folder)
    assert report.ok
    assert len(report.matches) == 1


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["a.md", "b.tex", "c.csv", "d.txt"]),
                          st.lists(st.sampled_from([
                              "Ours reaches a PSNR of 31.42 dB.", "PSNR: 31.5 dB.",
                              "Top-1 accuracy is 91.3%.", "<!-- claim:C1 -->31.4",
                              "\\claim{A1}{91.2\\%}", "Baseline scores 30.1 PSNR.",
                              "method,psnr\nOurs,31.42", "LPIPS 0.12 and PSNR 31.42 dB.",
                              "<!-- claim:Z9 -->3", "filler 12 epochs."]),
                              max_size=4)),
                min_size=1, max_size=6))
def test_any_sequence_of_edits_reports_what_a_fresh_run_does(
        tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, list[str]]]) -> None:
    folder = tmp_path_factory.mktemp("cache")
    docs: dict[str, str] = {}
    for path, lines in edits:
        docs[path] = "\n".join(lines) + "\n"
        segs = [s for p, t in sorted(docs.items()) for s in read_document(p, t.encode())]
        cached = reconcile_segments(segs, CLAIM_LIST, cache=folder)
        _same(cached, reconcile_segments(segs, CLAIM_LIST, jobs=1))
        assert json.dumps(cached.to_json(), sort_keys=True)  # plain data, as the CLI prints


def test_the_anchor_index_is_kept_with_the_results(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from labledger.reconcile import anchors

    a = read_document("a.md", b"Ours reaches a PSNR of 31.42 dB.\n")
    reconcile_segments(a, CLAIM_LIST, cache=tmp_path)

    def no_trie(terms: object) -> str:
        raise AssertionError("the anchor trie was built again")

    monkeypatch.setattr(anchors, "_trie_pattern", no_trie)
    edited = read_document("a.md", b"Ours reaches a PSNR of 31.5 dB.\n")  # judged: needs anchors
    report = reconcile_segments(edited, CLAIM_LIST, cache=tmp_path)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("C1",))]


def test_a_damaged_anchor_pattern_is_built_again(tmp_path: Path) -> None:
    a = read_document("a.md", b"Ours reaches a PSNR of 31.42 dB.\n")
    reconcile_segments(a, CLAIM_LIST, cache=tmp_path)
    [file] = tmp_path.glob("*.msgpack")
    body = _body(file)
    assert body.anchors is not None
    body.anchors = (body.anchors[0], body.anchors[1], " (unclosed")
    _rewrite(file, body)
    edited = read_document("a.md", b"Ours reaches a PSNR of 31.5 dB.\n")
    report = reconcile_segments(edited, CLAIM_LIST, cache=tmp_path)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("C1",))]


def test_text_that_msgpack_cannot_hold_is_judged_every_run(tmp_path: Path,
                                                           judged: list[str]) -> None:
    """A lone surrogate (a file name that is not UTF-8, a notebook's JSON escape) cannot be
    stored; that segment is simply judged each time, the others are cached."""
    bad = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {},
         "source": ["Ours: <!-- claim:Z\udcff1 -->31.4 and PSNR 31.5 dB\n"]}]})
    segs = [*read_document("n\udcff.ipynb", bad.encode()),
            *read_document("a.md", b"Ours reaches a PSNR of 31.5 dB.\n")]
    fresh = reconcile_segments(segs, CLAIM_LIST, jobs=1)
    assert {f.type for f in fresh.findings} == {"unknown_claim", "drift"}
    _same(reconcile_segments(segs, CLAIM_LIST, cache=tmp_path), fresh)
    judged.clear()
    _same(reconcile_segments(segs, CLAIM_LIST, cache=tmp_path), fresh)
    assert judged == ["n\udcff.ipynb#cell 1"]


def test_a_file_edited_where_it_still_decodes_is_a_miss(tmp_path: Path,
                                                        judged: list[str]) -> None:
    segs = read_document("a.md", b"Ours reaches a PSNR of 31.5 dB.\n")
    fresh = reconcile_segments(segs, CLAIM_LIST, jobs=1)
    reconcile_segments(segs, CLAIM_LIST, cache=tmp_path)
    [file] = tmp_path.glob("*.msgpack")
    data = file.read_bytes()
    assert data.count(b"C1 says 31.5") == 1
    file.write_bytes(data.replace(b"C1 says 31.5", b"C1 says 99.9"))  # same length: decodes
    judged.clear()
    _same(reconcile_segments(segs, CLAIM_LIST, cache=tmp_path), fresh)
    assert judged == ["a.md#None"]


def test_an_edited_document_replaces_its_older_version(tmp_path: Path) -> None:
    other = read_document("b.md", b"Top-1 accuracy is 91.3%.\n")
    for i in range(20):
        text = f"Ours reaches a PSNR of 31.42 dB (edit {i}).\n".encode()
        reconcile_segments(read_document("a.md", text) + other, CLAIM_LIST, cache=tmp_path)
    [file] = tmp_path.glob("*.msgpack")
    assert sorted(entry[0] for entry in _body(file).entries.values()) == \
        ["a.md\0None", "b.md\0None"]
