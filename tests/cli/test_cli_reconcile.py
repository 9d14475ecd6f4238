"""`labledger reconcile` and `labledger hooks install`, end to end through main()."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

DIGEST = "blake3:" + "ab" * 32


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def claims(ledger: Ledger) -> Ledger:
    ledger.append("claim.declared", run="r1", claim="C1", metric="psnr", value=31.42,
                  direction="higher", source_digest=DIGEST, unit="dB", aliases=["PSNR", "Ours"])
    ledger.append("claim.declared", run="r1", claim="A1", metric="top1", value=0.9134,
                  direction="higher", source_digest=DIGEST, aliases=["top-1 accuracy"])
    return ledger


def write(project: Path, name: str, text: str) -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_clean_document_exits_0(claims: Ledger, project: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "paper/a.md", "Ours reaches a PSNR of 31.4 dB; top-1 accuracy 91.3%.\n")
    code, out, err = call(capsys, "reconcile", "paper/a.md")
    assert code == 0, err
    assert out == ""
    assert "2 numbers checked against 2 claims: no drift" in err


def test_drift_exits_3_with_file_line_col(claims: Ledger, project: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "paper/a.md", "# Results\n\nOurs reaches a PSNR of 31.5 dB.\n")
    code, out, err = call(capsys, "reconcile", "paper/a.md")
    assert code == 3
    assert out == ("paper/a.md:3:24: C1 says 31.5, evidence says 31.42 dB "
                   "(run r1, object blake3:abababababab…)\n")
    assert "1 drift" in err


def test_disclose_reports_but_exits_0(claims: Ledger, project: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "a.md", "PSNR: 31.5 dB\n")
    code, out, err = call(capsys, "reconcile", "--disclose", "a.md")
    assert code == 0
    assert "C1 says 31.5" in out
    assert "disclosed" in err


def test_json_output(claims: Ledger, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "a.md", "PSNR: 31.5 dB. Top-1 accuracy: 91.3%.\n")
    code, out, _ = call(capsys, "reconcile", "a.md", "--json")
    assert code == 3
    data = json.loads(out)
    assert data["ok"] is False
    assert data["compared"] == 2  # the drifted number was compared too
    assert data["checked"] == 1  # (as it always was: the numbers that matched)
    (finding,) = data["findings"]
    assert finding["type"] == "drift"
    assert (finding["path"], finding["line"], finding["col"]) == ("a.md", 1, 7)
    assert finding["evidence"][0]["object"] == DIGEST


def test_folder_is_expanded_to_its_documents(claims: Ledger, project: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "paper/a.md", "PSNR: 31.42 dB\n")
    write(project, "paper/sub/b.tex", "Our PSNR is \\claim{C1}{31.5}.\n")
    write(project, "paper/data.bin", "not a document\n")
    code, out, _ = call(capsys, "reconcile", "paper", "--json")
    assert code == 3
    data = json.loads(out)
    assert data["documents"] == 2
    assert [f["path"] for f in data["findings"]] == ["paper/sub/b.tex"]


def test_configured_globs(claims: Ledger, project: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = ["paper/**/*.md"]\n')
    write(project, "paper/x/a.md", "PSNR: 31.5 dB\n")
    write(project, "notes.md", "PSNR: 99 dB\n")
    code, out, _ = call(capsys, "reconcile")
    assert code == 3
    assert out.startswith("paper/x/a.md:1:7: C1 says 31.5")
    code, _, err = call(capsys, "log")  # the ledger still opens with the [reconcile] table
    assert code == 0, err


def test_no_paths_and_no_config_says_how_to_configure(claims: Ledger,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "reconcile")
    assert code == 2
    assert out == ""
    assert "[reconcile]" in err
    assert "documents = " in err
    assert "Traceback" not in err


def test_globs_matching_nothing_are_an_error(claims: Ledger, project: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = ["paper/*.tex"]\n')
    code, _, err = call(capsys, "reconcile")
    assert code == 2
    assert "match no file" in err


def test_bad_config_table_is_an_error(claims: Ledger, project: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = "paper/*.md"\n')
    code, _, err = call(capsys, "reconcile")
    assert code == 2
    assert "must be a list" in err


@pytest.mark.parametrize(("name", "content", "problem"), [
    ("missing.md", None, "missing.md: no such file"),
    ("bad.ipynb", "{not json", "bad.ipynb: not a valid notebook: malformed JSON at line 1"),
    ("list.ipynb", "[1, 2]", "list.ipynb: not a valid notebook: no 'cells' list"),
    ("latin1.md", b"PSNR \xe9t\xe9 31.4\n", "latin1.md: not UTF-8 text"),
    ("paper.docx", "x", "paper.docx: unknown document type '.docx'"),
])
def test_bad_input_is_an_error_never_skipped(claims: Ledger, project: Path,
                                             capsys: pytest.CaptureFixture[str], name: str,
                                             content: str | bytes | None, problem: str) -> None:
    write(project, "good.md", "PSNR: 31.5 dB\n")
    if isinstance(content, bytes):
        (project / name).write_bytes(content)
    elif content is not None:
        write(project, name, content)
    code, out, err = call(capsys, "reconcile", "good.md", name)
    assert code == 2
    assert out == ""
    assert problem in err
    assert "Traceback" not in err
    code, out, err = call(capsys, "reconcile", "good.md", name, "--json")
    assert code == 2
    error = json.loads(err.strip().splitlines()[-1])
    assert error["type"] == "exit_error"
    assert error["error"] == "DocumentError"
    assert error["documents"][0]["path"] == name


def test_unreadable_document_is_an_error(claims: Ledger, project: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project, "secret.md", "PSNR: 31.42 dB\n")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads mode 000 files: make the read fail as it would for a user
        real = Path.read_bytes

        def refuse(self: Path) -> bytes:
            if self.name == "secret.md":
                raise PermissionError(13, "Permission denied", str(self))
            return real(self)

        monkeypatch.setattr(Path, "read_bytes", refuse)
    try:
        code, out, err = call(capsys, "reconcile", "secret.md")
    finally:
        path.chmod(0o644)
    assert code == 2
    assert out == ""
    assert "secret.md: cannot read it (Permission denied)" in err


def test_every_bad_document_is_named_at_once(claims: Ledger, project: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "a.ipynb", "{")
    code, _, err = call(capsys, "reconcile", "a.ipynb", "gone.md")
    assert code == 2
    assert "cannot reconcile 2 documents" in err
    assert "a.ipynb" in err
    assert "gone.md" in err


def test_staged_takes_no_paths(claims: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "reconcile", "--staged", "a.md")
    assert code == 2
    assert "takes no PATH" in err


def test_staged_outside_git_is_an_error(claims: Ledger,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "reconcile", "--staged")
    assert code == 1
    assert "not inside a git work tree" in err


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


def test_hooks_install_refuses_a_foreign_hook(project: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _git(project, "init", "-q")
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho mine\n")
    code, _, err = call(capsys, "hooks", "install")
    assert code == 1
    assert "was not written by labledger" in err
    assert hook.read_text() == "#!/bin/sh\necho mine\n"
    code, out, err = call(capsys, "hooks", "install", "--force", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert Path(data["backup"]).read_text() == "#!/bin/sh\necho mine\n"
    assert "reconcile --staged" in hook.read_text()
    code, out, _ = call(capsys, "hooks", "install", "--json")  # its own hook: updated in place
    assert code == 0
    assert json.loads(out)["updated"] is True


def test_hooks_install_outside_git(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "hooks", "install")
    assert code == 1
    assert "not inside a git work tree" in err


def test_jobs_gives_the_same_report_as_one_process(claims: Ledger, project: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(6):
        drift = "31.5" if i % 2 else "31.4"
        write(project, f"paper/s{i}.md", f"Section {i}: Ours reaches a PSNR of {drift} dB, "
                                         "with top-1 accuracy 91.3%.\n" * 40)
    code1, out1, _ = call(capsys, "reconcile", "paper", "--json", "-j", "1")
    code3, out3, _ = call(capsys, "reconcile", "paper", "--json", "--jobs", "3")
    assert code1 == code3 == 3
    assert json.loads(out3) == json.loads(out1)
    assert json.loads(out1)["counts"] == {"drift": 120}


def test_jobs_must_be_positive(claims: Ledger, project: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "a.md", "PSNR: 31.42 dB\n")
    code, out, err = call(capsys, "reconcile", "a.md", "-j", "0")
    assert code == 2
    assert out == ""
    assert "0 is not in the range x>=1" in err


# --- user errors: named, the right exit code, never a traceback -----------------------------------
def test_hooks_install_when_the_hooks_path_is_a_file(project: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """core.hooksPath naming a regular file crashed with FileExistsError: exit 1, naming it."""
    _git(project, "init", "-q")
    (project / "blk").write_text("not a folder\n")
    _git(project, "config", "core.hooksPath", "blk")
    for args in (("hooks", "install"), ("hooks", "install", "--force")):
        code, out, err = call(capsys, *args)
        assert code == 1, err
        assert out == ""
        assert f"{project / 'blk'} is a file, not a folder" in err
        assert "core.hooksPath is 'blk'" in err
        assert "Traceback" not in err
    code, _, err = call(capsys, "--json", "hooks", "install")
    assert code == 1
    error = json.loads(err.strip().splitlines()[-1])
    assert (error["error"], error["path"]) == ("GitHookError", str(project / "blk"))
    assert (project / "blk").read_text() == "not a folder\n"


def test_empty_documents_list_says_it_is_empty(claims: Ledger, project: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + "\n[reconcile]\ndocuments = []\n")
    for args in (("reconcile",), ("evidence", "--locations")):
        code, out, err = call(capsys, *args)
        assert code == 2, err
        assert out == ""
        assert "config.toml: [reconcile] documents is an empty list" in err
        assert "configure them" not in err
        assert "none are configured" not in err
    assert call(capsys, "reconcile", "--help")[0] == 0
    write(project, "a.md", "PSNR: 31.42 dB\n")
    assert call(capsys, "reconcile", "a.md")[0] == 0  # paths given: the globs are not read


@pytest.mark.parametrize(("glob", "problem"), [
    ("/etc/*.conf", "is absolute"),
    ("../*.md", "has a '..' component"),
    ("paper/../../*.md", "has a '..' component"),
    ("paper/**/..", "has a '..' component"),
])
def test_documents_globs_must_stay_in_the_project(claims: Ledger, project: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  glob: str, problem: str) -> None:
    write(project.parent, "outside.md", "PSNR: 99 dB\n")
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + f'\n[reconcile]\ndocuments = ["{glob}"]\n')

    def snapshot(folder: Path) -> dict[str, bytes]:
        return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

    before = snapshot(project / ".labledger")
    code, out, err = call(capsys, "reconcile")
    assert code == 2, err
    assert out == ""
    assert f"config.toml: [reconcile] documents: {glob!r} {problem}" in err
    assert "relative to the project folder" in err
    assert "outside.md" not in err
    code, _, err = call(capsys, "--json", "reconcile")
    assert code == 2
    error = json.loads(err.strip().splitlines()[-1])
    assert error["error"] == "DocumentsConfigError"
    assert error["config"] == str(config)
    assert snapshot(project / ".labledger") == before


def test_dots_inside_a_glob_name_are_not_a_parent(claims: Ledger, project: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "paper/v1..2.md", "PSNR: 31.42 dB\n")
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = ["./paper/v1..*.md"]\n')
    code, _, err = call(capsys, "reconcile")
    assert code == 0, err


def test_document_error_agrees_in_number(claims: Ledger, project: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "reconcile", *[f"gone{i}.md" for i in range(10)])
    assert code == 2
    assert "cannot reconcile 10 documents (fix or remove them from the command line" in err
    assert "remove it " not in err
    code, _, err = call(capsys, "reconcile", "gone.md")
    assert code == 2
    assert "cannot reconcile a document (fix or remove it from the command line" in err


def test_staged_locations_file_without_documents_says_why(claims: Ledger, project: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          ) -> None:
    """An EVIDENCE.json written with --locations makes `reconcile --staged` (the hook) read
    the [reconcile] documents: with none configured it says so, not "evidence --locations"."""
    _git(project, "init", "-q")
    config = project / ".labledger" / "config.toml"
    plain = config.read_text()
    config.write_text(plain + '\n[reconcile]\ndocuments = ["paper/*.md"]\n')
    write(project, "paper/a.md", "Ours: PSNR 31.42 dB.\n")
    assert call(capsys, "evidence", "--locations", "-o", "EVIDENCE.json")[0] == 0
    config.write_text(plain)
    _git(project, "add", "EVIDENCE.json", "paper/a.md")
    code, out, err = call(capsys, "reconcile", "--staged")
    assert code == 2, err
    assert out == ""
    assert "EVIDENCE.json was written with locations" in err
    assert "[reconcile] documents of .labledger/config.toml, and none are configured" in err
    assert "evidence --locations reads" not in err
    assert "Traceback" not in err


def test_the_cache_makes_no_difference_but_speed(claims: Ledger, project: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "a.md", "PSNR: 31.5 dB. Top-1 accuracy: 91.3%.\n")
    write(project, "b.md", "Ours reaches a PSNR of 31.4 dB.\n")
    cache = project / ".labledger" / "cache" / "reconcile"
    uncached = call(capsys, "reconcile", "--no-cache", "--json", "a.md", "b.md")
    assert not cache.exists()  # --no-cache neither reads nor writes it
    first = call(capsys, "reconcile", "--json", "a.md", "b.md")
    assert len(list(cache.glob("*.msgpack"))) == 1
    second = call(capsys, "reconcile", "--json", "a.md", "b.md")
    assert uncached == first == second
    assert uncached[0] == 3
    assert json.loads(uncached[1])["counts"] == {"drift": 1}
    write(project, "a.md", "PSNR: 31.42 dB. Top-1 accuracy: 91.3%.\n")  # fixed: judged again
    code, _, err = call(capsys, "reconcile", "a.md", "b.md")
    assert code == 0, err
    # a new claim is a new context: the old report cannot come back
    claims.append("claim.declared", run="r2", claim="C1", metric="psnr", value=31.5,
                  direction="higher", source_digest=DIGEST, unit="dB", aliases=["PSNR", "Ours"])
    code, out, _ = call(capsys, "reconcile", "a.md", "b.md")
    assert code == 3
    assert "a.md:1:7: C1 says 31.42, evidence says 31.5" in out
