"""Markdown's fenced blocks: code, whose numbers claim nothing, or printed output, read as a log.

A README fences two kinds of text (```` ``` ```` or ``~~~``). Code: a Python snippet, the
command that trained the model (``python train.py --lr 0.001 --epochs 300``): its numbers are
settings, and its anchors (``--lr``, ``accuracy = evaluate(...)``) name no result, so nothing
in it is judged (`without_code`). Printed output: an eval log, ``key = value`` metrics, COCO's
``summarize()`` lines, sklearn's classification report, ``Test set: Average loss: 0.0204,
Accuracy: 9934/10000 (99.34%)``: it is read as the same text is read in a ``.txt`` log
(`doc_readers.is_log`): a unit a line (`fenced_unit`), a classification report or a printed
frame a table, and its lines judged together with the page's other records, named by the
headings over the block (`log_units.headed`).

Which is which, per block and then per line:

* a block whose info string names a programming or configuration language (``python``,
  ``yaml``, ``cpp``...), or one holding a Python ``import``, ``def`` or ``class`` line, is code
  throughout;
* any other block (none, ``text``, ``console``, ``bash``, ``shell``, ``json``...) is printed
  output less its command lines: a prompt (``$``, ``>>>``, ``In [1]:``), a command
  (``python``, ``pip``, ``torchrun``, ``CUDA_VISIBLE_DEVICES=0 python``, ``./run.sh``), a long
  option (``--lr 0.001``), a Python statement (``x = f(...)``, ``f(...)``, ``for ... in ...:``).
  A shell block is mostly such lines, and a console session mixes the two; a ``shell`` block
  of COCO's summarize() lines, as READMEs label them, is output.

Each block is classified once per segment (`segment._cache`); a document without a fence costs
the one substring search `doc_readers.fences` makes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from labledger.reconcile.anchors import Hit
from labledger.reconcile.doc_readers import (
    Fence,
    Segment,
    Sentence,
    Table,
    aligned_table,
    fence_at,
    fences,
    line_at,
)

__all__ = ["code_spans", "fenced_unit", "is_code_line", "is_output", "output_lines",
           "without_code"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Info strings of programs and configuration (the first word, lower-cased: "```python title=x",
# "```{r}", "```.yaml"): such a block is code whatever it holds. A shell or console block is
# not among them: READMEs paste commands with what they printed, and label a log "shell".
_CODE_LANGUAGES = _words("""
python py python3 py3 ipython ipython3 pycon javascript js jsx typescript ts tsx java kotlin kt
scala groovy c h cpp c++ cc cxx hpp cuda cu objc objective-c swift go golang rust rs ruby rb php
perl pl lua r julia jl matlab octave haskell hs ocaml fsharp csharp cs c# dart elixir erlang
clojure lisp scheme sql graphql proto protobuf yaml yml toml ini cfg conf properties dockerfile
docker makefile cmake nix hcl terraform html xml svg css scss vue svelte latex tex bibtex bib
diff patch mermaid dot powershell ps1 bat batch vim markdown md rst
""")

# A block with one of these lines is a program, though its language goes unnamed ("class 3:
# 0.91" is a printed class, no class statement: its colon does not end the line)
_PROGRAM_LINE = re.compile(r"^[ \t]*(?:import[ \t]+[\w.]+[ \t]*(?:$|,|[ \t]as[ \t])"
                           r"|from[ \t]+[\w.]+[ \t]+import[ \t]|def[ \t]+\w+[ \t]*\("
                           r"|class[ \t]+[A-Za-z_]\w*[ \t]*(?:\(|:[ \t]*$))", re.M)

# A line of code in a block of printed output (matched at the line's start; see the module's
# docstring). A command word must be followed by an argument that is no number and no ":" or
# "=" ("python: 3.9", "pip 21.0" are printed); a statement keyword likewise ("return: 12.5" is a
# printed key); a VAR=value prefix by a command, not by another pair ("PSNR=31.42 SSIM=0.91").
_COMMAND_WORDS = (r"python[\d.]*|pip[\d.]*|conda|torchrun|accelerate|deepspeed|mpirun|srun"
                  r"|sbatch|bash|sh|zsh|cd|git|export|wget|curl|mkdir|docker|nohup|sudo|uv"
                  r"|poetry|jupyter|tensorboard|huggingface-cli|yolo")
_ARGUMENT = r"(?:[ \t]+[^\s:=\d.]|[ \t]*$)"
_CODE_LINE = re.compile(
    r"[ \t]*(?:"
    r"(?:\$|>>>|\.\.\.)(?:[ \t]|$)|In[ \t]*\[\d*\]:"                       # a prompt
    r"|(?:" + _COMMAND_WORDS + r")" + _ARGUMENT +                           # a command
    r"|(?:\.{0,2}/|~/)?[\w./-]+\.(?:py|sh)(?:[ \t]|$)"                     # a script by path
    r"|[A-Z_][A-Z0-9_]*=\S*[ \t]+(?![^\s=]*=)[a-z./~$]"                    # VAR=value command
    r"|(?:for|while|with|if|elif)[ \t].*:[ \t]*$|(?:else|try|finally)[ \t]*:[ \t]*$"
    r"|(?:return|assert|raise|except)" + _ARGUMENT +                        # a statement
    r"|@[A-Za-z_][\w.]*[ \t]*(?:\(|$)"                                      # a decorator
    r"|[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?[ \t]*[-+*/]?=[ \t]*[A-Za-z_][\w.]*\("  # x = f(
    r"|[A-Za-z_][\w.]*\(.*[()][ \t]*[,;:]?[ \t]*$"                           # f(...) alone
    r")"
    r"|.*?(?<![\w-])--[A-Za-z][\w-]*")                                      # a long option


def is_output(segment: Segment, fence: Fence) -> bool:
    """Whether ``fence`` holds printed output (else code); decided once per block."""
    cache = segment._cache.setdefault("fence_output", {})
    assert isinstance(cache, dict)
    got = cache.get(fence.start)
    if got is None:
        got = cache[fence.start] = _is_output(segment.text, fence)
    return bool(got)


def _is_output(text: str, fence: Fence) -> bool:
    language = fence.info.split(None, 1)[0].strip("{}.").lower() if fence.info.strip() else ""
    if language in _CODE_LANGUAGES:
        return False
    return _PROGRAM_LINE.search(text, fence.body, fence.end) is None


def is_code_line(text: str, start: int, end: int) -> bool:
    """Whether the line ``text[start:end]`` of an output block is a command or a statement."""
    return _CODE_LINE.match(text, start, end) is not None


def _lines(text: str, fence: Fence) -> Iterator[tuple[int, int]]:
    """The (start, end) of each line of ``fence``'s text."""
    at = fence.body
    while at < fence.end:
        ls, le = line_at(text, at)
        yield ls, le
        nxt = text.find("\n", ls)
        at = fence.end if nxt < 0 else nxt + 1


def output_lines(segment: Segment, fence: Fence) -> Iterator[tuple[int, int]]:
    """The (start, end) of each non-blank line of an output block that is no code line."""
    text = segment.text
    for ls, le in _lines(text, fence):
        if text[ls:le].strip() and not is_code_line(text, ls, le):
            yield ls, le


def code_spans(segment: Segment) -> list[tuple[int, int]]:
    """Where a Markdown segment holds code, as sorted (start, end) spans: each code block whole,
    and each command line of an output block. Found once per segment."""
    spans = segment._cache.get("code_spans")
    if spans is None:
        spans = segment._cache["code_spans"] = _code_spans(segment)
    assert isinstance(spans, list)
    return spans


def _code_spans(segment: Segment) -> list[tuple[int, int]]:
    text = segment.text
    out: list[tuple[int, int]] = []
    for fence in fences(segment):
        if not is_output(segment, fence):
            out.append((fence.start, fence.end))
        else:
            out.extend((ls, le) for ls, le in _lines(text, fence) if is_code_line(text, ls, le))
    return out


def without_code(segment: Segment, hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` (in text order) less those in code (`code_spans`): an anchor in code names no
    result, so none of the code's numbers is judged."""
    spans = code_spans(segment) if segment.syntax == "md" else []
    if not spans:
        return list(hits)
    starts = [s for s, _ in spans]
    out: list[Hit] = []
    for h in hits:
        i = bisect.bisect_right(starts, h.start) - 1
        if i < 0 or h.start >= spans[i][1]:
            out.append(h)
    return out


def fenced_unit(segment: Segment, pos: int) -> Sentence | Table | None:
    """The unit of a Markdown fenced block holding ``pos``: in printed output, a classification
    report or printed frame inside the block, else the line (a log's record); in code, the line
    (its anchors are dropped: `without_code`). None outside a fenced block."""
    fence = fence_at(segment, pos)
    if fence is None:
        return None
    if pos >= fence.body and is_output(segment, fence):
        table = aligned_table(segment, pos, (fence.body, fence.end))
        if table is not None:
            return table
    return Sentence(*line_at(segment.text, pos))
