"""`labledger hook` against ``make``: the recipe lines of the targets asked for (`makefiles`).

ML repositories keep their cleanup in a Makefile, and agents run ``make clean`` as readily as
``ls``: micrometre/pytorch's Makefile has ``clean:`` / ``rm -rf outputs dataset checkpoints
raw_data``; allpan3/VSA-factorization's ``clean-checkpoints:`` / ``rm -rf
tests/*/*.checkpoint``; others name the folders in variables (``CHECKPOINTS_DIR =
checkpoints``) or run ``make clear-logs`` from a ``clear-all`` recipe. Before, ``make clean``
passed unjudged whatever its recipe deleted. Now its recipe lines are judged as if typed.

What make runs is checked against GNU make itself: ``make -n TARGET`` prints each recipe line
as the shell would get it, expanded, without running it, and the reader must print the same.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.makefiles import make_run, recipes
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture

_MAKE = shutil.which("make")

_MAKEFILE = """\
# cleanup of a training repository
OUT ?= outputs
CKPT_DIR := $(OUT)/checkpoints
LOGS = logs wandb
LOGS += slurm-logs
override SEED = 0
EMPTY =
PY := python3
define BANNER
echo cleaning $(OUT)
endef

.PHONY: all clean distclean train eval clean-ckpt
.DEFAULT_GOAL := train

all: train eval

train: data
\t$(PY) train.py --out $(OUT) --seed $(SEED)

data: ; mkdir -p data

eval:
\t@echo evaluating $@ after $<
\t-python eval.py \\
\t    --ckpt $(CKPT_DIR)/last.pt

clean:
\t$(BANNER)
\t@-rm -rf $(LOGS) __pycache__
\t+$(RM) *.log

clean-ckpt:
\trm -rf $(CKPT_DIR) $(EMPTY)/tmp/scratch-$$USER

distclean: clean clean-ckpt
\trm -rf $(OUT) $(wildcard *.egg-info) $(addprefix cache/,a b)

ifeq ($(OUT),outputs)
nuke:
\trm -rf $(OUT) $(notdir src/model.py) $(dir src/model.py)
else
nuke:
\trm -rf elsewhere
endif

%.o: %.c
\tcc -c $< -o $@
"""


@pytest.fixture
def makefile(tmp_path: Path) -> Path:
    (tmp_path / "Makefile").write_text(_MAKEFILE)
    return tmp_path


def _ours(folder: Path, *args: str) -> list[str]:
    def read(path: str) -> str | None:
        try:
            return Path(path).read_text()
        except OSError:
            return None

    run = make_run(list(args))
    found = recipes(run, read, str(folder / run.folder), {"USER": "me"})
    # (a continued line reaches the shell with its backslash-newline, as make -n prints it)
    return [] if found is None else "\n".join(r.text for r in found[1]).split("\n")


def _gnu(folder: Path, *args: str) -> list[str]:
    """What GNU make prints it would run (``-n``: nothing is run)."""
    assert _MAKE is not None, "GNU make is needed: .ci/run installs it"
    done = subprocess.run([_MAKE, "-n", *args], cwd=folder, capture_output=True, text=True,
                          check=False, env={"PATH": "/usr/bin:/bin", "USER": "me"})
    return [line for line in done.stdout.split("\n") if line and not line.startswith("make")]


@pytest.mark.parametrize("args", [
    ["clean"], ["clean-ckpt"], ["distclean"], ["train"], [], ["all"], ["eval"],
    ["clean", "OUT=build"], ["OUT=/scratch/me", "clean-ckpt"], ["nuke"],
    ["-s", "clean"], ["-j", "4", "clean"], ["-j4", "distclean"], ["-k", "clean"],
])
def test_the_lines_are_those_gnu_make_runs(makefile: Path, args: list[str]) -> None:
    ours = _ours(makefile, *args)
    gnu = _gnu(makefile, *args)
    if args == ["nuke"]:  # every branch of a conditional counts: more to judge, never less
        assert ours[: len(gnu)] == gnu
        assert ours[len(gnu):] == ["rm -rf elsewhere"]
    else:
        assert ours == gnu


def test_a_continued_recipe_line_is_one_command(makefile: Path) -> None:
    found = recipes(make_run(["eval"]), lambda p: (makefile / "Makefile").read_text(),
                    str(makefile), {})
    assert found is not None
    assert found[1][-1].text == "python eval.py \\\n    --ckpt outputs/checkpoints/last.pt"
    assert found[1][-1].line == 25


def test_shell_and_wildcard_are_what_they_run_and_match(makefile: Path) -> None:
    (makefile / "x.egg-info").mkdir()
    (makefile / "Makefile").write_text(
        "ID := $(shell git rev-parse HEAD)\ngo:\n\trm -rf runs/$(ID) $(wildcard *.egg-info)\n")
    assert _ours(makefile, "go") == ["rm -rf runs/$(git rev-parse HEAD) x.egg-info"]


@pytest.mark.parametrize(("args", "runs"), [
    (["-n", "clean"], False), (["--dry-run", "clean"], False), (["-q"], False),
    (["-t", "x"], False), (["-sn", "clean"], False), (["--just-print"], False),
    (["clean"], True), (["-s", "clean"], True), (["-C", "sub", "clean"], True),
])
def test_what_runs_no_recipe(args: list[str], runs: bool) -> None:
    assert make_run(args).runs is runs


def test_its_options_are_read_as_make_reads_them() -> None:
    run = make_run(["-C", "a", "--directory=b", "-f", "build.mk", "-fother.mk", "-j", "8",
                    "clean", "OUT=x", "dist"])
    assert (run.folder, run.files, run.targets, run.overrides) == (
        "a/b", ["build.mk", "other.mk"], ["clean", "dist"], {"OUT": "x"})


def test_no_makefile_runs_nothing(tmp_path: Path) -> None:
    assert _ours(tmp_path, "clean") == []
    (tmp_path / "Makefile").write_text("clean:\n\trm -rf x\n")
    assert _ours(tmp_path, "-f", "missing.mk", "clean") == []
    assert _ours(tmp_path, "clean") == ["rm -rf x"]


def test_an_included_makefile_is_read(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("include rules.mk\n-include missing.mk\n")
    (tmp_path / "rules.mk").write_text("OUT = runs\nclean:\n\trm -rf $(OUT)\n")
    assert _ours(tmp_path, "clean") == _gnu(tmp_path, "clean") == ["rm -rf runs"]


@given(st.text(st.characters(blacklist_characters="$\\\n\r\t#@-+ ", codec="utf-8",
                             blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40))
def test_a_recipe_line_without_make_syntax_reaches_the_shell_as_written(line: str) -> None:
    text = f"go:\n\t{line}\n"
    found = recipes(make_run(["go"]), lambda path: text, "/p", {})
    assert found is not None
    assert [r.text for r in found[1]] == ([line] if line.strip(" \t") else [])


# the hook ------------------------------------------------------------------------------------
_PROJECT_MAKEFILE = """\
CKPT = capsules
.PHONY: clean clean-all lint
lint:
\truff check .
clean:
\trm -rf build __pycache__
clean-ckpt:
\trm -rf $(CKPT)/*
clean-all: clean
\t$(MAKE) clean-ckpt
reset: ; rm -rf .labledger
"""


@pytest.mark.parametrize(("command", "line"), [
    ("make clean-ckpt", 8),
    ("make clean-all", 8),  # `$(MAKE) clean-ckpt` runs make again
    ("make reset", 11),
    ("make -C . reset", 11),
    ("make -s -k clean-ckpt CKPT=capsules/c2", 8),
    ("cd src && make -C .. reset", 11),
])
def test_a_recipe_that_deletes_protected_folders_is_blocked(
        box: Path, command: str, line: int) -> None:  # noqa: F811
    (box / "Makefile").write_text(_PROJECT_MAKEFILE)
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any(f", line {line} of `Makefile`" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "make", "make lint", "make clean", "make -n clean-ckpt", "make --dry-run reset",
    "make clean-ckpt CKPT=build", "make nothing-here", "make -f missing.mk reset",
])
def test_recipes_that_miss_them_pass(box: Path, command: str) -> None:  # noqa: F811
    (box / "Makefile").write_text(_PROJECT_MAKEFILE)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


# make's functions and references, as make computes them --------------------------------------
_COMPUTED = {
    "substitution": "MODELS = resnet vit\nSRC = a.c b.c\nclean:\n"
                    "\trm -rf $(MODELS:%=checkpoints/%) $(SRC:.c=.o) ${SRC:a.c=x}\n",
    "foreach": "RUNS = r1 r2\nclean:\n\trm -rf $(foreach r,$(RUNS),outputs/$(r)/ckpt)\n"
               "\t$(foreach d,a b,echo $(d);)\n",
    "if-or-and": "clean:\n\trm -rf $(if $(KEEP),,outputs) $(if x,wandb,logs) $(or $(A),runs)"
                 " $(and x,y)\n",
    "call": "ckpt = checkpoints/$(1)-$(2)\nclean:\n\trm -rf $(call ckpt,vit,$(SEED))\n"
            "SEED = 7\n",
    "text": "clean:\n\trm -rf $(patsubst %,%/c2,caps) $(subst a,b,aaa) $(filter a%,ab cd)"
            " $(filter-out a%,ab cd) $(sort b a b) $(words a b) $(word 2,a b)"
            " $(wordlist 2,3,a b c d) $(findstring b,abc) $(strip  a   b ) $(join a b,1 2)"
            " $(suffix a.c b) $(basename a.c d/e.f)\n",
    "directories": "out/x.pt:\n\trm -rf $(@D) $(@F) $(<D)\n",
}


@pytest.mark.parametrize("name", sorted(_COMPUTED))
def test_functions_compute_what_gnu_make_computes(tmp_path: Path, name: str) -> None:
    """A word make computes is the word it runs: ``rm -rf $(MODELS:%=checkpoints/%)`` deletes
    checkpoints/resnet, not resnet, and ``$(foreach r,$(RUNS),outputs/$(r))`` is no computed
    word the hook cannot read. The forms are those ML makefiles write (``$(SRC:.c=.o)`` in
    pradeepfn/nvm-style C builds, ``$(foreach ...)`` over run names)."""
    makefile = _COMPUTED[name]
    (tmp_path / "Makefile").write_text(makefile)
    target = "out/x.pt" if name == "directories" else "clean"
    assert _ours(tmp_path, target) == _gnu(tmp_path, target)


@pytest.mark.parametrize("makefile", [
    "RUNS = c2 c3\nclean:\n\trm -rf $(foreach r,$(RUNS),capsules/$(r))\n",
    "RUNS = c2\nclean:\n\trm -rf $(RUNS:%=capsules/%)\n",
    "ckpt = capsules/$(1)\nclean:\n\trm -rf $(call ckpt,c2)\n",
    "clean:\n\trm -rf $(patsubst %,capsules/%,c2)\n",
])
def test_a_computed_delete_of_a_protected_folder_is_blocked(
        box: Path, makefile: str) -> None:  # noqa: F811
    """Before, these words were `$(computed)` (or the variable's words unsubstituted), and
    ``rm -rf $(computed)`` passed."""
    (box / "Makefile").write_text(makefile)
    verdict = _judged(box, "make clean")
    assert not verdict.allowed
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons


# what make reads, as make reads it -----------------------------------------------------------
_READ = {
    "target-variable": "OUT = build\nclean: OUT = checkpoints\nclean: deps\n\trm -rf $(OUT)\n"
                       "deps:\n\techo $(OUT)\n",
    "target-variable-append": "FLAGS = -r\nclean: FLAGS += -f\nclean:\n\trm $(FLAGS) x\n",
    "recipe-prefix": ".RECIPEPREFIX = >\nclean:\n> rm -rf checkpoints\n> echo done\n",
    "endef-comment": "define BANNER\necho cleaning\nendef # the banner\nclean:\n\t$(BANNER)\n"
                     "\trm -rf runs\n",
    "override-define": "override define WIPE\nrm -rf runs\nendef\nclean:\n\t$(WIPE)\n",
    "append-to-simple": "B = checkpoints\nA := x\nA += $(B)\nB = safe\nclean:\n\trm -rf $(A)\n",
    "default-goal": ".DEFAULT_GOAL = $(GOAL)\nGOAL = clean\nall:\n\techo all\n"
                    "clean:\n\trm -rf runs\n",
    # cookiecutter-data-science's help target reads its own makefile so
    "makefile-list": "include rules.mk\nclean:\n\tgrep -h '##' $(MAKEFILE_LIST)\n"
                     "\techo $(lastword $(MAKEFILE_LIST))\n",
}


@pytest.mark.parametrize("name", sorted(_READ))
def test_what_make_reads_is_read(tmp_path: Path, name: str) -> None:
    """Before: ``clean: OUT = checkpoints`` (a target's own variable) was dropped, so ``rm -rf
    $(OUT)`` read build; a ``.RECIPEPREFIX`` recipe, a define ended by ``endef # comment`` (the
    rest of the makefile swallowed), an ``override define`` were not read; ``A += $(B)`` on a
    ``:=`` variable was expanded late; ``.DEFAULT_GOAL = $(GOAL)`` named no target;
    ``$(MAKEFILE_LIST)`` was empty."""
    (tmp_path / "Makefile").write_text(_READ[name])
    (tmp_path / "rules.mk").write_text("OUT = runs\n")
    args = [] if name == "default-goal" else ["clean"]
    assert _ours(tmp_path, *args) == _gnu(tmp_path, *args)


def test_print_data_base_runs_the_recipes_too(tmp_path: Path) -> None:
    """``make -p`` prints the data base "then executes as usual" (GNU make manual, "Summary
    of Options"): its recipes run."""
    (tmp_path / "Makefile").write_text("clean:\n\ttouch ran\n")
    assert make_run(["-p", "clean"]).runs
    assert make_run(["--print-data-base", "clean"]).runs
    assert _MAKE is not None
    subprocess.run([_MAKE, "-p", "clean"], cwd=tmp_path, capture_output=True, check=True)
    assert (tmp_path / "ran").exists()


@pytest.mark.parametrize("makefile", [
    "CKPT = build\nclean: CKPT = capsules/c2\nclean:\n\trm -rf $(CKPT)\n",
    ".RECIPEPREFIX = >\nclean:\n> rm -rf capsules/c2\n",
    "define NOTE\necho wiping\nendef # shown first\nclean:\n\trm -rf capsules/c2\n",
])
def test_a_delete_make_reads_so_is_blocked(box: Path, makefile: str) -> None:  # noqa: F811
    (box / "Makefile").write_text(makefile)
    verdict = _judged(box, "make clean")
    assert not verdict.allowed
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons
    assert not _judged(box, "make -p clean").allowed


@pytest.mark.parametrize("makefile", [
    "export CKPT_DIR = capsules/c2\nclean:\n\trm -rf $$CKPT_DIR\n",
    "CKPT_DIR := capsules/c2\nexport CKPT_DIR\nclean:\n\trm -rf \"$${CKPT_DIR}\"\n",
    ".EXPORT_ALL_VARIABLES:\nCKPT_DIR = capsules/c2\nclean:\n\trm -rf $$CKPT_DIR\n",
])
def test_an_exported_variable_is_in_the_recipes_environment(
        box: Path, makefile: str) -> None:  # noqa: F811
    """``export NAME = VALUE`` puts NAME in the environment of every recipe line ("Communicating
    Variables to a Sub-make"); ``rm -rf $$CKPT_DIR`` is the shell's ``rm -rf $CKPT_DIR``
    (chadHGY/server's Makefile runs ``sudo rm -rf ${WANDB_PREFIX}`` so, from an included
    .env). Before, $CKPT_DIR was read as unset and the delete passed."""
    assert _MAKE is not None  # what GNU make hands the shell, with echo for rm -rf
    (box / "Makefile").write_text(makefile.replace("rm -rf", "echo"))
    echoed = subprocess.run([_MAKE, "-s", "clean"], cwd=box, capture_output=True, text=True,
                            check=True, env={"PATH": "/usr/bin:/bin"}).stdout
    assert echoed == "capsules/c2\n"
    (box / "Makefile").write_text(makefile)
    verdict = _judged(box, "make clean")
    assert not verdict.allowed
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons


_ODD = {
    "binary": "\x00\xff\xfe" * 1000,
    "define-alone": "define\nfoo\nendef\nclean:\n\techo x\n",
    "bare-directives": ":\n::\n:=\n=\n+=\nexport\n.RECIPEPREFIX =\nclean:\n\techo x\n",
    "include-loop": "include Makefile\nclean:\n\techo x\n",
    "self-reference": "A = $(A)\nclean:\n\trm -rf $(A)\n",
    # each variable twice the next: 2**20 words once expanded
    "doubling": "".join(f"A{i} = $(A{i + 1})$(A{i + 1})\n" for i in range(40))
    + "clean:\n\trm -rf $(A0)\n",
    "doubling-call": "f = $(call f)$(call f)\nclean:\n\trm -rf $(call f)\n",
    "foreach-in-foreach": "W := " + " ".join(map(str, range(300)))
    + "\nclean:\n\techo $(foreach a,$(W),$(foreach b,$(W),$(foreach c,$(W),x)))\n",
    "huge-line": "clean:\n\techo " + "a" * 200_000 + "\n",
}


@pytest.mark.parametrize("name", sorted(_ODD))
def test_an_odd_makefile_is_read_in_bounded_work(tmp_path: Path, name: str) -> None:
    """No makefile makes reading raise or run long: expansion stops at a budget of characters
    (`_EXPANSION_BUDGET`; past it a word is computed). Before, the doubling makefiles took
    7 and 15 s to expand (11 million characters) and the nested $(foreach) did not end; a bare
    ``define`` line raised."""
    found = recipes(make_run(["clean"]), lambda path: _ODD[name], str(tmp_path), {})
    assert found is None or sum(len(r.text) for r in found[1]) <= 4 << 20


_BRANCHES = """\
ifeq ($(DATASET),imagenet)
DATA_DIR = /data/imagenet
CKPT := checkpoints/big
else
DATA_DIR = data/cifar
endif
ifdef KEEP
WIPE = echo keeping
endif
WIPE ?= rm -rf
clean-data:
\t$(WIPE) $(DATA_DIR) $(CKPT)
"""


@pytest.mark.parametrize("args", [["clean-data"], ["clean-data", "DATASET=imagenet"],
                                  ["clean-data", "KEEP=1"]])
def test_every_branch_of_a_conditional_counts_for_variables_too(
        tmp_path: Path, args: list[str]) -> None:
    """A variable set in either branch of a conditional is judged with each value, as a rule
    is (more to judge, never less): ``make clean-data DATASET=imagenet`` deletes
    /data/imagenet. Before, the last assignment alone counted: data/cifar, and ``WIPE`` was
    read as ``echo keeping`` (set in an ``ifdef KEEP`` branch) where make runs ``rm -rf``."""
    (tmp_path / "Makefile").write_text(_BRANCHES)
    ours = _ours(tmp_path, *args)
    gnu = _gnu(tmp_path, *args)
    assert set(gnu) <= set(ours), (gnu, ours)


def test_a_delete_in_a_branch_variable_is_blocked(box: Path) -> None:  # noqa: F811
    (box / "Makefile").write_text(
        "ifeq ($(RUN),c2)\nCKPT = capsules/c2\nelse\nCKPT = build/ckpt\nendif\n"
        "clean:\n\trm -rf $(CKPT)\n")
    verdict = _judged(box, "make clean RUN=c2")
    assert not verdict.allowed
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons


def test_dry_run_still_runs_plus_lines_and_make_lines(box: Path) -> None:  # noqa: F811
    """``make -n`` (and ``-t``, ``-q``) still runs a recipe line with a ``+`` prefix and one
    that reads ``$(MAKE)`` (GNU make manual, "Instead of Executing Recipes", "How the MAKE
    Variable Works"; the sub-make gets -n and itself runs nothing). Before, ``make -n`` was
    taken to run no line at all."""
    assert _MAKE is not None  # GNU make itself: `+touch` runs under -n, `$(MAKE)` does too
    (box / "Makefile").write_text("a:\n\t+touch plus-ran\nb:\n\t$(MAKE) -s c && touch make-ran\n"
                                  "c:\n\ttouch sub-ran\n")
    subprocess.run([_MAKE, "-n", "a", "b"], cwd=box, capture_output=True, check=True)
    assert (box / "plus-ran").exists()
    assert (box / "make-ran").exists()
    assert not (box / "sub-ran").exists()
    for name in ("plus-ran", "make-ran"):
        (box / name).unlink()
    (box / "Makefile").write_text(
        "plus:\n\t+rm -rf capsules/c2\nsub:\n\t$(MAKE) -C src && rm -rf capsules/c2\n"
        "all:\n\t$(MAKE) wipe\nwipe:\n\trm -rf capsules/c2\nquiet:\n\trm -rf capsules/c2\n")
    for command in ("make -n plus", "make -t plus", "make -n sub"):
        verdict = _judged(box, command)
        assert not verdict.allowed, command
    for command in ("make -n all", "make -n quiet", "make -q wipe"):
        verdict = _judged(box, command)
        assert verdict.allowed, (command, verdict.reasons)


def test_a_shell_make_runs_while_reading_is_judged_whatever_the_target(
        box: Path) -> None:  # noqa: F811
    """``X := $(shell CMD)`` and ``X != CMD`` run CMD as make reads the makefile, before any
    target (under ``-n`` too): GNU make itself creates the file below on ``make -n lint``.
    Before, CMD was judged only where a recipe line read X."""
    assert _MAKE is not None
    (box / "Makefile").write_text("X := $(shell touch read-ran)\nY != touch bang-ran\n"
                                  "lint:\n\techo lint\n")
    subprocess.run([_MAKE, "-n", "lint"], cwd=box, capture_output=True, check=True)
    assert (box / "read-ran").exists()
    assert (box / "bang-ran").exists()
    for name in ("read-ran", "bang-ran"):
        (box / name).unlink()
    for makefile in ("X := $(shell rm -rf capsules/c2)\nlint:\n\techo lint\n",
                     "X != rm -rf capsules/c2\nlint:\n\techo lint\n"):
        (box / "Makefile").write_text(makefile)
        for command in ("make lint", "make -n lint"):
            verdict = _judged(box, command)
            assert not verdict.allowed, (makefile, command)
            assert any("line 1 of `Makefile`" in r for r in verdict.reasons), verdict.reasons
    (box / "Makefile").write_text(  # cookiecutter-data-science's PROJECT_DIR
        "SHA := $(shell git rev-parse HEAD)\n"
        "DIR := $(shell dirname $(realpath $(lastword $(MAKEFILE_LIST))))\n"
        "lint:\n\techo $(SHA) $(DIR)\n")
    assert _judged(box, "make lint").allowed


def test_a_makefile_longer_than_a_script_is_read(box: Path) -> None:  # noqa: F811
    """Generated makefiles run long (automake's are often past 256 KiB); a makefile is read
    up to the line's file budget, as sed's and awk's program files are. Before, one past
    `_SCRIPT_BYTES` (256 KiB) was taken for no makefile: ``make clean`` passed unjudged."""
    (box / "Makefile").write_text("clean:\n\trm -rf capsules/c2\n"
                                  + ("# " + "x" * 100 + "\n") * 3000)
    verdict = _judged(box, "make clean")
    assert not verdict.allowed
    assert any("line 2 of `Makefile`" in r for r in verdict.reasons), verdict.reasons
