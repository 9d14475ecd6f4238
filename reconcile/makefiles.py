"""What ``make`` runs: the recipe lines of the targets asked for and of what they depend on,
read from the makefile as GNU make reads it (for the agent hook, which judges each line as a
command the agent typed: ``make clean`` whose recipe is ``rm -rf checkpoints runs`` deletes
them).

Read (GNU make 4 manual, "Writing Makefiles", "How to Use Variables", "Functions"): lines
joined at a backslash-newline; ``#`` comments outside recipes; ``include``/``-include``/
``sinclude`` (read too, a few deep); ``[override|export] define NAME [OP] ... endef [#
comment]``; variable assignments (``=``, ``:=``, ``::=``, ``:::=``, ``?=``, ``+=`` (expanded
at once on a ``:=`` variable), ``!=``; ``override``/``export``); rules ``TARGETS :
PREREQUISITES [; RECIPE]`` (and ``::``) with their tab-led recipe lines (``.RECIPEPREFIX``'s
character where one is set); a target's own variables (``clean: OUT = x``), which hold for it
and its prerequisites; ``.DEFAULT_GOAL``, expanded. Conditionals
(``ifeq``, ``ifdef``, ...) are not evaluated: every branch counts (more to judge, never
less): its rules, and its variables, a line that reads them judged with each combination of
the values the branches give (`_MAX_BRANCHES`). Pattern rules (``%.o: %.c``) are left out:
a target asked for by name is what an agent's ``make clean`` runs.

Expansion, as make does it before handing a line to the shell: ``$$`` is ``$``; ``$(VAR)``,
``${VAR}``, ``$V`` from the command line's ``NAME=VALUE``, then the makefile (``override``
first), then the environment, then make's defaults (``RM = rm -f``, ``MAKE = make``,
``CURDIR``, ``MAKEFILE_LIST``); an undefined variable is empty, as in make (``rm -rf
$(OUT)/`` with OUT unset runs ``rm -rf /``); a target's own variables above the makefile's;
the automatic ``$@``, ``$<``, ``$^``, ``$+``, ``$?``, ``$*``;
``$(shell CMD)`` becomes the shell's ``$(CMD)`` (it runs; in a ``:=`` or ``!=`` value, as
the makefile is read, whatever the target); ``$(wildcard P)`` what P matches
now, sorted (make 4.3); substitution references (``$(SRC:.c=.o)``, ``$(D:%=out/%)``),
``$(@D)``/``$(@F)`` and their kin; the text and file-name functions (``subst``,
``patsubst``, ``filter``, ``sort``, ``word``, ``addprefix``, ``notdir``, ``abspath``, ...)
and ``foreach``, ``if``, ``or``, ``and``, ``call`` as make computes them; ``eval``,
``info`` and the like give nothing; any other ``$(NAME ARGS)`` stays a computed word. The
variables make exports (``export NAME = VALUE``, ``export NAME``, ``export`` alone,
``.EXPORT_ALL_VARIABLES``, the command line's) are given, expanded, with the lines: a line's
``$$NAME`` reads them. Recipe
prefixes ``@``, ``-``, ``+`` are dropped.

Invariants: reading never runs anything; the work is bounded (`_MAX_RECIPES` lines,
`_MAX_INCLUDES` includes, `_MAX_DEPTH` expansion depth, `_EXPANSION_BUDGET` characters
expanded in all); a makefile is text of at most what
the caller read.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["MakeRun", "Recipe", "make_run", "recipes"]

_MAX_RECIPES = 500
_MAX_INCLUDES = 8
_MAX_DEPTH = 20
# the characters expansion may produce for one make command, all references together: a
# variable doubling itself 20 deep, or a $(foreach) in a $(foreach), would take seconds
_EXPANSION_BUDGET = 1 << 20
_DEFAULTS = {"RM": "rm -f", "MAKE": "make", "SHELL": "/bin/sh", "CP": "cp", "MV": "mv"}
_ASSIGNMENT = re.compile(
    r"^(?:(?:override|export|private)\s+)*([^:#=\s$()]+|\$[({][^)}]*[)}])\s*"
    r"(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$", re.S)
_DEFINE = re.compile(r"^(?:(?:override|export|private)\s+)*define(?:\s+(.*))?$")
_EXPORT = re.compile(r"^export(?:\s+([^:=]*))?$")
_CONDITIONAL = re.compile(r"^(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_INCLUDE = re.compile(r"^(-?include|sinclude)\s+(.*)$")
_FUNCTIONS = {"wildcard", "abspath", "realpath", "strip", "notdir", "dir", "firstword",
              "lastword", "filter", "filter-out", "sort", "addprefix", "addsuffix", "subst",
              "patsubst", "shell", "value", "join", "words", "word", "wordlist", "findstring",
              "suffix", "basename", "foreach", "if", "or", "and", "call", "eval", "origin",
              "flavor", "error", "warning", "info", "file", "guile"}
_MAX_WORDS = 1000  # the words a $(foreach) runs over
_MAX_BRANCHES = 64  # the combinations of values conditionals' branches give, tried per line


@dataclass
class Recipe:
    """One recipe line as the shell gets it, and where it stands (file, 1-based line)."""

    text: str
    file: str
    line: int
    # runs under -n/-t/-q too: a `+` prefix, or it reads $(MAKE) (whose make gets -n)
    dry_runs: bool = False


@dataclass
class MakeRun:
    """What a ``make`` command line asks for: the makefiles it reads (``-f``; none: the
    default names), the folder it runs in (``-C``, joined), its targets and its
    ``NAME=VALUE`` words; ``runs`` false for ``-n``/``-q``/``-t`` (only a ``+`` line or a
    ``$(MAKE)`` one runs)."""

    files: list[str] = field(default_factory=list)
    folder: str = "."
    targets: list[str] = field(default_factory=list)
    overrides: dict[str, str] = field(default_factory=dict)
    runs: bool = True


# make's options that take a value (`-j`, `-l`, `-O` take one only when it is glued or, for
# -j and -l, a number follows)
_VALUED = {"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-o",
           "--old-file", "--assume-old", "-W", "--what-if", "--new-file", "--assume-new",
           "--eval", "-E", "--jobserver-auth", "--debug"}
# (not -p, --print-data-base: make prints its data base, "then executes as usual")
_NO_RUN = {"-n", "--just-print", "--dry-run", "--recon", "-q", "--question", "-t", "--touch",
           "-v", "--version", "-h", "--help"}


def make_run(args: list[str]) -> MakeRun:
    """Read ``make ARGS`` (GNU make's options)."""
    run = MakeRun()
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            run.targets += [w for w in args[i:] if "=" not in w]
            break
        if not word.startswith("-") or word == "-":
            name, eq, value = word.partition("=")
            if eq and name and not name.startswith(("=", ":")):
                run.overrides[name.rstrip(":+?")] = value
            else:
                run.targets.append(word)
            continue
        option, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if word in _NO_RUN or (word.startswith("-") and not word.startswith("--") and any(
                "-" + c in _NO_RUN for c in _flags_before_value(word))):
            run.runs = False
        if not eq and option in _VALUED:
            value, i = (args[i] if i < len(args) else ""), i + 1
            eq = "="
        elif not word.startswith("--") and len(word) > 2 and word[:2] in ("-f", "-C") and \
                not any("-" + c in _NO_RUN for c in word[1:2]):
            option, value, eq = word[:2], word[2:], "="
        elif option in ("-j", "-l", "--jobs", "--load-average") and not eq and \
                i < len(args) and re.fullmatch(r"[0-9.]+", args[i]):
            i += 1
        if eq and option in ("-f", "--file", "--makefile"):
            run.files.append(value)
        elif eq and option in ("-C", "--directory"):
            run.folder = value if os.path.isabs(value) else os.path.join(run.folder, value)
    run.folder = os.path.normpath(run.folder)
    return run


def _flags_before_value(word: str) -> str:
    """The letters of a short-option bundle up to the first that takes a value."""
    letters = ""
    for c in word[1:]:
        letters += c
        if "-" + c in _VALUED:
            break
    return letters


@dataclass
class _Rule:
    prerequisites: list[str] = field(default_factory=list)
    recipes: list[tuple[str, str, int]] = field(default_factory=list)  # (raw, file, line)
    variables: list[tuple[str, str, str]] = field(default_factory=list)  # (name, op, value)


class _Makefile:
    """The variables and rules of a makefile and what it includes."""

    def __init__(self, env: Mapping[str, str], overrides: Mapping[str, str],
                 folder: str) -> None:
        self.env = env
        self.overrides = dict(overrides)
        self.variables: dict[str, str] = {}
        self.forced: dict[str, str] = {}  # `override NAME = ...`
        self.rules: dict[str, _Rule] = {}
        self.default: str | None = None
        self.folder = folder
        self.includes = 0
        self.read_names: list[str] = []
        self.where = ("", 0)  # the makefile line being read
        self.reading = False  # expanding as the makefile is read (a `:=` value): its
        # $(shell CMD) runs now, whatever the target (`ran`)
        self.ran: list[Recipe] = []
        self.conditionals = 0  # how deep in ifeq/ifdef blocks the line read is
        # the values a variable may have besides its last (None: undefined): those set in a
        # conditional's branches, each branch taken
        self.alternatives: dict[str, list[str | None]] = {}
        self.referenced: set[str] | None = None
        self.budget = _EXPANSION_BUDGET  # `_EXPANSION_BUDGET`, what is left of it
        self.simple: set[str] = set()  # the variables assigned with `:=`: expanded already
        self.prefix = "\t"  # what starts a recipe line (`.RECIPEPREFIX`)
        self.layer: dict[str, str] = {}  # the variables of the target being run (its own)
        self.exported: set[str] = set()  # `export NAME [= VALUE]`: in the recipes' environment
        self.export_all = False  # `export` alone, `.EXPORT_ALL_VARIABLES:`

    def read(self, text: str, name: str, read_file: Callable[[str], str | None]) -> None:
        self.read_names.append(name)  # $(MAKEFILE_LIST): each makefile as it was named
        current: list[_Rule] = []
        lines = text.split("\n")
        k = 0
        while k < len(lines):
            start = k
            line = lines[k]
            k += 1
            self.where = (name, start + 1)
            if line.startswith(self.prefix) and current:
                # the shell gets a backslash-newline as written (it continues the command),
                # the next line's leading recipe prefix (a tab) taken off
                while line.endswith("\\") and k < len(lines):
                    line = line + "\n" + lines[k].removeprefix(self.prefix)
                    k += 1
                for rule in current:
                    rule.recipes.append((line[len(self.prefix):], name, start + 1))
                continue
            while line.endswith("\\") and k < len(lines):
                line = line[:-1] + " " + lines[k]
                k += 1
            stripped = _without_comment(line).strip()
            if not stripped:
                continue
            define = _DEFINE.match(stripped)
            if define is not None:
                current = []
                k = self._define(define.group(1) or "", lines, k,
                                 stripped.startswith("override"))
                continue
            conditional = _CONDITIONAL.match(stripped)
            if conditional is not None:  # every branch counts (`alternatives`)
                if conditional.group(1).startswith("if"):
                    self.conditionals += 1
                elif conditional.group(1) == "endif":
                    self.conditionals = max(0, self.conditionals - 1)
                continue
            include = _INCLUDE.match(stripped)
            if include is not None:
                self._include(include.group(2), read_file)
                continue
            assignment = _assignment(stripped)
            if assignment is not None:
                current = []
                self._assign(*assignment, forced=stripped.startswith("override"))
                if re.match(r"(?:override\s+)?export\s", stripped):
                    self.exported.add(self.expand(assignment[0], {}).strip())
                continue
            exports = _EXPORT.match(stripped)
            if exports is not None:  # `export NAME...`, `export` (all of them)
                names = self.expand(exports.group(1) or "", {}).split()
                self.exported.update(names)
                self.export_all = self.export_all or not names
                continue
            parts = _rule_parts(stripped)
            if parts is None:
                continue  # a directive this does not read (`vpath`, `unexport`, ...)
            targets, prerequisites, inline = parts
            current = []
            own = _assignment(prerequisites.strip()) if inline is None else None
            if own is None and inline is None and "=" in prerequisites.split("|")[0]:
                prerequisites = ""  # no variable this reads, and no prerequisite either
            for target in self.expand(targets, {}).split():
                if "%" in target:
                    continue  # a pattern rule
                if own is not None:  # `clean: OUT = x`: a variable of the target's own
                    self.rules.setdefault(target, _Rule()).variables.append(own)
                    continue
                self.export_all = self.export_all or target == ".EXPORT_ALL_VARIABLES"
                if self.default is None and not target.startswith("."):
                    self.default = target
                each = self.rules.setdefault(target, _Rule())
                each.prerequisites += self.expand(prerequisites.split("|")[0], {}).split()
                if inline is not None:
                    each.recipes.append((inline, name, start + 1))
                current.append(each)

    def _define(self, head: str, lines: list[str], k: int, forced: bool) -> int:
        """Read ``define NAME [OP]`` up to its ``endef`` (a nested define's counted; a comment
        may follow it) from line ``k``; where reading goes on."""
        variable, op = head.strip(), "="
        m = re.match(r"^(.*?)\s*(:::=|::=|:=|\?=|\+=|!=|=)$", variable)
        if m is not None:
            variable, op = m.group(1), m.group(2)
        body: list[str] = []
        nested = 0
        while k < len(lines):
            word = _without_comment(lines[k]).strip()
            if word == "endef" or word.startswith(("endef ", "endef\t")):
                if nested == 0:
                    break
                nested -= 1
            elif _DEFINE.match(word):
                nested += 1
            body.append(lines[k])
            k += 1
        self._assign(variable, op, "\n".join(body), forced)
        return k + 1

    def _include(self, words: str, read_file: Callable[[str], str | None]) -> None:
        for each in self.expand(words, {}).split():
            if self.includes >= _MAX_INCLUDES:
                return
            self.includes += 1
            text = read_file(os.path.join(self.folder, each))
            if text is not None:
                self.read(text, each, read_file)

    def _assign(self, name: str, op: str, value: str, forced: bool) -> None:
        name = self.expand(name, {}).strip()
        table = self.forced if forced else self.variables
        before = table.get(name)
        self._set(name, op, value, table)
        after = table.get(name)
        alternatives = self.alternatives.get(name)
        if self.conditionals:  # this branch, or not: both values count
            values = self.alternatives.setdefault(name, [])
            values += [v for v in (before, after) if v not in values]
        elif alternatives is not None:
            if op == "?=" and None in alternatives:  # (set where a branch left it undefined)
                alternatives.remove(None)
                alternatives.append(value)
            elif op == "+=":
                self.alternatives[name] = [after if v is None else v + " " + value
                                           for v in alternatives]
            elif op != "?=":  # set whatever the branches did
                del self.alternatives[name]

    def _set(self, name: str, op: str, value: str, table: dict[str, str]) -> None:
        if op == "?=":
            if name not in table and name not in self.env:
                table[name] = value
                self.simple.discard(name)
        elif op == "+=":
            before = table.get(name)
            if before is None and name in self.env:
                before = self.env[name].replace("$", "$$")
            if name in self.simple:  # appended to a `:=` variable: expanded now, as it was
                value = self._now(value).replace("$", "$$")
            table[name] = value if before is None else (before + " " + value).strip()
        elif op in (":=", "::=", ":::="):
            table[name] = self._now(value).replace("$", "$$")  # expanded once, now
            self.simple.add(name)
        elif op == "!=":  # the shell runs the value now; the variable holds what it printed
            table[name] = "$(shell " + value + ")"
            self._now(table[name])
            self.simple.discard(name)
        else:
            table[name] = value
            self.simple.discard(name)
        if name == ".RECIPEPREFIX":
            self.prefix = self.expand(table[name], {})[:1] or "\t"

    def branch_texts(self, raw: str, automatic: dict[str, str]) -> list[str]:
        """``raw`` expanded with the other values variables have in conditionals' branches
        (`alternatives`), each combination of them (at most `_MAX_BRANCHES`; past that, one
        variable at a time)."""
        if self.referenced is None:  # (those another variable's value may read: any line)
            self.referenced = {n for n in self.alternatives
                               if any(n in v for v in self.variables.values())}
        names = [n for n in self.alternatives if n in raw or n in self.referenced]
        if not names:
            return []
        current = {n: self.variables.get(n) for n in names}
        choices = [list(dict.fromkeys([current[n], *self.alternatives[n]])) for n in names]
        combinations: list[tuple[str | None, ...]] = []
        if math.prod(len(c) for c in choices) <= _MAX_BRANCHES:
            combinations = list(itertools.product(*choices))
        else:
            base = tuple(current[n] for n in names)
            combinations = [base[:k] + (v,) + base[k + 1:] for k, c in enumerate(choices)
                            for v in c[1:_MAX_BRANCHES]][:_MAX_BRANCHES * 4]
        texts: list[str] = []
        try:
            for values in combinations:
                for name, value in zip(names, values, strict=True):
                    self._put(name, value)
                text = _recipe_text(self.expand(raw, automatic))
                if text and text not in texts:
                    texts.append(text)
        finally:
            for name, value in current.items():
                self._put(name, value)
        return texts

    def _put(self, name: str, value: str | None) -> None:
        if value is None:
            self.variables.pop(name, None)
        else:
            self.variables[name] = value

    def environment(self) -> dict[str, str]:
        """The variables make puts in the recipes' environment, expanded: those exported, and
        the command line's ``NAME=VALUE`` (GNU make exports these too)."""
        names = set(self.exported) | set(self.overrides)
        if self.export_all:
            names |= set(self.variables) | set(self.forced)
        found = {}
        for name in sorted(names)[:_MAX_WORDS]:
            value = self.value(name) if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else None
            if value is not None:
                found[name] = self.expand(value, {})
        return found

    def target_layer(self, own: list[tuple[str, str, str]], inherited: dict[str, str]
                     ) -> dict[str, str]:
        """The variables a target runs with: those it inherits, then its own."""
        layer = dict(inherited)
        for name, op, value in own:
            self.layer = layer
            name = self.expand(name, {}).strip()
            before = self.value(name)
            if op == "?=":
                if before is None:
                    layer[name] = value
            elif op == "+=":
                layer[name] = value if before is None else before + " " + value
            elif op in (":=", "::=", ":::="):
                layer[name] = self.expand(value, {}).replace("$", "$$")
            else:
                layer[name] = value
        return layer

    def _now(self, text: str) -> str:
        """``text`` expanded as make reads the makefile (its ``$(shell)`` runs now)."""
        self.reading = True
        try:
            return self.expand(text, {})
        finally:
            self.reading = False

    def value(self, name: str) -> str | None:
        if name in self.forced:
            return self.forced[name]
        if name in self.overrides:
            return self.overrides[name]
        if name in self.layer:
            return self.layer[name]
        if name in self.variables:
            return self.variables[name]
        if name in self.env:
            return self.env[name].replace("$", "$$")
        if name == "CURDIR":
            return self.folder
        if name == "MAKEFILE_LIST":
            return " ".join(self.read_names)
        return _DEFAULTS.get(name)

    def expand(self, text: str, automatic: Mapping[str, str], depth: int = 0) -> str:
        """``text`` with its variable references and functions expanded (``$$``: ``$``)."""
        if "$" not in text:
            return text
        if depth > _MAX_DEPTH or self.budget <= 0:
            return "$(computed)"  # (past the budget: what it computes is not read)
        out: list[str] = []
        i = 0
        while i < len(text):
            dollar = text.find("$", i)
            if dollar < 0 or dollar + 1 >= len(text):
                out.append(text[i:])
                break
            out.append(text[i:dollar])
            i = dollar
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt in "({":
                end = _closing(text, i + 1)
                if end < 0:
                    out.append(text[i:])
                    break
                out.append(self._reference(text[i + 2:end], automatic, depth))
                i = end + 1
                continue
            out.append(self._reference(nxt, automatic, depth))
            i += 2
        expanded = "".join(out)
        self.budget -= len(expanded)
        return expanded

    def _reference(self, inner: str, automatic: Mapping[str, str], depth: int) -> str:
        if inner in automatic:
            return automatic[inner]
        if len(inner) == 2 and inner[0] in "@<^+?*" and inner[1] in "DF":  # $(@D), $(<F)
            words = automatic.get(inner[0], "").split()
            if inner[1] == "F":
                return " ".join(os.path.basename(w) for w in words)
            return " ".join(os.path.dirname(w) or "." for w in words)
        head, space, rest = inner.replace("\t", " ").partition(" ")
        if head in _FUNCTIONS and space:  # `$(dir)` is a variable, `$(dir x)` the function
            return self._function(head, rest.lstrip(" "), automatic, depth)
        name, colon, substitution = inner.partition(":")
        if colon and "=" in substitution and "(" not in name and "{" not in name:
            # $(VAR:.c=.o), $(VAR:%=dir/%): a substitution reference, patsubst on its words
            old, _, new = substitution.partition("=")
            old, new = (self.expand(w, automatic, depth + 1) for w in (old, new))
            words = self._reference(name, automatic, depth).split()
            if "%" not in old:
                old, new = "%" + old, "%" + new
            return " ".join(_patsubst(old, new, w) for w in words)
        if " " in inner or "\t" in inner:
            return "$(computed)"  # a function this does not read: computed when it runs
        value = self.value(self.expand(inner, automatic, depth + 1))
        return "" if value is None else self.expand(value, automatic, depth + 1)

    def _function(self, name: str, rest: str, automatic: Mapping[str, str], depth: int) -> str:
        raw = _split_args(rest)
        if name in ("foreach", "if", "or", "and", "call"):  # their arguments are expanded lazily
            return self._control(name, raw, automatic, depth)
        if name == "shell":
            command = self.expand(rest, automatic, depth + 1)
            if self.reading and len(self.ran) < _MAX_RECIPES:
                self.ran.append(Recipe(command, *self.where, dry_runs=True))
            return "$(" + command + ")"  # it runs: the shell's substitution
        args = [self.expand(a, automatic, depth + 1) for a in raw]
        return _text_function(name, args, self.folder)

    def _control(self, name: str, raw: list[str], automatic: Mapping[str, str],
                 depth: int) -> str:
        """``$(foreach VAR,LIST,TEXT)``, ``$(if C,THEN,ELSE)``, ``$(or ...)``, ``$(and ...)``,
        ``$(call NAME,ARGS...)``: each argument expanded when make expands it."""
        def expand(text: str, bound: Mapping[str, str] = automatic) -> str:
            return self.expand(text, bound, depth + 1)

        if name == "foreach" and len(raw) >= 3:
            variable = expand(raw[0]).strip()
            words = expand(raw[1]).split()[:_MAX_WORDS]
            body = ",".join(raw[2:])
            return " ".join(expand(body, {**automatic, variable: w}) for w in words)
        if name == "if" and len(raw) >= 2:
            if expand(raw[0]).strip():
                return expand(raw[1])
            return expand(",".join(raw[2:])) if len(raw) > 2 else ""
        if name == "or":
            return next((v for v in map(expand, raw) if v.strip()), "")
        if name == "and":
            value = ""
            for each in raw:
                value = expand(each)
                if not value.strip():
                    return ""
            return value
        if name == "call" and raw:
            called = expand(raw[0]).strip()
            bound = {**automatic, "0": called}
            bound.update({str(n): expand(a) for n, a in enumerate(raw[1:], 1)})
            called_body = self.value(called)
            return "" if called_body is None else self.expand(called_body, bound, depth + 1)
        return ""


def recipes(run: MakeRun, read_file: Callable[[str], str | None], folder: str,
            env: Mapping[str, str]
            ) -> tuple[str, list[Recipe], dict[str, str], list[Recipe]] | None:
    """(the makefile's name, the recipe lines ``run`` runs (``-n``, ``-t``, ``-q``: those
    with a ``+`` prefix or reading ``$(MAKE)``, that make with ``-n``), prerequisites' first,
    each target once, the variables make puts in their environment, the commands make runs
    as it reads the makefile: a ``:=`` or ``!=`` value's ``$(shell CMD)``, whatever the
    target) from the makefile read in ``folder`` (its ``-f`` files, else GNUmakefile,
    makefile, Makefile); None when there is none to read (make fails: nothing runs)."""
    names = run.files or ["GNUmakefile", "makefile", "Makefile"]
    makefile = _Makefile(env, run.overrides, folder)
    found = None
    for name in names:
        text = read_file(name if os.path.isabs(name) else os.path.join(folder, name))
        if text is None:
            if run.files:
                return None  # make: "No such file or directory"
            continue
        makefile.read(text, name, read_file)
        found = found or name
        if not run.files:
            break
    if found is None:
        return None
    goal = makefile.value(".DEFAULT_GOAL")
    goal = None if goal is None else makefile.expand(goal, {})
    targets = run.targets or ([goal.strip()] if goal and goal.strip() else
                              [makefile.default] if makefile.default else [])
    lines: list[Recipe] = []
    done: set[str] = set()

    def visit(target: str, depth: int, inherited: dict[str, str]) -> None:
        if target in done or depth > 50 or len(lines) >= _MAX_RECIPES:
            return
        done.add(target)
        rule = makefile.rules.get(target)
        if rule is None:
            return
        # a target's own variables hold for it and for what it depends on
        layer = makefile.target_layer(rule.variables, inherited)
        for prerequisite in rule.prerequisites:
            visit(prerequisite, depth + 1, layer)
        makefile.layer = layer
        automatic = {"@": target, "<": rule.prerequisites[0] if rule.prerequisites else "",
                     "^": " ".join(dict.fromkeys(rule.prerequisites)),
                     "+": " ".join(rule.prerequisites), "?": " ".join(rule.prerequisites),
                     "*": "", "|": ""}
        for raw, file, line in rule.recipes:
            text = _recipe_text(makefile.expand(raw, automatic))
            prefix = raw[:len(raw) - len(raw.lstrip(" \t@-+"))]
            dry_runs = "+" in prefix or "$(MAKE)" in raw or "${MAKE}" in raw
            if text and (run.runs or dry_runs):
                lines.append(Recipe(text, file, line, dry_runs))
                expanded.append((raw, automatic, layer))

    expanded: list[tuple[str, dict[str, str], dict[str, str]]] = []
    if not run.runs:  # -n, -t, -q: the make a line runs gets it too (MAKEFLAGS)
        makefile.forced["MAKE"] = (makefile.value("MAKE") or "make") + " -n"
    for target in targets:
        visit(target, 0, {})
    # then each line again with each value a conditional's branches give a variable it reads
    # (after every line read once: the expansion budget goes to those first)
    read = [[recipe] for recipe in lines]
    for (raw, automatic, layer), recipes_of_line in zip(expanded, read, strict=True):
        makefile.layer = layer
        for text in makefile.branch_texts(raw, automatic):
            if all(text != r.text for r in recipes_of_line):
                recipe = recipes_of_line[0]
                recipes_of_line.append(Recipe(text, recipe.file, recipe.line,
                                              recipe.dry_runs))
    makefile.layer = {}
    lines = [recipe for each in read for recipe in each]
    return found, lines[:_MAX_RECIPES], makefile.environment(), makefile.ran


def _recipe_text(expanded: str) -> str:
    """An expanded recipe line as the shell gets it: its prefixes ``@``, ``-``, ``+`` and
    leading blanks dropped; "" for a blank line."""
    text = expanded.lstrip(" \t").lstrip("@-+ \t")
    return text if text.strip(" \t") else ""


def _matches(folder: str, pattern: str) -> list[str]:
    """What the glob ``pattern`` (relative: to ``folder``) matches now, as written; at most
    `_MAX_RECIPES` of them."""
    import glob

    if not any(c in pattern for c in "*?["):
        return [pattern] if os.path.lexists(os.path.join(folder, pattern)) else []
    found = glob.iglob(pattern, root_dir=folder) if not os.path.isabs(pattern) else \
        glob.iglob(pattern)
    return list(itertools.islice(found, _MAX_RECIPES))


def _text_function(name: str, args: list[str], folder: str) -> str:
    """What make's text and file-name functions give for their expanded ``args``."""
    if name == "wildcard":  # what the patterns match now, as make 4.3 gives them: sorted
        return " ".join(sorted(match for pattern in " ".join(args).split()
                               for match in _matches(folder, pattern)))
    whole = ",".join(args)  # a one-argument function's commas are its text's
    words = whole.split()
    if name == "strip":
        return " ".join(words)
    if name in ("abspath", "realpath"):
        return " ".join(os.path.normpath(os.path.join(folder, w)) for w in words)
    if name == "sort":
        return " ".join(sorted(set(words)))
    if name == "notdir":
        return " ".join(os.path.basename(w) for w in words)
    if name == "dir":
        return " ".join((os.path.dirname(w) or ".") + "/" for w in words)
    if name == "suffix":
        return " ".join(os.path.splitext(w)[1] for w in words if os.path.splitext(w)[1])
    if name == "basename":
        return " ".join(os.path.splitext(w)[0] for w in words)
    if name in ("firstword", "lastword"):
        return (words[0] if name == "firstword" else words[-1]) if words else ""
    if name == "words":
        return str(len(words))
    if name == "value":
        return whole
    if len(args) < 2:
        return ""
    first, text = args[0], ",".join(args[1:])
    if name == "addprefix":
        return " ".join(first + w for w in text.split())
    if name == "addsuffix":
        return " ".join(w + first for w in text.split())
    if name in ("filter", "filter-out"):
        patterns = first.split()
        keep = name == "filter"
        return " ".join(w for w in text.split()
                        if any(_patsubst(p, "", w) != w or p == w for p in patterns) is keep)
    if name == "findstring":
        return first if first in text else ""
    if name == "word":
        n = int(first) if first.strip().isdigit() else 0
        return text.split()[n - 1] if 0 < n <= len(text.split()) else ""
    if name == "join":
        a, b = first.split(), text.split()
        return " ".join(x + y for x, y in itertools.zip_longest(a, b, fillvalue=""))
    if len(args) < 3:
        return ""
    if name == "subst":
        return ",".join(args[2:]).replace(args[0], args[1]) if args[0] else ",".join(args[2:])
    if name == "patsubst":
        return " ".join(_patsubst(args[0], args[1], w) for w in ",".join(args[2:]).split())
    if name == "wordlist":
        low, high = (int(a) if a.strip().isdigit() else 0 for a in args[:2])
        return " ".join(",".join(args[2:]).split()[max(low, 1) - 1:high])
    return ""


def _patsubst(pattern: str, replacement: str, word: str) -> str:
    """``word`` as ``$(patsubst PATTERN,REPLACEMENT,WORD)`` gives it (``%`` the stem; the
    first ``%`` of REPLACEMENT only)."""
    if "%" not in pattern:
        return replacement if word == pattern else word
    head, _, tail = pattern.partition("%")
    if not (word.startswith(head) and word.endswith(tail) and len(word) >= len(head + tail)):
        return word
    stem = word[len(head):len(word) - len(tail)]
    before, percent, after = replacement.partition("%")
    return before + stem + after if percent else replacement


def _without_comment(line: str) -> str:
    """``line`` up to a ``#`` that starts a comment (not ``\\#``)."""
    for k, c in enumerate(line):
        if c == "#" and (k == 0 or line[k - 1] != "\\"):
            return line[:k]
    return line


def _assignment(line: str) -> tuple[str, str, str] | None:
    """(name, operator, value) of a variable assignment line; None for a rule or another
    line. ``a: b`` is a rule, ``a := b`` an assignment: the first ``:`` or ``=`` decides."""
    m = _ASSIGNMENT.match(line)
    if m is None:
        return None
    colon, equals = line.find(":"), line.find("=")
    if 0 <= colon < equals and not line[colon:].startswith((":=", "::=", ":::=")):
        return None  # `target: VAR = value` (a target's own variable) or a rule
    return m.group(1), m.group(2), m.group(3)


def _rule_parts(line: str) -> tuple[str, str, str | None] | None:
    """(targets, prerequisites, the recipe after ``;``) of a rule line; None for another."""
    depth, k = 0, 0
    while k < len(line):
        c = line[k]
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == ":" and depth == 0:
            rest = line[k + 1:].lstrip(":")
            prerequisites, semicolon, inline = rest.partition(";")
            if "=" in prerequisites.split("|")[0] and not semicolon:
                return line[:k], rest, None  # a target-specific variable (`_assignment`)
            return line[:k], prerequisites, inline if semicolon else None
        k += 1
    return None


def _closing(text: str, opening: int) -> int:
    """Where the bracket at ``opening`` closes (nested pairs counted); -1 when it does not."""
    pair = {"(": ")", "{": "}"}[text[opening]]
    depth = 0
    for k in range(opening, len(text)):
        if text[k] == text[opening]:
            depth += 1
        elif text[k] == pair:
            depth -= 1
            if depth == 0:
                return k
    return -1


def _split_args(text: str) -> list[str]:
    """A function's arguments: split at top-level commas."""
    args, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:k])
            start = k + 1
    args.append(text[start:])
    return args
