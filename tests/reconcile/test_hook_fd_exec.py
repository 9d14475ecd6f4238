"""`labledger hook` against fd's ``-x|--exec`` and ``-X|--exec-batch`` (fd(1), fd 8-10: "all
positional arguments following --exec are considered to be arguments to the command"; the
paths found are appended, or put for ``{}``). Before, the command fd runs was not read:
``fd -H -e toml -X rm`` deleted the ledger's settings unjudged. It is now judged as
``find ... -exec`` is: the command, its paths computed when it runs, fed by what fd lists.

What fd lists is read as fd reads its words: ``fd [OPTIONS] [PATTERN] [PATH...]``, option
values (``-e log``, ``-t d``) and the command after ``-x`` are not its folders; ``-e EXT``
limits it to ``*.EXT`` names; without ``-H``/``-u`` it does not go into hidden folders
(``.labledger/``), as fd does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labledger.reconcile.shell_words import simple_commands
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


def test_the_command_fd_runs_is_a_command_of_its_own() -> None:
    argvs = [c.argv for c in simple_commands("fd -e log . results -x rm -f ; echo done", "/")]
    assert ["rm", "-f"] in argvs
    assert ["echo", "done"] in argvs
    assert [c.dynamic for c in simple_commands("fd -X rm -rf", "/") if c.argv[0] == "rm"] == [
        True]


@pytest.mark.parametrize(("line", "inner"), [
    ("fd -e json -Hx rm -f", ["rm", "-f"]),  # tried, fd 8.6: `-Hx echo B` ran echo
    ("fd -HX rm -rf", ["rm", "-rf"]),
    ("fd -e json -xrm", ["rm"]),  # the rest of the word is the command's first word
    ("fd -X=rm", ["rm"]),
    ("fd --exec=rm -f", ["rm", "-f"]),
    ("fd -ex rm", None),  # -e takes the rest: the extension x, no command
])
def test_an_exec_in_a_bundle_of_short_options_runs(line: str, inner: list[str] | None) -> None:
    """fd's options bundle as getopt's do (clap): before, only a word that was exactly
    ``-x``/``-X`` started the command, so ``fd -H -e toml -HX rm`` deleted unjudged."""
    argvs = [c.argv for c in simple_commands(line, "/")][1:]
    assert argvs == ([] if inner is None else [inner])


@pytest.mark.parametrize("command", [
    "fd -e toml -HX rm",  # the ledger's config.toml, the exec in a bundle
    "fd -H -e toml -X rm",  # the ledger's config.toml
    "fd -HI . .labledger -X rm -rf",
    "fd -HI -t d labledger -x rm -rf",
    "fd . capsules -x rm -rf",
    "fd metrics -x rm",  # a regular expression: any name may match
    "fd -e json . capsules/c2 --exec rm {}",
    "fd -u -t f -x shred -u",
])
def test_what_fd_finds_and_runs_a_delete_on_is_judged(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command


@pytest.mark.parametrize("command", [
    "fd -e log . other -x rm",
    "fd -e pyc -x rm",  # no capsule holds a .pyc
    "fd -e py -x wc -l",  # nothing deleted
    "fd . src -x rm",
    "fd -e toml -X rm",  # without -H fd does not go into .labledger/
    "fd . ../scratch -X rm -rf",
])
def test_what_misses_the_protected_folders_passes(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    r"fd '\.pyc$' -x rm",  # fd(1): "the search pattern is only matched against the filename"
    "fd -t d __pycache__ -x rm -rf",  # the usual cache cleanup
    "fd -I -t d __pycache__ -X rm -rf",
    "fd -F .pyc -x rm",  # --fixed-strings: a substring
    "fd 'CHECKPOINT' -x rm",  # an upper-case letter: fd matches case-sensitively (smart case)
])
def test_an_fd_pattern_matching_no_protected_name_passes(box: Path, command: str) -> None:  # noqa: F811
    """fd's PATTERN is a regular expression searched in each entry's name (fd(1), "smart
    case": case-insensitive unless it holds an upper-case letter); as find's ``-name``, what
    it lets through is all a delete fed by fd reaches. Before, any PATTERN stood for every
    name: ``fd -t d __pycache__ -x rm -rf`` was refused for the export root ``results``,
    where ``find . -type d -name __pycache__ -exec rm -rf {} +`` passed."""
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    r"fd 'metrics\.json$' -x rm",
    "fd METRICS -i -x rm",  # -i: case-insensitive whatever the letters
    "fd -F metrics. -x rm",
    "fd -p 'capsules/c2' -x rm",  # --full-path: matched against the whole path
    r"fd '\pL' -x rm",  # Rust's syntax (any letter), not Python's: any name
    "fd -i -g 'METRICS.*' -x rm",  # a glob, -i too (tried: it lists metrics.json)
])
def test_an_fd_pattern_matching_a_protected_file_is_blocked(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command


@pytest.mark.parametrize("command", ["fd . .. -x rm -rf", "fd -d 1 . .. -X rm -rf",
                                     "fd -t d project .. -x rm -rf"])
def test_fd_listing_the_project_folder_itself_deletes_its_ledger(box: Path, command: str  # noqa: F811
                                                                 ) -> None:
    """Without ``-H`` fd does not go into ``.labledger/``, but it lists the project folder
    that holds it (not hidden), and ``rm -rf`` of that deletes the ledger. Before, a hidden
    part anywhere on the way from fd's folder to the ledger made it pass."""
    verdict = _judged(box, command)
    assert any(f"{box / '.labledger'}, the labledger ledger" in r for r in verdict.reasons), \
        verdict.reasons


def test_an_fd_pattern_that_backtracks_is_not_searched(box: Path) -> None:  # noqa: F811
    """fd's regular expressions never backtrack (Rust's regex crate); Python's do: ``(a+)+$``
    on a long name of ``a``s then ``!`` takes minutes. Such a pattern (a quantified group)
    stands for every name (fail closed), as one Python cannot read does."""
    (box / "results" / ("a" * 40 + "!")).write_text("x\n")
    verdict = _judged(box, "fd '(a+)+$' -x rm")
    assert not verdict.allowed
