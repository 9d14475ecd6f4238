"""Jupyter notebooks as segments: what a reader of the notebook sees as text, cell by cell.

A notebook (nbformat 4, and the nbformat 3 of older notebooks: ``worksheets``, ``heading``
cells, ``pyout`` outputs holding their text on the output itself) gives one `Segment` per

* markdown (and nbformat 3 ``heading``) cell: its source, Markdown, ``where`` = ``cell N``;
* code cell output (``where`` = ``cell N, output M``), code itself never:

  - a ``stream`` (stdout, stderr): plain text;
  - a result or display (``execute_result``, ``display_data``; ``pyout``): the one
    representation a reader sees as text, first of ``text/markdown``, ``text/latex``,
    ``text/plain``, then ``text/html`` (read as Markdown: its tables are tables). A frame shows
    its numbers in both ``text/plain`` and ``text/html``: reading both reported each drifted
    number twice, so HTML is read only when ``text/plain`` is missing or only names an object
    (``<IPython.core.display.HTML object>`` under the HF Trainer's epoch table, a pandas
    ``Styler``). An output carrying a Jupyter widget (tqdm's notebook bar) is a widget, not text.
  - ``error``: not read (a traceback's line numbers are code's, not results).

Invariants:

* **Offsets are the notebook's.** A segment's text is the cell's source or the output's text as
  stored (lines joined), with what a notebook never shows as text blanked one space per
  character, line breaks kept: ANSI colour codes (``\\x1b[0;31m``, which glued ``31m`` and
  ``0m`` to numbers), the states a carriage return or backspace overwrote (tqdm redraws its bar
  with ``\\r``; only the last state is on screen), the chrome of progress bars (tqdm's
  ``100%|██████████| 782/782 [00:12<00:00, 63.2it/s``, Keras' ``422/422 [=====] - 16s
  37ms/step``: percentages, counts, timings and rates, never a result; a bar's postfix
  ``loss=0.312`` stays), and the ``<style>``/``<script>`` bodies of HTML. So a finding's line and
  column point into the cell or output as the file holds it.
* **Printed output is read a line per record.** A stream, or a ``text/plain`` result, of two
  or more lines is a log (`doc_readers.is_log`, through `Segment.printed`), whatever its lines
  end in: ``print()`` writes a line per call, so a line is what the program said together.
  Read as prose, a cell printing ``Loading checkpoint ...``, ``Evaluating the model``, ``Test
  loss 0.2871`` and ``Test accuracy 0.9133`` (no sentence punctuation) was one sentence, and
  the loss matched or drifted for a test-accuracy claim. A tqdm stream is a log however few
  its lines (each bar line is one epoch's record, its description, ``valid:``, the record's
  label). A single line stays a sentence (its sentence punctuation still parts it), an output
  whose line runs on into the next as a sentence's words do stays prose (`_wrapped`), over
  any number of lines, unless its lines outside such sentences are a log (`_prose`), and
  markdown cells, ``text/markdown`` and ``text/latex`` results are prose as ever.
* **A fit's earlier phase is not read.** fastai's ``fine_tune`` shows two HTML tables of epochs
  (``epoch``, ``train_loss``, ...) in one cell: the frozen epoch's, then the rest. Read as two
  outputs, a claim on the last epoch drifted against the frozen epoch's only row; a table that
  the next output of its cell goes on from is left out, so the last one's rows are judged
  together, as a log's epochs are. A fit's table in a cell of its own is read.
* **A stream says so** (`Segment.stream`): what code printed as it ran, not a result's repr.
  A training's progress outputs are streams, and the HTML tables of epochs its fit shows
  (`progress.epoch_table`); after judging, a notebook's progress outputs are judged as one
  training's history (`progress.judge_history`), an evaluation's returned dict alone.
* **Damage is a `DocumentError`**, never another exception: malformed JSON (with its line and
  column), JSON nested too deeply, no cells, a cell or output that is not an object, text that is
  not a string or a list of strings.
* **Cheap.** Images, widgets, JSON and JavaScript outputs are never looked at; each clean-up
  runs only when its trigger character is in the text, one regex pass each.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from labledger.reconcile.doc_readers import Segment, blanked, is_log
from labledger.reconcile.errors import DocumentError
from labledger.reconcile.log_units import heading_title, markdown_headings
from labledger.reconcile.number_roles import heading_split

__all__ = ["read_notebook", "visible_output"]

# A result's representations in the order they are read as text, with their syntax; HTML comes
# last and only when text/plain shows no text (see `_shown_representation`).
_TEXT_MIMES = (("text/markdown", "md"), ("text/latex", "tex"), ("text/plain", "txt"))
# nbformat 3 kept a result's representations on the output itself, under short names
_V3_MIMES = {"markdown": "text/markdown", "latex": "text/latex", "text": "text/plain",
             "html": "text/html"}
_WIDGET = "application/vnd.jupyter.widget-view+json"
# a repr naming an object instead of showing it: <IPython.core.display.HTML object>,
# <pandas.io.formats.style.Styler at 0x7f3b2c1d0e50>, <Figure size 640x480 with 1 Axes> (over
# the image/png that is the output). Only these forms: "<Result acc=0.93>" shows a value.
_PLACEHOLDER = re.compile(
    r"\s*<[A-Za-z_][\w.]*(?: object| at 0x[0-9a-fA-F]+| size \d+x\d+ with \d+ Axes)>\s*\Z")

# ANSI escapes: CSI (colours, cursor moves), OSC (titles, links), two-character escapes
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])")
# a line's states before its last carriage return (not the CR of a CRLF)
# (anchored at line starts: tried at every position, a long line was scanned once per position)
_OVERWRITTEN = re.compile(r"^[^\n]*\r(?!\n|\Z)", re.M)
_BACKSPACES = re.compile(r"\x08+")
# tqdm: "desc: 100%|██████████| 782/782 [00:12<00:00, 63.2it/s, loss=0.312]" (the bar, counts,
# times and rate; the description and the postfix stay), and "153it [00:02, 72.24it/s]"
_TIME = r"(?:\d+:)?\d+:\d\d|\?"
_RATE = r"[ \t]*(?:\d+(?:\.\d+)?|\?)[ \t]?[A-Za-z]*/[A-Za-z]+"
_TQDM = re.compile(
    rf"(?:\b\d{{1,3}}%\|[^|\n]*\|[ \t]*[\d.]+[kMGTP]?/[\d.]+[kMGTP]?|\b\d+(?:\.\d+)?[kMGTP]?"
    rf"[A-Za-z]+)[ \t]*\[(?:{_TIME})(?:<(?:{_TIME}))?(?:,(?:{_RATE}))?")
# Keras: "422/422 [==============================] - 16s 37ms/step", " 9536/10000 [=====>..] -
# ETA: 0s", Keras 3's "422/422 ━━━━━━━━━━━━━━━━━━━━ 16s 37ms/step" (its colours already blanked)
_KERAS_TIMING = r"(?:ETA:[ \t]*\S+|\d+(?:\.\d+)?[mµu]?s(?:/(?:step|sample))?)"
_KERAS = re.compile(
    rf"\b\d+/\d+[ \t]+(?:\[[=>.]*\]|[\u2501\u2500]+)"
    rf"(?:[ \t]+(?:-[ \t]+)?{_KERAS_TIMING})*")
# fastai's progress table: "<thead><tr ...><th>epoch</th><th>train_loss</th>..."
_EPOCH_TABLE = re.compile(r"<thead>\s*<tr\b[^>]*>\s*<th>epoch</th>\s*<th>train_loss</th>")
# a line ending in a lowercase word and the next beginning with one: maybe a sentence wrapped
_RUN_ON = re.compile(r"[a-z][ \t]*\r?\n[ \t]*[a-z]")
_HTML_CODE = re.compile(r"<(style|script)\b", re.I)
_HTML_CODE_END = {"style": re.compile(r"</style\b[^>]*>", re.I),
                  "script": re.compile(r"</script\b[^>]*>", re.I)}


def read_notebook(path: str, text: str) -> list[Segment]:
    """The segments of the notebook ``text`` (shown as ``path``); `DocumentError` when it is
    not a notebook."""
    notebook = _parsed(path, text)
    out: list[Segment] = []
    headings = _Headings()
    for n, cell in enumerate(_cells(path, notebook), 1):
        segments = _cell_segments(path, cell, n)
        for segment in segments:
            segment.sections = headings.open()
        out += segments
        if cell["cell_type"] == "heading":  # nbformat 3: a cell of its own, its level apart
            level = cell.get("level", 1)
            headings.add(level if isinstance(level, int) else 1, segments[0].text)
        elif cell["cell_type"] == "markdown":
            for head in markdown_headings(segments[0]):
                headings.add(head.level, segments[0].text[head.text_start:head.text_end])
    return out


class _Headings:
    """The headings of the markdown cells read so far that are still open (none of their level
    or higher came after), and the splits they name (`number_roles.heading_split`)."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str | None]] = []

    def add(self, level: int, title: str) -> None:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, heading_split(heading_title(title))))

    def open(self) -> tuple[tuple[int, str], ...]:
        """(level, split) of each open heading naming a split, outermost first."""
        return tuple((level, split) for level, split in self._stack if split is not None)


def _parsed(path: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _invalid(path, f"malformed JSON at line {exc.lineno} column {exc.colno} "
                             f"({exc.msg})") from None
    except RecursionError:
        raise _invalid(path, "its JSON is nested too deeply to read") from None


def _invalid(path: str, why: str) -> DocumentError:
    return DocumentError([(path, f"not a valid notebook: {why}")])


def _cells(path: str, notebook: Any) -> Iterator[dict[str, Any]]:
    """Every cell, in order: nbformat 4's ``cells``, or the cells of nbformat 3's worksheets."""
    if isinstance(notebook, dict) and isinstance(notebook.get("cells"), list):
        cell_lists = [notebook["cells"]]
    elif isinstance(notebook, dict) and isinstance(notebook.get("worksheets"), list):
        sheets = notebook["worksheets"]
        if not all(isinstance(s, dict) and isinstance(s.get("cells", []), list) for s in sheets):
            raise _invalid(path, "a worksheet has no 'cells' list")
        cell_lists = [s.get("cells", []) for s in sheets]
    else:
        raise _invalid(path, "no 'cells' list (nbformat 4) nor 'worksheets' (nbformat 3)")
    n = 0
    for cells in cell_lists:
        for cell in cells:
            n += 1
            if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
                raise _invalid(path, f"cell {n} has no cell_type")
            yield cell


def _cell_segments(path: str, cell: dict[str, Any], n: int) -> list[Segment]:
    kind = cell["cell_type"]
    where = f"cell {n}"
    if kind in ("markdown", "heading"):
        return [Segment(path, "md", _joined(path, cell.get("source", ""), f"{where} source"),
                        where)]
    if kind != "code":
        return []  # raw cells are passed through by nbconvert as they are: no shown result
    outputs = cell.get("outputs", [])
    if not isinstance(outputs, list):
        raise _invalid(path, f"{where} outputs is not a list")
    out: list[Segment] = []
    for m, output in enumerate(outputs, 1):
        if not isinstance(output, dict):
            raise _invalid(path, f"{where} output {m} is not an object")
        segment = _output_segment(path, output, f"{where}, output {m}")
        if segment is not None:
            if out and _is_epoch_table(out[-1]) and _is_epoch_table(segment):
                out.pop()  # an earlier phase of the training this table goes on with
            out.append(segment)
    return out


def _is_epoch_table(segment: Segment) -> bool:
    """Whether an output is fastai's table of a fit's epochs (HTML, headed ``epoch``)."""
    text = segment.text
    return (segment.syntax == "md" and "<th>epoch</th>" in text
            and _EPOCH_TABLE.search(text) is not None)


def _output_segment(path: str, output: dict[str, Any], where: str) -> Segment | None:
    kind = output.get("output_type")
    if kind == "stream":
        return _stream_segment(path, _joined(path, output.get("text", ""), where), where)
    if kind not in ("execute_result", "display_data", "pyout"):
        return None  # errors (tracebacks), clear_output and unknown kinds show no result
    shown = _shown_representation(path, _representations(output), where)
    if shown is None:
        return None
    syntax, text = shown
    if syntax != "txt":
        return Segment(path, syntax, text, where)
    text = visible_output(text)[0]
    printed = _several_lines(text)
    segment = Segment(path, syntax, text, where, printed=printed)
    return segment if printed or "\n" not in text.strip() else _prose(segment)


def _representations(output: dict[str, Any]) -> dict[str, Any]:
    """The output's MIME bundle: nbformat 4's ``data``; nbformat 3's short-named keys."""
    data = output.get("data")
    if isinstance(data, dict):
        return data
    return {mime: output[key] for key, mime in _V3_MIMES.items() if key in output}


def _shown_representation(path: str, data: dict[str, Any],
                          where: str) -> tuple[str, str] | None:
    """(syntax, text) of the representation read, or None when none shows text."""
    if _WIDGET in data:
        return None  # a widget (a notebook progress bar); its text/plain is a fallback repr
    for mime, syntax in _TEXT_MIMES:
        if mime in data:
            text = _joined(path, data[mime], where)
            if mime != "text/plain" or not _PLACEHOLDER.match(text):
                return syntax, text
    if "text/html" in data:
        return "md", _without_code(_joined(path, data["text/html"], where))
    return None


def _stream_segment(path: str, raw: str, where: str) -> Segment:
    text, progress = visible_output(raw)
    # Each line of a progress stream is one record (an epoch's bar and its postfix); read as
    # prose, two short bar lines were one unit and the train line's 'acc' drifted against the
    # validation claim. So is each line of any printed output of several lines.
    printed = progress or _several_lines(text)
    segment = Segment(path, "txt", text, where, printed=printed, stream=True)
    return segment if printed or "\n" not in text.strip() else _prose(segment)


def _several_lines(text: str) -> bool:
    """Whether ``text`` holds two or more lines that are not blank: a program's printed lines,
    each a record of its own (see the module docstring), unless it is prose wrapped."""
    return "\n" in text.strip() and not _wrapped(text)


def _wrapped(text: str) -> bool:
    """Whether ``text`` holds a sentence wrapped onto the next line: a line of words, ending in
    a word (no punctuation, no number) where the next line begins with one (``The final model
    reaches 93.17% test`` over ``accuracy, up from 91.02% for the baseline.``: read a line per
    record, the test accuracy's line named no accuracy, and the baseline's 91.02% drifted for
    the claim 93.17% matches). A key and its value aligned in columns (a Series' ``split
    test`` over ``loss  0.6871``) are no sentence: a record a line."""
    return next(_run_ons(text), None) is not None


def _run_ons(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each two lines a sentence runs on across (see `_wrapped`)."""
    for m in _RUN_ON.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        line = text[start:m.start() + 1].strip()
        if line.count(" ") >= 2 and "  " not in line and "\t" not in line:
            end = text.find("\n", m.end())
            yield start, len(text) if end < 0 else end


def _prose(segment: Segment) -> Segment:
    """``segment`` (an output of several lines, a sentence running on across two of them)
    told to be prose unless its other lines are a log by themselves: three lines of one
    sentence, two of them ending in a number (``... after 30 epochs`` over ``of training, up
    from 88.03%``), were a log by `doc_readers.is_log`'s share of such lines, and read a line
    per record, the claim's name and its number, on two lines, named nothing together."""
    text = segment.text
    chars = list(text)
    for start, end in _run_ons(text):
        chars[start:end] = blanked(text[start:end])
    segment._cache["log"] = is_log(Segment(segment.path, "txt", "".join(chars)))
    return segment


def visible_output(text: str) -> tuple[str, bool]:
    """``text`` as a notebook shows it, one character for one (ANSI escapes, overwritten
    states and progress-bar chrome blanked: see the module docstring), and whether it held a
    tqdm bar (whose lines are records)."""
    progress = False
    for trigger, blank in _CLEAN_UPS:
        if trigger in text:
            text, found = blank(text)
            progress = progress or found
    return text, progress


def _blanking(rx: re.Pattern[str]) -> Callable[[str], tuple[str, bool]]:
    """A clean-up blanking each match of ``rx``."""
    def blank(text: str) -> tuple[str, bool]:
        return rx.sub(lambda m: blanked(m.group(0)), text), False
    return blank


def _blank_backspaced(text: str) -> tuple[str, bool]:
    """Each run of backspaces blanked with the characters it erased (on its own line)."""
    chars = list(text)
    line_start = 0
    for m in _BACKSPACES.finditer(text):
        # looked for from the last run's line on: one pass over the text
        newline = text.rfind("\n", line_start, m.start())
        if newline >= 0:
            line_start = newline + 1
        erased = max(line_start, m.start() - len(m.group(0)))
        chars[erased:m.end()] = " " * (m.end() - erased)
    return "".join(chars), False


def _blank_tqdm(text: str) -> tuple[str, bool]:
    """tqdm's percentage, bar, counts, times and rate, and the "]" closing its line."""
    bars = list(_TQDM.finditer(text))
    if not bars:
        return text, False
    chars = list(text)
    closed = -1  # the end of the last line whose closing "]" was looked for
    for m in bars:
        chars[m.start():m.end()] = " " * (m.end() - m.start())
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        if line_end != closed:
            closed = line_end
            last = _last_visible(text, m.end(), line_end)
            if last >= 0 and text[last] == "]":
                chars[last] = " "
    return "".join(chars), True


def _last_visible(text: str, start: int, end: int) -> int:
    """The offset of the last character of ``text[start:end]`` that is not white space, or -1."""
    at = end - 1
    while at >= start and text[at] in " \t\r":
        at -= 1
    return at if at >= start else -1


# (a character without which there is nothing to blank, the blanking), in this order: escapes
# first (Keras 3 colours its counts), then overwritten states, then the bars left on screen
_CLEAN_UPS: tuple[tuple[str, Callable[[str], tuple[str, bool]]], ...] = (
    ("\x1b", _blanking(_ANSI)),
    ("\r", _blanking(_OVERWRITTEN)),
    ("\x08", _blank_backspaced),
    ("[", _blank_tqdm),
    ("/", _blanking(_KERAS)),
)


def _without_code(html: str) -> str:
    """HTML with its ``<style>`` and ``<script>`` elements blanked (CSS and code, not text);
    one left open runs to the end, as a browser reads it."""
    parts = []
    at = 0
    for m in _HTML_CODE.finditer(html):
        if m.start() < at:
            continue  # inside the element blanked last
        close = _HTML_CODE_END[m.group(1).lower()].search(html, m.end())
        end = len(html) if close is None else close.end()
        parts += [html[at:m.start()], blanked(html[m.start():end])]
        at = end
    return "".join(parts) + html[at:] if parts else html


def _joined(path: str, value: object, what: str) -> str:
    """A multi-line string as nbformat stores it: a string, or a list of strings to join."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    raise _invalid(path, f"{what} is not text")
