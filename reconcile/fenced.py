"""Markdown's fenced blocks: code, whose numbers claim nothing, or printed output, read as a log.

A README fences two kinds of text (```` ``` ```` or ``~~~``). Code: a Python snippet, the
command that trained the model (``python train.py --lr 0.001 --epochs 300``): its numbers are
settings, and its anchors (``--lr``, ``accuracy = evaluate(...)``) name no result, so nothing
in it is judged (`without_code`). Printed output: an eval log, ``key = value`` metrics, COCO's
``summarize()`` lines, sklearn's classification report, ``Test set: Average loss: 0.0204,
Accuracy: 9934/10000 (99.34%)``: it is read as the same text is read in a ``.txt`` log
(`doc_readers.is_log`): a unit a line (`fenced_unit`), a classification report, a printed
frame or a Markdown pipe table (lm-evaluation-harness prints its results as one) a table, and
its lines judged together with the page's other records, named by the headings over the block
(`log_units.headed`).

Which is which, per block and then per line:

* a block whose info string names a programming or configuration language (``python``,
  ``yaml``, ``cpp``...), or one holding a Python ``import``, ``def`` or ``class`` line, is code
  throughout;
* any other block (none, ``text``, ``console``, ``bash``, ``shell``, ``json``...) is printed
  output less its command lines: a prompt (``$``, ``>>>``, ``In [1]:``), a command
  (``python``, ``pip``, ``torchrun``, ``CUDA_VISIBLE_DEVICES=0 python``, ``./run.sh``), a long
  option (``--lr 0.001``), a Python statement (``x = f(...)``, ``f(...)``, ``for ... in ...:``).
  A shell block is mostly such lines, and a console session mixes the two; a ``shell`` block
  of COCO's summarize() lines, as READMEs label them, is output. The body of a heredoc a
  command line opens (``$ cat > paper/results.md <<'EOF'`` up to ``EOF``) is that command's
  input, not what it printed: code too.

Each block is classified once per segment (`segment._cache`); a document without a fence costs
the one substring search `doc_readers.fences` makes.

Text shown verbatim (`shown_verbatim`), where a claim marker is text, not a marker (a page
showing how to write one): in Markdown each fenced block and inline code span (a run of
backticks closed by the next run as long, within its paragraph); in reST each literal block (a
paragraph ending in ``::``, or a ``code-block``/``code``/``sourcecode``/``parsed-literal``/
``doctest``/``testcode``/``testoutput`` directive, and the lines indented under it) and inline
literal; in LaTeX the ``verbatim``, ``Verbatim``, ``lstlisting`` and ``minted`` environments and
``\\verb``, ``\\lstinline``, ``\\mintinline``. Found once per segment, and only for a segment
that holds something written like a marker.
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
    line_end,
    markdown_table,
)

__all__ = ["code_spans", "fenced_unit", "info_language", "inside", "is_code_line", "is_output",
           "merged", "output_lines", "shown_verbatim", "without_code"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Info strings of programs and configuration (`info_language`: "```python title=x", "```{r}",
# "```{r, echo=FALSE}", "```.yaml"; Quarto's Observable "```{ojs}"): such a block is code
# whatever it holds. A shell or console block is
# not among them: READMEs paste commands with what they printed, and label a log "shell".
_CODE_LANGUAGES = _words("""
python py python3 py3 ipython ipython3 pycon javascript js jsx typescript ts tsx java kotlin kt
scala groovy c h cpp c++ cc cxx hpp cuda cu objc objective-c swift go golang rust rs ruby rb php
perl pl lua r julia jl matlab octave haskell hs ocaml fsharp csharp cs c# dart elixir erlang
clojure lisp scheme sql graphql proto protobuf yaml yml toml ini cfg conf properties dockerfile
docker makefile cmake nix hcl terraform html xml svg css scss vue svelte latex tex bibtex bib
diff patch mermaid dot powershell ps1 bat batch vim markdown md rst ojs typst typ
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


# what ends an info string's first word: a space, a knitr/Quarto chunk's comma before its
# options or its brace ("{r, echo=FALSE}", "{python}")
_INFO_WORD_END = re.compile(r"[\s,}]")


def info_language(info: str) -> str:
    """The language ``info`` (a fence's info string) names, lower-cased: its first word
    (``python title="x"``), a pandoc class (``{.python .numberLines}``, ``.yaml``), a raw
    block's format (``{=html}``), or an R Markdown or Quarto chunk's engine (``{r}``,
    ``{r setup, include=FALSE}``, ``{r, echo=FALSE}``, ``{python}``)."""
    word = info.strip().lstrip("{=. \t")
    end = _INFO_WORD_END.search(word)
    return (word[:end.start()] if end is not None else word).strip("{}.").lower()


def _is_output(text: str, fence: Fence) -> bool:
    if info_language(fence.info) in _CODE_LANGUAGES:
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


# A heredoc: "<<EOF", "<< 'EOF'", "<<-\"END\"" (a delimiter quoted, or in capitals: "x << y" is
# a shift), on a shell line (not after Python's prompt: ">>> 1 << BITS" is a shift too)
_HEREDOC = re.compile(r"<<-?[ \t]*(?:(['\"])(\w+)\1|([A-Z_][A-Z0-9_]*)\b)")
_PYTHON_PROMPT = re.compile(r"[ \t]*(?:>>>|\.\.\.|In[ \t]*\[)")


def _classified(text: str, fence: Fence) -> Iterator[tuple[int, int, bool]]:
    """Each line of an output block as (start, end, whether it is code): a command or
    statement line (`is_code_line`), or a line of the heredoc one opens, to its delimiter."""
    until: str | None = None
    for ls, le in _lines(text, fence):
        if until is not None:
            if text[ls:le].strip() == until:
                until = None
            yield ls, le, True
            continue
        code = is_code_line(text, ls, le)
        heredoc = (_HEREDOC.search(text, ls, le) if code and "<<" in text[ls:le]
                   and not _PYTHON_PROMPT.match(text, ls, le) else None)
        if heredoc is not None:
            until = heredoc.group(2) or heredoc.group(3)
        yield ls, le, code


def output_lines(segment: Segment, fence: Fence) -> Iterator[tuple[int, int]]:
    """The (start, end) of each non-blank line of an output block that is no code line."""
    text = segment.text
    for ls, le, code in _classified(text, fence):
        if not code and text[ls:le].strip():
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
            out.extend((ls, le) for ls, le, code in _classified(text, fence) if code)
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
        # (lm-evaluation-harness prints its results as a Markdown pipe table: pasted in a fence,
        # a continuation row "|  |  |strict-match|" is its task's, as on the page)
        table = markdown_table(segment, pos) or aligned_table(segment, pos,
                                                              (fence.body, fence.end))
        if table is not None:
            return table
    return Sentence(*line_at(segment.text, pos))


# --- text shown verbatim: a marker written there is shown, not read ----------------------------

def shown_verbatim(segment: Segment) -> list[tuple[int, int]]:
    """Where ``segment`` shows text verbatim, as sorted (start, end) spans (see the module's
    docstring); found once per segment."""
    spans = segment._cache.get("verbatim")
    if spans is None:
        spans = segment._cache["verbatim"] = _verbatim_spans(segment)
    assert isinstance(spans, list)
    return spans


def inside(spans: list[tuple[int, int]], pos: int) -> bool:
    """Whether ``pos`` is in one of ``spans`` (sorted, not overlapping)."""
    i = bisect.bisect_right(spans, pos, key=_start_of) - 1
    return i >= 0 and pos < spans[i][1]


def _start_of(span: tuple[int, int]) -> int:
    return span[0]


def _verbatim_spans(segment: Segment) -> list[tuple[int, int]]:
    text = segment.text
    if segment.syntax == "md":
        # (to the end of the closing line: its backticks pair with none of the text's)
        blocks = [(f.start, line_end(text, f.end)) for f in fences(segment)]
    elif segment.syntax == "rst":
        blocks = _rst_literal_blocks(text)
    elif segment.syntax == "tex":
        return merged(_tex_verbatim(text))
    else:
        return []
    return merged(blocks + _inline_code(text, blocks))


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, those that overlap made one (a \\verb running into an environment)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


_BLANK_LINES = re.compile(r"\n[ \t]*\n")
# (a regex, not `in`: the engine skips ahead to ":", where `in` looks at nearly every
# character; a sixth of the time, over a tree of Markdown)
_DOUBLE_COLON = re.compile("::")
_BACKTICKS = re.compile(r"`+")


def _inline_code(text: str, blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Markdown's code spans (reST's inline literals are the ``double`` case): a run of
    backticks and the next run of as many, in one paragraph and outside ``blocks`` (sorted)."""
    if "`" not in text:
        return []
    out: list[tuple[int, int]] = []
    at = 0
    for lo, hi in [*blocks, (len(text), len(text))]:
        paragraph = at
        for gap in _BLANK_LINES.finditer(text, at, lo):
            out += _paired_backticks(text, paragraph, gap.start())
            paragraph = gap.end()
        out += _paired_backticks(text, paragraph, lo)
        at = max(at, hi)
    return out


def _paired_backticks(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """CommonMark's pairing in ``text[lo:hi]``: a run of backticks opens a span that the next
    run of the same length closes; a run no later run matches is literal text. Linear: the next
    run of each length is found in one pass from the right."""
    runs = [m.span() for m in _BACKTICKS.finditer(text, lo, hi)]
    closer = [-1] * len(runs)
    last: dict[int, int] = {}
    for k in range(len(runs) - 1, -1, -1):
        size = runs[k][1] - runs[k][0]
        closer[k] = last.get(size, -1)
        last[size] = k
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(runs):
        j = closer[k]
        if j < 0:
            k += 1
        else:
            out.append((runs[k][0], runs[j][1]))
            k = j + 1
    return out


# A reST literal block's introducer: a paragraph line ending in "::" (not a directive's own
# line, ".. note::", whose content is prose), or a directive whose content is code.
_RST_LITERAL = re.compile(
    r"\n([ \t]*+)(?:\.\. (?:code-block|code|sourcecode|parsed-literal|doctest|testcode"
    r"|testoutput)::[^\n]*|(?!\.\.[ \t])[^\n]*::[ \t]*)(?=\n|$)")


def _rst_literal_blocks(text: str) -> list[tuple[int, int]]:
    """reST's literal blocks: from the end of each introducer (`_RST_LITERAL`) to the end of
    the last line under it that is indented deeper than the introducer's line."""
    if _DOUBLE_COLON.search(text) is None:
        return []
    out: list[tuple[int, int]] = []
    done = 0
    for m in _RST_LITERAL.finditer("\n" + text):
        intro_end = m.end() - 1  # in the text ("\n" was put before it): its line's end
        if intro_end < done:
            continue  # an introducer inside the block before: that block's text
        end = _indented_until(text, intro_end, len(m.group(1).expandtabs()))
        if end > intro_end:
            out.append((intro_end, end))
            done = end
    return out


def _indented_until(text: str, at: int, depth: int) -> int:
    """The end of the last of the lines after ``at`` (a line's end) that are blank or
    indented deeper than ``depth``, up to the first that is neither; ``at`` when none holds
    anything."""
    end = at
    while at < len(text):
        ls = at + 1
        le = text.find("\n", ls)
        le = len(text) if le < 0 else le
        line = text[ls:le].expandtabs()
        if line.strip():
            if len(line) - len(line.lstrip()) <= depth:
                break
            end = le
        at = le
    return end


_TEX_VERBATIM_ENV = re.compile(r"\\begin\{(verbatim\*?|Verbatim\*?|BVerbatim|LVerbatim|lstlisting"
                               r"|minted)\}")
# \verb|...| (any delimiter), \lstinline|...| or {...}, \mintinline{lang}|...| or {...}
# (braces one deep inside the braced form: \lstinline{\claim{C1}{31.5}}); at most 400
# characters to the closing delimiter, so a line of unclosed ones is not read to its end each
_TEX_VERBATIM_INLINE = re.compile(
    r"\\verb\*?([^\sA-Za-z*])[^\n]{0,400}?\1"
    r"|\\(?:lstinline|mintinline(?:\[[^\]\n]{0,400}\])?\{[^{}\n]{0,400}\})"
    r"(?:\[[^\]\n]{0,400}\])?"
    r"(?:\{(?:[^{}\n]|\{[^{}\n]{0,400}\}){0,400}\}|([^\s{\[])[^\n]{0,400}?\2)")
_TEX_COMMENT_START = re.compile(r"(?<!\\)%")


def _tex_verbatim(text: str) -> list[tuple[int, int]]:
    """LaTeX's verbatim environments (to their \\end, or the text's end) and inline verbatim;
    a \\begin on a commented-out line opens nothing."""
    if "\\begin" not in text and "\\verb" not in text and "inline" not in text:
        return []
    envs: list[tuple[int, int]] = []
    done = 0
    for m in _TEX_VERBATIM_ENV.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if m.start() < done or _TEX_COMMENT_START.search(text, line_start, m.start()):
            continue
        close = text.find("\\end{" + m.group(1) + "}", m.end())
        done = len(text) if close < 0 else close + len(m.group(1)) + 6
        envs.append((m.start(), done))
    # (a \verb inside an environment is that environment's text)
    inline = [(m.start(), m.end()) for m in _TEX_VERBATIM_INLINE.finditer(text)
              if not inside(envs, m.start())]
    return envs + inline
