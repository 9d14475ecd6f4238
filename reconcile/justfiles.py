"""What ``just RECIPE`` runs: the recipe's lines and its dependencies', read from the justfile
as just reads it (for the agent hook, which judges each line as a command the agent typed).

Read (the just manual, just 1.x: "Recipes", "Variables and Substitution", "Dependencies",
"Recipe Parameters", "Shebang Recipes", "Functions"): ``NAME := EXPR`` (``export``), recipe
headers ``[@]NAME PARAM PARAM='default' +REST: DEP (DEP ARG) && AFTER``, their indented body,
``alias a := b``, ``import 'file'`` (read too), attributes (``[no-cd]``, ``[default]``).
Expressions: string literals (``'raw'``, ``"escaped"``), ``+``, ``/`` (a path join),
parentheses, ``if A == B { X } else { Y }`` (``!=``), variables and parameters, and the
functions ``env_var``, ``env_var_or_default``, ``env``, ``justfile_directory``,
``justfile``, ``invocation_directory``, ``home_directory``, ``join``, ``absolute_path``,
``parent_directory``, ``file_name``, ``file_stem``, ``without_extension``, ``clean``,
``uppercase``, ``lowercase``, ``trim``, ``replace``; a backtick (a command run when just
evaluates it) stays a backtick, a command substitution to the shell, a function not read a computed
``$(computed)``. Recipe lines: ``{{EXPR}}`` interpolated (``{{{{`` is ``{{``), the prefixes
``@`` and ``-`` dropped. A shebang recipe's body is one script (``#!/usr/bin/env bash``: a
shell's; ``#!/usr/bin/env python3``, ``perl``: that language's program, `JustLine.interpreter`).

The lines are the ones ``just --dry-run RECIPE ARGS`` prints (checked against just 1.59 in
the tests). Invariants: reading never runs anything; the work is bounded (`_MAX_LINES`,
`_MAX_IMPORTS`, `_MAX_DEPTH`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["JustRun", "JustLine", "just_run", "just_lines", "find_justfile"]

_MAX_LINES = 500
_MAX_IMPORTS = 8
_MAX_DEPTH = 30
_NAMES = ("justfile", "Justfile", "JUSTFILE", ".justfile")
_COMPUTED = "$(computed)"


@dataclass
class JustRun:
    """What a ``just`` command line asks for: its justfile (``-f``), working folder
    (``-d``), variable overrides (``NAME=VALUE``, ``--set NAME VALUE``), the recipe and
    argument words; ``runs`` false for ``--dry-run``, ``--list`` and the like."""

    file: str | None = None
    folder: str | None = None
    overrides: dict[str, str] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)
    runs: bool = True


_VALUED = {"-f", "--justfile", "-d", "--working-directory", "--shell", "--shell-arg",
           "--dotenv-filename", "--dotenv-path", "-E", "--color", "--command-color",
           "--list-heading", "--list-prefix", "--chooser", "--timestamp-format", "--unstable"}
_NO_RUN = {"-n", "--dry-run", "-l", "--list", "--summary", "--show", "-s", "--evaluate",
           "--variables", "--dump", "--fmt", "--init", "--edit", "-e", "--completions",
           "-h", "--help", "-V", "--version", "--groups", "--changelog", "--man", "--request"}


def just_run(args: list[str]) -> JustRun:
    """Read ``just ARGS``."""
    run = JustRun()
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            run.words += args[i:]
            break
        if word.startswith("-") and not run.words:
            option, eq, value = word.partition("=")
            if option in _NO_RUN or word in _NO_RUN:
                run.runs = False
            if option == "--set" and i + 1 < len(args):
                run.overrides[args[i]] = args[i + 1]
                i += 2
                continue
            if not eq and option in _VALUED:
                value, i = (args[i] if i < len(args) else ""), i + 1
            if option in ("-f", "--justfile"):
                run.file = value
            elif option in ("-d", "--working-directory"):
                run.folder = value
            elif option in ("-c", "--command"):
                run.runs = False  # (runs the words after it as a command: judged as typed)
            continue
        name, eq, value = word.partition("=")
        if eq and not run.words and re.fullmatch(r"[A-Za-z_][\w-]*", name):
            run.overrides[name] = value
        else:
            run.words.append(word)
    return run


def find_justfile(start: str) -> str | None:
    """The justfile just uses from ``start``: the nearest folder up holding one."""
    folder = os.path.abspath(start)
    while True:
        for name in _NAMES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


@dataclass
class JustLine:
    """One command line a recipe runs (or a shebang recipe's whole script: ``script``),
    where it stands (justfile, 1-based line) and the folder it runs in."""

    text: str
    file: str
    line: int
    folder: str
    script: bool = False
    # a shebang recipe's interpreter where it is not a shell's (``python3``, ``perl``): its
    # body is that language's program
    interpreter: str | None = None


@dataclass
class _Recipe:
    name: str
    params: list[tuple[str, str | None, bool]]  # (name, default expression, variadic)
    before: list[tuple[str, list[str]]]  # (dependency, argument expressions)
    after: list[tuple[str, list[str]]]
    body: list[tuple[str, int]]  # (line without its indent, line number)
    file: str
    line: int
    no_cd: bool = False


class _Justfile:
    def __init__(self, path: str, env: Mapping[str, str], invoked: str) -> None:
        self.path = path
        self.env = env
        self.invoked = invoked
        self.variables: dict[str, str] = {}  # name -> expression
        self.recipes: dict[str, _Recipe] = {}
        self.aliases: dict[str, str] = {}
        self.first: str | None = None
        self.default: str | None = None
        self.imports = 0

    def read(self, text: str, path: str, read_file: Callable[[str], str | None]) -> None:
        lines = text.replace("\r\n", "\n").split("\n")
        attributes: list[str] = []
        k = 0
        while k < len(lines):
            raw = lines[k]
            k += 1
            stripped = raw.strip()
            if not stripped or stripped.startswith("#") or raw[:1] in (" ", "\t"):
                continue
            if stripped.startswith("["):
                attributes += [a.strip() for a in stripped.strip("[]").split(",")]
                continue
            m = re.match(r"(?:import|mod)\??\s+(?:[A-Za-z_][\w-]*\s+)?(['\"])(.*?)\1",
                         stripped)
            if m is not None and stripped.startswith("import"):
                self._import(m.group(2), path, read_file)
                continue
            m = re.match(r"alias\s+([\w-]+)\s*:=\s*([\w-]+)", stripped)
            if m is not None:
                self.aliases[m.group(1)] = m.group(2)
                continue
            if stripped.startswith("set "):
                continue
            m = re.match(r"(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(.*)$", stripped)
            if m is not None:
                self.variables.setdefault(m.group(1), m.group(2))
                continue
            m = re.match(r"@?([A-Za-z_][\w-]*)([^:]*?):(?!=)(.*)$", stripped)
            if m is None:
                continue
            body: list[tuple[str, int]] = []
            indent: str | None = None
            while k < len(lines) and (lines[k][:1] in (" ", "\t") or not lines[k].strip()):
                line = lines[k]
                k += 1
                if not line.strip():
                    body.append(("", k))
                    continue
                if indent is None:
                    indent = line[:len(line) - len(line.lstrip(" \t"))]
                body.append((line[len(indent):] if line.startswith(indent) else
                             line.lstrip(" \t"), k))
            while body and not body[-1][0]:
                body.pop()
            before, after = _dependencies(m.group(3))
            recipe = _Recipe(m.group(1), _parameters(m.group(2)), before, after, body, path,
                             k - len(body), "no-cd" in attributes)
            self.recipes.setdefault(recipe.name, recipe)
            if self.first is None and not recipe.name.startswith("_") and \
                    "private" not in attributes:
                self.first = recipe.name
            if "default" in attributes and self.default is None:
                self.default = recipe.name
            attributes = []

    def _import(self, name: str, path: str, read_file: Callable[[str], str | None]) -> None:
        if self.imports >= _MAX_IMPORTS:
            return
        self.imports += 1
        target = name if os.path.isabs(name) else os.path.join(os.path.dirname(path), name)
        text = read_file(target)
        if text is not None:
            self.read(text, target, read_file)

    # expressions -----------------------------------------------------------------------
    def value(self, expression: str, scope: Mapping[str, str], depth: int = 0) -> str:
        """The string ``expression`` evaluates to (`_COMPUTED` in what cannot be told)."""
        if depth > _MAX_DEPTH:
            return _COMPUTED
        try:
            tokens = _tokens(expression)
        except ValueError:
            return _COMPUTED
        parser = _Parser(tokens, self, scope, depth)
        try:
            got = parser.expression()
        except (IndexError, ValueError):
            return _COMPUTED
        return got

    def variable(self, name: str, scope: Mapping[str, str], depth: int) -> str:
        if name in scope:
            return scope[name]
        if name in self.variables:
            return self.value(self.variables[name], scope, depth + 1)
        return _COMPUTED


class _Parser:
    """A small evaluator of just's expressions over `_tokens`."""

    def __init__(self, tokens: list[tuple[str, str]], just: _Justfile,
                 scope: Mapping[str, str], depth: int) -> None:
        self.tokens = tokens
        self.at = 0
        self.just = just
        self.scope = scope
        self.depth = depth

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.at += 1
        return token

    def expression(self) -> str:
        if self.peek() == ("name", "if"):
            self.take()
            left = self.expression()
            op = self.take()[1]
            right = self.expression()
            self.expect("{")
            yes = self.expression()
            self.expect("}")
            if self.peek() != ("name", "else"):
                raise ValueError("if without else")
            self.take()
            if self.peek() == ("name", "if"):
                no = self.expression()
            else:
                self.expect("{")
                no = self.expression()
                self.expect("}")
            if _COMPUTED in (left, right) or op == "=~":
                return _COMPUTED
            return yes if (left == right) == (op == "==") else no
        value = self.operand()
        while self.peek()[0] in ("+", "/"):
            op = self.take()[0]
            right = self.operand()
            value = value + right if op == "+" else value.rstrip("/") + "/" + right
        return value

    def expect(self, kind: str) -> None:
        if self.take()[0] != kind:
            raise ValueError(kind)

    def operand(self) -> str:
        kind, text = self.take()
        if kind == "string":
            return text
        if kind == "backtick":
            return "`" + text + "`"  # a command just runs to evaluate it: the shell's, here
        if kind == "(":
            value = self.expression()
            self.expect(")")
            return value
        if kind == "/":
            return "/" + self.operand()
        if kind == "name":
            if self.peek()[0] == "(":
                self.take()
                args: list[str] = []
                while self.peek()[0] != ")":
                    args.append(self.expression())
                    if self.peek()[0] == ",":
                        self.take()
                self.take()
                return _function(text, args, self.just)
            return self.just.variable(text, self.scope, self.depth)
        raise ValueError(kind)


_TOKEN = re.compile(r"""\s*(?:(?P<string>'''.*?'''|\"\"\".*?\"\"\"|'[^']*'|"(?:\\.|[^"\\])*")
    |(?P<backtick>```.*?```|`[^`]*`)|(?P<name>[A-Za-z_][\w-]*)|(?P<op>==|!=|=~|[+/(){},]))""",
                    re.S | re.X)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "\n": ""}


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        if not text[at:].strip():
            break
        m = _TOKEN.match(text, at)
        if m is None or m.end() == at:
            raise ValueError(text[at:])
        at = m.end()
        if m.group("string") is not None:
            s = m.group("string")
            quote = 3 if s[:3] in ("'''", '"""') else 1
            body = s[quote:-quote]
            if s[0] == '"':
                body = re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group(1)), body,
                              flags=re.S)
            tokens.append(("string", body))
        elif m.group("backtick") is not None:
            s = m.group("backtick")
            quote = 3 if s.startswith("```") else 1
            tokens.append(("backtick", s[quote:-quote].strip()))
        elif m.group("name") is not None:
            tokens.append(("name", m.group("name")))
        else:
            tokens.append((m.group("op"), m.group("op")))
    return tokens


def _function(name: str, args: list[str], just: _Justfile) -> str:
    if _COMPUTED in args:
        return _COMPUTED
    home = os.path.dirname(just.path)
    if name in ("env_var", "env") and args:
        got = just.env.get(args[0])
        return got if got is not None else (args[1] if len(args) > 1 else _COMPUTED)
    if name == "env_var_or_default" and len(args) == 2:
        return just.env.get(args[0], args[1])
    if name in ("justfile_directory", "source_directory"):
        return home
    if name in ("justfile", "source_file"):
        return just.path
    if name == "invocation_directory":
        return just.invoked
    if name == "home_directory":
        return just.env.get("HOME", "~")
    if name == "join" and args:
        return os.path.join(*args)
    if name == "absolute_path" and args:
        return os.path.normpath(os.path.join(home, args[0]))
    if name == "parent_directory" and args:
        return os.path.dirname(args[0].rstrip("/")) or ""
    if name == "file_name" and args:
        return os.path.basename(args[0])
    if name == "file_stem" and args:
        return os.path.splitext(os.path.basename(args[0]))[0]
    if name == "without_extension" and args:
        return os.path.splitext(args[0])[0]
    if name == "clean" and args:
        return os.path.normpath(args[0])
    if name == "uppercase" and args:
        return args[0].upper()
    if name == "lowercase" and args:
        return args[0].lower()
    if name == "trim" and args:
        return args[0].strip()
    if name == "replace" and len(args) == 3:
        return args[0].replace(args[1], args[2])
    return _COMPUTED


def _parameters(text: str) -> list[tuple[str, str | None, bool]]:
    """A recipe header's parameters: ``name``, ``name='default'``, ``+rest``, ``*rest``,
    ``$name`` (exported)."""
    params: list[tuple[str, str | None, bool]] = []
    for m in re.finditer(r"([+*]?)\$?([A-Za-z_][\w-]*)(?:=((?:'[^']*'|\"(?:\\.|[^\"\\])*\"|"
                         r"`[^`]*`|\([^)]*\)|[^\s])+))?", text):
        default = m.group(3)
        if m.group(1) == "*" and default is None:
            default = "''"
        params.append((m.group(2), default, bool(m.group(1))))
    return params


def _dependencies(text: str) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """A recipe header's dependencies, before and after ``&&``: ``dep`` or ``(dep ARG...)``."""
    before, _, after = text.partition("&&")

    def read(part: str) -> list[tuple[str, list[str]]]:
        found: list[tuple[str, list[str]]] = []
        for m in re.finditer(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)|([A-Za-z_][\w-]*)", part):
            if m.group(2) is not None:
                found.append((m.group(2), []))
                continue
            inner = m.group(1).strip()
            name, _, rest = inner.partition(" ")
            found.append((name, _split_arguments(rest)))
        return found

    return read(before.split("#", 1)[0]), read(after.split("#", 1)[0])


def _split_arguments(text: str) -> list[str]:
    """A dependency's argument expressions, split at blanks outside quotes and brackets."""
    args, depth, quote, start = [], 0, "", 0
    for k, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c.isspace() and depth == 0:
            if text[start:k].strip():
                args.append(text[start:k].strip())
            start = k + 1
    if text[start:].strip():
        args.append(text[start:].strip())
    return args


def just_lines(run: JustRun, read_file: Callable[[str], str | None], path: str, invoked: str,
               env: Mapping[str, str]) -> list[JustLine] | None:
    """The lines ``run`` runs from the justfile at ``path``, dependencies first (each recipe
    once for the same arguments); None when the justfile cannot be read or the recipe is not
    there (just refuses: nothing runs)."""
    text = read_file(path)
    if text is None:
        return None
    just = _Justfile(path, env, invoked)
    just.read(text, path, read_file)
    overrides = {name: value for name, value in run.overrides.items()}
    for name, value in overrides.items():
        just.variables[name] = _quoted(value)
    folder = run.folder or os.path.dirname(path)
    words = list(run.words)
    out: list[JustLine] = []
    done: set[tuple[str, tuple[str, ...]]] = set()
    if not words:
        first = just.default or just.first
        if first is None:
            return None
        words = [first]
    while words:
        name = just.aliases.get(words[0], words[0])
        recipe = just.recipes.get(name)
        if recipe is None:
            return None  # just: "Justfile does not contain recipe": it runs none
        words = words[1:]
        variadic = any(v for _, _, v in recipe.params)
        taken = len(words) if variadic else min(len(recipe.params), len(words))
        args, words = words[:taken], words[taken:]
        if not _run_recipe(just, recipe, [_quoted(a) for a in args], out, done, folder,
                           invoked, 0):
            return out
    return out


def _run_recipe(just: _Justfile, recipe: _Recipe, args: list[str], out: list[JustLine],
                done: set[tuple[str, tuple[str, ...]]], folder: str, invoked: str,
                depth: int, again: bool = False) -> bool:
    """Add the lines ``recipe`` runs with ``args`` (expressions) to ``out``: its
    dependencies', its own, then those after ``&&``. A recipe already run with the same
    arguments is not run again, but for one after ``&&`` (``again``: just 1.59 runs it even
    where it ran before, as a dependency)."""
    if depth > _MAX_DEPTH or len(out) >= _MAX_LINES:
        return False
    scope: dict[str, str] = {}
    values = [just.value(a, scope) for a in args]
    key = (recipe.name, tuple(values))
    if key in done and not again:
        return True
    done.add(key)
    for k, (name, default, variadic) in enumerate(recipe.params):
        if variadic:
            scope[name] = " ".join(values[k:]) if values[k:] else (
                just.value(default, scope) if default else "")
        elif k < len(values):
            scope[name] = values[k]
        else:
            scope[name] = just.value(default, scope) if default else _COMPUTED
    for name, dep_args in recipe.before:
        dep = just.recipes.get(just.aliases.get(name, name))
        if dep is not None:
            _run_recipe(just, dep, [_quoted(just.value(a, scope)) for a in dep_args], out,
                        done, folder, invoked, depth + 1)
    where = invoked if recipe.no_cd else folder
    lines = [(_interpolate(just, text, scope), line) for text, line in recipe.body]
    if lines and lines[0][0].startswith("#!"):
        words = lines[0][0][2:].split()
        if words and os.path.basename(words[0]) == "env":
            words = [w for w in words[1:] if not w.startswith("-")]
        interpreter = os.path.basename(words[0]) if words else "sh"
        shell = re.fullmatch(r"(ba|z|da|k)?sh", interpreter) is not None
        # (a shell's script keeps its `#!`, a comment to it; another language gets its body)
        script = "\n".join(text for text, _ in (lines if shell else lines[1:]))
        out.append(JustLine(script, recipe.file, lines[0][1], where, script=True,
                            interpreter=None if shell else interpreter))
    else:
        for text, line in lines:
            text = text.lstrip("@-")
            if text.strip() and not text.lstrip().startswith("#"):
                out.append(JustLine(text, recipe.file, line, where))
    for name, dep_args in recipe.after:
        dep = just.recipes.get(just.aliases.get(name, name))
        if dep is not None:
            _run_recipe(just, dep, [_quoted(just.value(a, scope)) for a in dep_args], out,
                        done, folder, invoked, depth + 1, again=True)
    return True


def _interpolate(just: _Justfile, text: str, scope: Mapping[str, str]) -> str:
    out: list[str] = []
    at = 0
    while True:
        start = text.find("{{", at)
        if start < 0:
            out.append(text[at:])
            return "".join(out)
        if text.startswith("{{{{", start):
            out.append(text[at:start] + "{{")
            at = start + 4
            continue
        end = text.find("}}", start + 2)
        if end < 0:
            out.append(text[at:])
            return "".join(out)
        out.append(text[at:start])
        out.append(just.value(text[start + 2:end], scope))
        at = end + 2


def _quoted(value: str) -> str:
    """``value`` as a just string literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
