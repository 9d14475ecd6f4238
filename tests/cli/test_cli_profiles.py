"""`labledger profiles list | show | stale`, with shipped and user profiles."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from labledger.profiles import shipped_profiles, snapshot
from tests.conftest import cli_call as call

RunCli = Callable[..., subprocess.CompletedProcess[str]]

MYBOX = """\
name = "mybox"
title = "My box"

[kind]
value = "ssh-host"
verified = "2026-06"
source = "checked 2019-01 docs"

[preemption]
spot = false
verified = "2019-01"
source = "re-checked 2026-07 (this date does not count)"
"""


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def user_profile(project: Path, name: str, text: str) -> Path:
    folder = project / ".labledger" / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_list_works_without_a_ledger(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "profiles", "list")
    assert code == 0
    assert out.splitlines()[0].split() == ["NAME", "KIND", "ORIGIN", "FACTS", "OLDEST", "STALE",
                                           "TITLE"]
    assert [line.split()[0] for line in out.splitlines()[2:]] == sorted(shipped_profiles())


def test_list_json_shows_user_profiles(project: Path, ledger: Ledger,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    user_profile(project, "mybox", MYBOX)
    code, out, _ = call(capsys, "profiles", "list", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["mybox"]["origin"] == "user"
    assert rows["mybox"]["facts"] == 2
    assert rows["mybox"]["oldest"] == "2019-01"
    assert rows["autodl"]["origin"] == "shipped"


def test_show_text_json_and_toml(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "profiles", "show", "autodl")
    assert code == 0
    assert out.startswith("autodl: AutoDL (shipped: ")
    assert ("danger-clocks[0]: auto-release: 360 h after it is stopped, releases the instance"
            in out)
    assert "    verified 2026-06; AutoDL documentation, https://www.autodl.com/docs/" in out
    code, out, _ = call(capsys, "profiles", "show", "autodl", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["profile"] == snapshot(shipped_profiles()["autodl"].profile)
    assert data["origin"] == "shipped"
    code, out, _ = call(capsys, "profiles", "show", "autodl", "--toml")
    assert code == 0
    assert out == shipped_profiles()["autodl"].text
    code, out, _ = call(capsys, "--json", "profiles", "show", "autodl", "--toml")
    assert code == 0
    data = json.loads(out)  # --json means one JSON document, the TOML inside it
    assert data["toml"] == shipped_profiles()["autodl"].text
    assert data["origin"] == "shipped"


def test_show_unknown_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "profiles", "show", "aws")
    assert code == 2
    assert out == ""
    assert "no platform profile named 'aws'" in err


def test_stale_counts_stamps_only(project: Path, ledger: Ledger,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    user_profile(project, "mybox", MYBOX)
    code, out, _ = call(capsys, "profiles", "stale", "--today", "2026-08-01", "--json")
    assert code == 3  # stale facts found
    data = json.loads(out)
    mine = [s for s in data["stale"] if s["profile"] == "mybox"]
    assert [(s["fact"], s["verified"], s["line"]) for s in mine] == [("preemption", "2019-01",
                                                                       11)]
    assert data["today"] == "2026-08-01"
    assert data["months"] == 6


def test_stale_text_and_months(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "profiles", "stale", "--months", "600", "--today", "2026-12-02")
    assert code == 0
    assert out == ""
    assert "0 of " in err
    code, out, err = call(capsys, "profiles", "stale", "--months", "6", "--today", "2026-12-02")
    assert code == 3
    assert out.splitlines()[0].split() == ["PROFILE", "FACT", "VERIFIED", "AGE", "WHERE",
                                           "SOURCE"]
    assert "autodl.toml:" in out


@pytest.mark.parametrize("argv", [
    ["profiles", "stale", "--today", "someday"],
    ["profiles", "stale", "--months", "-1"],
])
def test_stale_bad_options_are_exit_2(capsys: pytest.CaptureFixture[str],
                                      argv: list[str]) -> None:
    code, _, err = call(capsys, *argv)
    assert code == 2
    assert "Invalid value" in err


@pytest.mark.parametrize(("change", "where"), [
    (("source = \"checked 2019-01 docs\"", "source = \"x\"\nsorce = \"typo\""),
     ":8: field 'kind.sorce': unknown field 'sorce'"),
    (("spot = false", "spot = \"no\""), ":10: field 'preemption.spot': Expected `bool`"),
    (("verified = \"2019-01\"", "verified = \"19-01\""),
     ":11: field 'preemption.verified': '19-01' is not a stamp"),
])
def test_an_invalid_user_profile_is_exit_2_with_file_line_field(
        project: Path, ledger: Ledger, run_cli: RunCli, change: tuple[str, str],
        where: str) -> None:
    path = user_profile(project, "mybox", MYBOX.replace(*change))
    for argv in (["profiles", "list"], ["profiles", "show", "autodl"], ["profiles", "stale"]):
        proc = run_cli(*argv)
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""
        assert f"labledger: error: {path}{where}" in proc.stderr


def test_an_invalid_user_profile_in_json_mode(project: Path, ledger: Ledger,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = user_profile(project, "mybox", MYBOX.replace("spot = false", "spot = 3"))
    code, _, err = call(capsys, "--json", "profiles", "list")
    assert code == 2
    error = json.loads(err.strip().splitlines()[-1])
    assert error["error"] == "InvalidProfileError"
    assert (error["file"], error["line"], error["field"]) == (str(path), 10, "preemption.spot")


@pytest.mark.parametrize("argv", [["profiles"], ["profiles", "list"], ["profiles", "show"],
                                  ["profiles", "stale"]])
def test_every_command_documents_an_example(capsys: pytest.CaptureFixture[str],
                                            argv: list[str]) -> None:
    code, out, _ = call(capsys, *argv, "--help")
    assert code == 0
    assert "Example: labledger profiles" in out
