"""The command lines a Python program runs, for the agent tool hook.

``runpodctl exec python FILE`` runs FILE's program on a pod: what that program hands to the
pod's shell or starts as a process (``os.system("rm -rf /workspace/runs")``,
``subprocess.run(["poweroff"])``) is judged as a command line run there, as ssh's remote
command is. The program is read with `ast`, never run.

Invariants: a call of a process-starting function (`_RUNS`, by its last name: ``os.system``,
``subprocess.run``, ``check_call`` imported bare) with a literal command yields that command (a
string as written, an argument list joined as the shell would quote it; an exec-like call,
`_exec_words`, the program its path names then its arguments, its environment none of them);
with a command it cannot read (a variable, a call) every string literal of the program is taken
as a command it may run, computed (so what the program holds is judged, never trusted to be
harmless); an f-string's fixed parts stand with ``$X`` for each value. A process-starting
function named but not called here (``f = os.system``, ``map(os.system, ...)``, ``from os
import system as s``, ``getattr(os, "system")``) reads as a computed command, and so does
``exec``/``eval`` of anything but a string literal (a literal is read as a program of its own).
A program this Python cannot parse (newer syntax: the box's Python may be 3.12+; nested too
deep for `ast`) is read by its string literals alone, every one a computed command (fail
closed). Never raises; None only for a program whose strings cannot be read either.
"""

from __future__ import annotations

import ast
import functools
import re
import shlex

__all__ = ["parse_program", "python_commands"]

# the functions that hand a command to a shell or start a process: os.system, os.popen,
# subprocess.run/call/check_call/check_output/Popen/getoutput/getstatusoutput, os.exec*/spawn*
# and pty.spawn (Python 3.11 library reference, os and subprocess)
_RUNS = {"system", "popen", "Popen", "run", "call", "check_call", "check_output", "getoutput",
         "getstatusoutput", "spawn"}
_RUN_PREFIXES = ("exec", "spawn", "posix_spawn")


def python_commands(program: str, literal_only: bool = False
                    ) -> list[tuple[str, bool]] | None:
    """The command lines ``program`` may run, each with whether it is computed; None when it
    cannot be read (nested too deep for the parser). ``literal_only`` (a local script's,
    long and full of prose): only the command lines written out, none for a computed one
    (else any string of the program may be it) or a program that does not parse."""
    tree = parse_program(program)
    if tree is None and literal_only:
        return []
    if tree is None:
        # the box's Python may read what this one cannot (`type T = int`, PEP 701 f-strings)
        return [(text, True) for m in _STRING_LITERAL.finditer(program)
                if (text := m.group(m.lastindex or 0))]
    found: list[tuple[str, bool]] = []
    unread = False
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if _names_a_runner(node) and id(node) not in called:
            unread = True  # `f = os.system`, `from os import system as s`, getattr(os, ...)
            continue
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in ("exec", "eval"):
            code = node.args[0] if node.args else None
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                inner = python_commands(code.value)
                found += inner if inner is not None else []
            else:
                unread = True
            continue
        if not _starts_a_process(node.func):
            continue
        for arg in _command_arguments(node):
            line = _literal_command(arg)
            if line is None:
                unread = True
            else:
                found.append(line)
    if unread and not literal_only:
        # the command is computed (`os.system(CMD)`): any string of the program may be it
        found += [(s.value, True) for s in ast.walk(tree)
                  if isinstance(s, ast.Constant) and isinstance(s.value, str)]
    return found


@functools.lru_cache(maxsize=4)
def parse_program(program: str) -> ast.Module | None:
    """``program`` parsed, once per text (the hook reads one program for what it runs and for
    what it deletes, `python_deletes`); None when this Python cannot parse it. The tree is
    shared: never changed by its readers."""
    try:
        return ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# a string literal's text, quotes left out (triple-quoted first); for a program `ast` cannot read
_DQ3, _SQ3 = '"' * 3, "'" * 3
_STRING_LITERAL = re.compile("|".join([
    _DQ3 + r'((?:[^"\\]|\\.|"(?!""))*)' + _DQ3,
    _SQ3 + r"((?:[^'\\]|\\.|'(?!''))*)" + _SQ3,
    r'"((?:[^"\\\n]|\\.)*)"',
    r"'((?:[^'\\\n]|\\.)*)'",
]))


def _names_a_runner(node: ast.AST) -> bool:
    """``node`` names a process-starting function: ``os.system``, ``system`` (also as an
    imported name) or the string ``"system"`` (``getattr(os, "system")``)."""
    if isinstance(node, ast.Attribute | ast.Name):
        return _starts_a_process(node)
    if isinstance(node, ast.alias):
        return node.name in _RUNS or node.name.startswith(_RUN_PREFIXES)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in _RUNS - {"run", "call"} or (
            node.value.startswith(_RUN_PREFIXES) and node.value.isidentifier()
            and node.value not in ("exec", "execute"))
    return False


def _starts_a_process(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else ""
    return name in _RUNS or name.startswith(_RUN_PREFIXES)


def _command_arguments(call: ast.Call) -> list[ast.expr]:
    """The argument that names the command: the first (``args=`` as a keyword); for
    ``os.exec*``/``spawn*``/``posix_spawn*`` the program its path names, then its argument
    list after argv[0] (`_exec_words`)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    form = _EXEC_FORM.match(name)
    if form is not None:
        return [_exec_words(call, form)]
    if name.startswith(_RUN_PREFIXES) and name not in _RUNS:
        # another name of those prefixes (`cursor.execute(sql)`): its words after the first
        return [ast.List(elts=call.args[1:], ctx=ast.Load())]
    return call.args[:1] or [k.value for k in call.keywords if k.arg == "args"]


# os.execl/le/lp/lpe/v/ve/vp/vpe, os.spawn* (the same letters, a mode first), os.posix_spawn
# and posix_spawnp (path, argv, env) (Python 3.11 library reference, os: Process Management)
_EXEC_FORM = re.compile(r"^(?:(exec|spawn)([lv])p?(e?)|posix_spawnp?)$")


def _exec_words(call: ast.Call, form: re.Match[str]) -> ast.expr:
    """The command an exec-like call runs, as one list: the program its path names (argv[0]
    is only what that program is told its name is: ``os.execv("/bin/rm", ["x", "-rf",
    d])`` runs rm), then the arguments after argv[0]; the environment of an ``e`` form
    (``os.execvpe(file, args, env)``, ``os.execle(path, arg0, ..., env)``) and
    ``posix_spawn``'s (path, argv, env) is no word of it. An argument list that is not
    written out (``os.execv(path, args)``) is returned as it stands: computed."""
    family, letter, env = form.groups()
    args = list(call.args)
    if family == "spawn":
        args = args[1:]  # os.spawnv(mode, path, args)
    if not args:
        return ast.List(elts=[], ctx=ast.Load())
    path, rest = args[0], args[1:]
    if family is None or letter == "v":  # posix_spawn(path, argv, env), execv(path, args)
        argv = rest[0] if rest else next(
            (k.value for k in call.keywords if k.arg == "argv"), None)
        if argv is None:
            return ast.List(elts=[path], ctx=ast.Load())
        if not isinstance(argv, ast.List | ast.Tuple):
            return argv
        words = argv.elts[1:]
    else:  # execl(path, arg0, arg1, ...), execle(path, arg0, ..., env)
        words = (rest[:-1] if env else rest)[1:]
    return ast.List(elts=[path, *words], ctx=ast.Load())


def _literal_command(arg: ast.expr) -> tuple[str, bool] | None:
    """(the command line, computed) of a literal command argument: a string, a list or tuple
    of strings (joined, quoted as a shell reads them), an f-string (``$X`` for each value,
    computed); None for anything else."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value, False
    if isinstance(arg, ast.JoinedStr):
        return _fstring(arg), True
    if isinstance(arg, ast.List | ast.Tuple):
        words: list[str] = []
        computed = False
        for element in arg.elts:
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                words.append(element.value)
            elif isinstance(element, ast.JoinedStr):
                words.append(_fstring(element))
                computed = True
            elif _names_this_python(element):  # [sys.executable, "-c", PROGRAM]
                words.append("python3")
            else:
                words.append("$X")  # a word computed when it runs
                computed = True
        return " ".join(w if w.startswith("$") else shlex.quote(w) for w in words), computed
    return None


def _names_this_python(expr: ast.expr) -> bool:
    """``sys.executable`` (``import sys`` assumed): the running Python, whose ``-c`` program
    is read as any Python's."""
    return isinstance(expr, ast.Attribute) and expr.attr == "executable" and \
        isinstance(expr.value, ast.Name) and expr.value.id == "sys"


def _fstring(arg: ast.JoinedStr) -> str:
    return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str)
                   else "$X" for v in arg.values)
