"""Numbers as documents show them, and comparing them with a claim at the precision shown.

A *shown number* is a token of text: an optional sign, digits with optional thousands
separators (``1,000``, ``1{,}000``, ``1\\,000``, a thin space), a decimal part (after a point;
after a comma in a text that writes decimal commas, where ``1.234,5`` is 1234.5), an optional
exponent (``1.2e-3``, ``1.2 \\times 10^{-3}``, ``1.2 × 10^-3``), then optionally a multiplier
(``50k``, ``1.2M``), a percent sign (``91.3%``, ``91.3\\%``, ``91.3 percent``) or a unit word.

Invariants:

* **Precision is what the text shows.** The number is kept as a `Decimal` built from its digits,
  so its exponent is the place of its last shown digit (``31.4`` → 0.1, ``31.40`` → 0.01,
  ``1,000`` → 1, ``1.2e-3`` → 0.0001, ``1.2M`` → 100,000). A claim value *matches* when
  ``|shown − value·scale| ≤ ½·10^exponent`` (+ a relative 2⁻⁵⁰ for the value's binary
  representation), computed exactly in decimal arithmetic on the float's exact value: so the
  text produced by formatting the value at any precision (``f"{v:.{p}f}"``) always matches, and
  a text off by more than half a unit in its last shown digit never does.
* **Percent scales.** ``91.3%`` is compared as 0.913 with a claim whose unit is a fraction (a
  unit of ``fraction``, ``ratio``, ``1``, or no unit with ``|value| ≤ 1``) and as 91.3 with a
  claim whose unit is ``%``/``percent`` (or no unit with ``|value| > 1``). A fraction's number
  shown above 1 (to 100) with no sign and no unit is in percent points too (``76.3`` in a
  "Top-1 Acc." column is 0.763). The mirror is not read: a number shown at most 1 is never a
  percent claim's fraction (``0.763`` beside a 76.34% claim is no value of it), as prose gives
  a percent metric's ratios, thresholds and correlations in that range ("an IoU threshold of
  0.5", "Pearson r = 0.81").
* **Digits glued to words are not numbers.** ``mAP@50``, ``ResNet-50``, ``top-1``, ``F1``,
  ``v1.2``, ``3D``, ``1st``, ``1.2.3``, ``3-5``, ``12:30``, ``10^3`` yield no token.
* **Units are checked only when present.** A unit word right after the number is compared with
  the claim's unit (case-insensitive, a few synonyms); an unknown following word (``on``,
  ``epochs``) is not a unit and is not compared.

This module knows nothing about claims or documents; `documents.py` decides which number is
whose.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Decimal, localcontext

__all__ = ["Check", "Shown", "check", "is_fraction_unit", "is_percent_unit", "norm_unit",
           "number_at", "parse_number", "percent_scale", "scan_numbers"]

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SEP = r"(?:,|\{,\}|\\,|[\u2009\u202f\u00a0])"
_NUMBER = re.compile(
    r"(?P<sign>[+\-\u2212])?"
    r"(?:(?P<int>\d{1,3}(?:" + _SEP + r"\d{3})+(?!\d)|\d+)(?:\.(?P<frac>\d+))?"
    r"|\.(?P<frac0>\d+))"
    r"(?:[eE](?P<exp>[+\-\u2212]?\d+)(?!\w|\.\d)"
    r"|\s?(?:\\times|\u00d7|\\cdot)\s?10\^\{?(?P<exp2>[+\-\u2212]?\d+)\}?)?"
)
_SEP_CHARS = re.compile(_SEP)
# The same where the document writes decimal commas (`decimal_mark`): "31,42" and "31{,}42" are
# 31.42; thousands go by a dot, a thin or no-break space, "\," or "~" ("1.234,5", "1\,234,5"),
# or a plain space before a decimal part ("1 234,5": a plain space alone parts two numbers);
# an English "31.42" is no number there, as "31,42" is none in English.
_CSEP = r"(?:\.|\\,|~|[\u2009\u202f\u00a0])"
_NUMBER_COMMA = re.compile(
    r"(?P<sign>[+\-\u2212])?"
    r"(?:(?P<int>\d{1,3}(?:" + _CSEP + r"\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?=(?:,|\{,\})\d)"
    r"|\d+)(?:(?:,|\{,\})(?P<frac>\d+))?"
    r"|(?P<frac0>(?!)\d+))"
    r"(?:[eE](?P<exp>[+\-\u2212]?\d+)(?!\w|,\d)"
    r"|\s?(?:\\times|\u00d7|\\cdot)\s?10\^\{?(?P<exp2>[+\-\u2212]?\d+)\}?)?"
)
_SUPERSCRIPTS = frozenset("\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079")
_CSEP_CHARS = re.compile(r"(?:\.|\\,|~|[ \u2009\u202f\u00a0])")
_GLUE_BEFORE = frozenset("_@.^/\\#")
_EMPHASIS_OPENERS = frozenset("(|*[>\"'")  # what may stand before an emphasis `_`
# What may follow a number and still leave it a number: the letters of a unit or multiplier
# (after a LaTeX space, which may follow the blank a masked brace left: \num{31.42}\,dB).
_SUFFIX = re.compile(r"(?:[ \t]?(?:\\,|\\ |~)|[ \t\u00a0])?(\\%|%|[^\W\d_][\w/°]*|°\w*|×)")
# A superscript that is a footnote mark, not an exponent: 31.42^\dagger, 31.42^{*} (in LaTeX the
# mark's command is masked already: a superscript of blanks, 31.42^{       }).
_FOOTNOTE_MARK = re.compile(r"\^\{?[ \t{]*(?:\\(?:dagger|ddagger|ast|star|S|P|sharp|natural"
                            r"|flat|bullet|circ|diamond|checkmark)(?![A-Za-z])|[*\u2020\u2021"
                            r"\u00a7\u00b6\u22c6\u2217]|[}$])")
# A footnote mark in Unicode superscript digits glued to a decimal ("31.52¹ dB", a cell's "76.9²"):
# the number is read, the mark skipped. After a whole number the digits are a power ("10⁴",
# "256²", "2¹⁰") and the number stays unread, as "10^3" does.
_SUPERSCRIPT_MARK = re.compile(r"[\u00b9\u00b2\u00b3\u2070\u2074-\u2079]+(?![\w\u207b])")
# Two decimals joined by a slash are a pair of values ("31.42/0.913 PSNR/SSIM"), not a fraction
# or a date (3/4, 12/05/2024): each is read. The pair may end a sentence ("EM/F1 is 84.1/91.3."):
# a point after it that no digit follows is the full stop, not a third dotted part (1.2/3.4.5).
_PAIRED_AFTER = re.compile(r"\d+\.\d+(?!\d|\.\d|/\d)|\d+\.\d+/\d+\.\d+")
_PAIRED_BEFORE = re.compile(r"(?:^|[^\w./])(?:\d+\.\d+/)*\d+\.\d+$")
_PAIRED_AFTER_COMMA = re.compile(r"\d+,\d+(?!\d|,\d|/\d)|\d+,\d+/\d+,\d+")
_PAIRED_BEFORE_COMMA = re.compile(r"(?:^|[^\w,/])(?:\d+,\d+/)*\d+,\d+$")
# Two percents joined by a slash are a pair as well ("achieves around 75.6%/92.7% top-1/top-5
# accuracy", "91%/98% Top-1/Top-5"): the later one is read, a percent itself (before, it was
# glued to the slash and unread, so a top-5 claim drifted against the top-1 number)
_PERCENT_PAIRED_BEFORE = re.compile(r"(?:^|[^\w./])(?:\d+(?:\.\d+)?\\?%/)*\d+(?:\.\d+)?\\?%$")
_PERCENT_PAIRED_BEFORE_COMMA = re.compile(r"(?:^|[^\w,/])(?:\d+(?:,\d+)?[ \t]?\\?%/)*"
                                          r"\d+(?:,\d+)?[ \t]?\\?%$")
_PERCENT_NEXT = re.compile(r"[ \t]?\\?%")
# Whole numbers joined by a slash are a pair too where a unit of measure follows the last
# ("RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and 108/74 FPS on T4 GPU", the
# RT-DETR abstract as READMEs quote it; "12/24 GB"): a fraction or a date (3/4, 12/05) takes
# no such unit. (Not a time's: "1/2 h", "3/4 s" are fractions of one.)
_WHOLES_PAIRED = re.compile(r"(?<![\w./\-\u2212\u2013:,^@#\\])\d+(?:/\d+)+"
                            r"(?=[ \t]?(?i:fps|ms|[kmgt]i?b|px|[gtmp]?flops|g?macs|it/s|db)"
                            r"(?![\w/]))")
# Two numbers each with its unit, joined by a slash: "108 FPS/74 FPS" (RT-DETR's abstract as a
# README quotes it: "RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and 108 FPS/74 FPS on T4
# GPU"), "12 GB/24 GB". The later one was glued to the slash after a word, unread (round 63);
# it is read where the unit before the slash follows a number and the same unit follows it.
# (the number before the slash may follow a slash after a unit itself: the third of "217 FPS/161
# FPS/108 FPS", review of round 63)
_UNIT_PAIRED_BEFORE = re.compile(r"(?:^|[^\w./]|(?<=[A-Za-z\u00b5]/))\d+(?:[.,]\d+)?[ \t]?"
                                 r"([A-Za-z\u00b5]{1,6})/$")


# The same pair with each unit glued to its number, "12GB/24GB", "217FPS/161FPS/108FPS": the
# suffix read after the first number ran on over the slash ("GB/24GB", no unit): it is cut at
# the slash where the same unit follows the next number (review of round 63: the 12 was unread)
_GLUED_PAIR_TAIL = re.compile(r"/\d+(?:[.,]\d+)?[ \t]?([A-Za-z\u00b5]{1,6})(?![A-Za-z\u00b5])")


def _glued_pair_unit(sm: re.Match[str]) -> re.Match[str] | None:
    """The suffix match ``sm`` cut to the unit before its slash, where the text it read is
    "UNIT/NUMBER UNIT..." with the same known unit (`_GLUED_PAIR_TAIL`); None otherwise."""
    head = sm.group(1).split("/", 1)[0]
    tail = _GLUED_PAIR_TAIL.match(sm.string, sm.start(1) + len(head))
    if not head or tail is None or tail.group(1).lower() != head.lower() or \
            norm_unit(head) not in _KNOWN_UNITS:
        return None
    return _SUFFIX.match(sm.string[:sm.start(1) + len(head)], sm.start())


def _unit_paired(text: str, start: int, end: int) -> bool:
    """Is the number spanning ``start``-``end``, after a slash, the second of a pair "108 FPS/74
    FPS" (`_UNIT_PAIRED_BEFORE`): the unit after it (glued or after a space) is the one before
    the slash?"""
    before = _UNIT_PAIRED_BEFORE.search(text, max(0, start - 24), start)
    if before is None:
        return False
    unit = before.group(1)
    at = end + 1 if text[end:end + 1] == " " else end
    return text[at:at + len(unit)].lower() == unit.lower() and not (
        text[at + len(unit):at + len(unit) + 1].isalnum())


# A subscript holding the number's uncertainty, not an index: $31.42_{\pm 0.05}$,
# $31.42_{\scriptstyle\pm0.05}$ (the uncertainty itself is read as one, after its \pm); or,
# after a decimal, its change from a baseline (round 63): $0.912_{\uparrow 1.2}$,
# $31.42_{+0.3}$, $31.42_{\textcolor{red}{\downarrow 0.3}}$ (in LaTeX's mask the arrow is blanked:
# a subscript of blanks, then the change, "0.912_{         1.2}")
_SUB_UNCERTAINTY = re.compile(r"_(?:[ \t{$]|\\(?!pm|mp)[A-Za-z]+)*(?:\\pm|\\mp|\u00b1)")
_SUB_CHANGE = re.compile(r"_\{(?:[ \t{$]|\\(?:textcolor|color)\{[A-Za-z!0-9]*\}"
                         r"|\\(?:scriptstyle|small|tiny|footnotesize|bf|mathbf|textbf|textit"
                         r"|text)(?![A-Za-z]))*"
                         r"(?:\\(?:uparrow|downarrow|Uparrow|Downarrow|blacktriangle"
                         r"|blacktriangledown|triangle|triangledown)(?![A-Za-z])"
                         r"|[\u2191\u2193\u25b2\u25bc+\u2212-]|(?<=[ \t]{2})\.?\d)")
# the same change set in a superscript after a decimal, inside the math ("$0.912^{+1.2}$",
# "$31.42^{\uparrow 0.3}$"; after the math, "78.4$^{+2.1}$", the decimal was read already):
# the decimal is the value, not a base raised to a power (a power of a decimal is no result)
_SUP_CHANGE = re.compile(r"\^" + _SUB_CHANGE.pattern[1:])

# Words that are units when they follow a number; anything else that follows is just a word.
_KNOWN_UNITS = _words("""
db % ms s sec secs second seconds min mins minute minutes h hr hrs hour hours day days
hz khz mhz ghz px gb mb kb tb gib mib kib tib w kw j flops gflops tflops mflops pflops macs
gmacs fps bpp bit bits nats x × m cm mm km pp °c ° deg it/s
""")
_SYNONYMS = {"sec": "s", "secs": "s", "second": "s", "seconds": "s", "mins": "min",
             "minute": "min", "minutes": "min", "hr": "h", "hrs": "h", "hour": "h",
             "hours": "h", "days": "day", "×": "x", "percent": "%", "pct": "%", "bits": "bit",
             "deg": "°"}
_MULTIPLIERS = {"k": 3, "K": 3, "M": 6, "B": 9, "G": 9, "T": 12,
                "thousand": 3, "million": 6, "billion": 9, "Thousand": 3, "Million": 6,
                "Billion": 9}
_PERCENT_UNITS = frozenset({"%", "percent", "pct"})
_FRACTION_UNITS = frozenset({"", "fraction", "ratio", "1", "proportion"})
_EPS = Decimal(2) ** -50
_HALF = Decimal("0.5")


def norm_unit(unit: str) -> str:
    u = unit.strip().lower().rstrip(".")
    return _SYNONYMS.get(u, u)


class Shown:
    """One number as the text shows it (offsets are into the scanned text). Treat as immutable.

    A plain slotted class, not a frozen dataclass: a 10 MB tree makes tens of thousands, and a
    frozen dataclass's ``__init__`` costs several times as much.
    """

    __slots__ = ("end", "exponent", "fvalue", "literal", "percent", "sign", "start", "suffix",
                 "suffix_end", "text", "uncertainty")

    def __init__(self, text: str, start: int, end: int, literal: str, sign: str | None,
                 percent: bool, suffix: str | None, suffix_end: int, uncertainty: bool,
                 exponent: int) -> None:
        self.text = text                # the characters of the number itself: "+1,234.5"
        self.start, self.end = start, end  # end: before any percent sign or unit
        self.literal = literal          # digits as a Decimal literal, sign applied: "-1234.5"
        self.sign = sign                # "+" or "-" when written explicitly
        self.percent = percent          # followed by %, \% or "percent"
        self.suffix = suffix            # the word that follows (glued or after one space)
        self.suffix_end = suffix_end    # end with its percent sign or known unit
        self.uncertainty = uncertainty  # written after ± (an uncertainty, never a value)
        self.exponent = exponent        # place of the last shown digit: 31.4 → -1, 1.2e-3 → -4
        self.fvalue = float(literal)    # the fast path of `check`

    @property
    def digits(self) -> Decimal:
        """The number exactly as written (sign applied, before multiplier and percent)."""
        return Decimal(self.literal)

    def moved(self, base: int) -> Shown:
        """The same number with offsets ``base`` further on."""
        return Shown(self.text, self.start + base, self.end + base, self.literal, self.sign,
                     self.percent, self.suffix, self.suffix_end + base, self.uncertainty,
                     self.exponent)

    def scaled_by(self, multiplier: str) -> Shown:
        """The same number read with ``multiplier`` ("M", "k") as if glued to it, though not
        printed after it (a column header's "Params (M)"): its suffix ends where it does."""
        return Shown(self.text, self.start, self.end, self.literal, self.sign, self.percent,
                     multiplier, self.end, self.uncertainty, self.exponent)

    def __repr__(self) -> str:
        return f"Shown({self.text!r} at {self.start})"

    def display(self) -> str:
        """The number as a reader sees it, with its percent sign or multiplier (the scale:
        ``1.3M``, ``1.3 million``), without a unit."""
        if self.percent:
            return self.text + "%"
        if self.suffix in _MULTIPLIERS and self.suffix_end > self.end:
            glued = self.suffix_end - self.end == len(self.suffix)
            return self.text + ("" if glued else " ") + self.suffix
        return self.text

    def display_unit(self) -> str:
        """The number with the unit or multiplier written after it."""
        if self.suffix is not None and self.suffix_end > self.end and \
                self.suffix not in _MULTIPLIERS:
            return f"{self.text} {self.suffix}"
        return self.display()


def _uncertainty_before(text: str, start: int) -> bool:
    """Is the number at ``start`` written after ``±``/``\\pm``/``+/-`` (an uncertainty)?"""
    head = text[max(0, start - 8):start].rstrip(" $~{")
    return head.endswith(("\u00b1", "\\pm", "+/-", "+-"))


def _in_paired_wholes(text: str, start: int) -> bool:
    """Is the whole number at ``start`` a piece of whole numbers joined by slashes before a
    unit of measure (`_WHOLES_PAIRED`: "108/74 FPS")?"""
    at = start
    while at > 0 and (text[at - 1].isdigit() or text[at - 1] == "/"):
        at -= 1
    pair = _WHOLES_PAIRED.match(text, at)
    return pair is not None and pair.end() > start


def _build(m: re.Match[str], text: str, base: int = 0, comma: bool = False) -> Shown | None:
    """The number ``m`` (of `_NUMBER`, or of `_NUMBER_COMMA` when ``comma``) found, or None
    where it is glued to what stands around it."""
    start, end = m.start(), m.end()
    before = text[start - 1] if start > 0 else " "
    sign = m.group("sign")
    emphasis = False
    if before == "_":
        # Markdown/reST emphasis (`_0.913_`, `__0.913__`) opens after a space or punctuation;
        # `x_1`, `\alpha_1`, `}_1`, `a__1` are subscripts or identifiers, not numbers.
        at = start - 2 if start > 1 and text[start - 2] == "_" else start - 1
        opener = text[at - 1] if at > 0 else " "
        if not (opener.isspace() or opener in _EMPHASIS_OPENERS):
            return None
        emphasis = True
    elif before.isalnum() or (before in _GLUE_BEFORE and not (
            before == "/" and _in_paired_wholes(text, start)) and not (
            before == "/" and (_PAIRED_BEFORE_COMMA if comma else _PAIRED_BEFORE).search(
                text, max(0, start - 64), start - 1)
            and m.group("frac") is not None) and not (
            before == "/" and _PERCENT_NEXT.match(text, end)
            and (_PERCENT_PAIRED_BEFORE_COMMA if comma else _PERCENT_PAIRED_BEFORE).search(
                text, max(0, start - 64), start - 1)) and not (
            before == "/" and _unit_paired(text, start, end))):
        return None
    if before in "-\u2212\u2013:,":
        prev2 = text[start - 2] if start > 1 else " "
        if prev2.isdigit() or (before not in ":," and (prev2.isalpha() or prev2 in ")]")):
            return None  # ResNet-50, top-1, 3-5, 12:30, the 2 of 1,2 (psnr:31.4 is fine)
    if sign and before in ")]":
        return None
    nxt = text[end] if end < len(text) else " "
    nxt2 = text[end + 1] if end + 1 < len(text) else " "
    paired = nxt == "/" and ((m.group("frac") is not None and (
        _PAIRED_AFTER_COMMA if comma else _PAIRED_AFTER).match(text, end + 1))
        or _in_paired_wholes(text, start))
    if (nxt in ".:/-\u2212\u2013,_" and nxt2.isdigit() and not paired) or (
            nxt == "^" and not _FOOTNOTE_MARK.match(text, end)
            and not (m.group("frac") is not None and _SUP_CHANGE.match(text, end))) or (
            nxt == "_" and not emphasis and not _SUB_UNCERTAINTY.match(text, end)
            and not (m.group("frac") is not None and _SUB_CHANGE.match(text, end))):
        return None  # 1.2.3, 12:30, 3/4, 3-5, 1,2 (a list), 10^3, x_1: not values
    _, int_part, frac, frac0, exp, exp2 = m.groups()
    if int_part is None:
        frac = frac0
    literal = (_CSEP_CHARS if comma else _SEP_CHARS).sub("", int_part) \
        if int_part is not None else "0"
    exponent = 0
    if frac is not None:
        literal += "." + frac
        exponent = -len(frac)
    exp = exp or exp2
    if exp is not None:
        exp = exp.replace("\u2212", "-")
        literal += "E" + exp
        exponent += int(exp)
    if sign in ("-", "\u2212"):
        literal = "-" + literal
    percent = False
    suffix: str | None = None
    suffix_end = end
    if nxt in _SUPERSCRIPTS and frac is not None:
        mark = _SUPERSCRIPT_MARK.match(text, end)
        if mark is None:
            return None  # superscript digits glued to more: a power or a word, not a mark
        suffix_end = mark.end()
    sm = _SUFFIX.match(text, suffix_end)
    if sm is not None and "/" in sm.group(1):
        sm = _glued_pair_unit(sm) or sm
    if sm is not None:
        word = sm.group(1)
        if word in ("%", "\\%") or word.lower() == "percent":
            percent, suffix_end = True, sm.end()
        elif norm_unit(word) in _KNOWN_UNITS or word in _MULTIPLIERS:
            suffix, suffix_end = word, sm.end()
        elif sm.start(1) == end:
            return None  # glued to a word that is no unit: 3D, 1st, 2nd
        else:
            suffix = word  # maybe the claim's own unit ("img/s"); `check` decides
    return Shown(m.group(0), start + base, end + base, literal,
                 None if sign is None else ("+" if sign == "+" else "-"), percent, suffix,
                 suffix_end + base, _uncertainty_before(text, start), exponent)


# Where a number token can start: its sign, its first digit, or the point of a bare fraction
# (".5"). `_NUMBER` and `_NUMBER_COMMA` begin with an optional sign, which leaves the regex
# engine no first character to skip ahead to: `finditer` tried a whole match at every position
# of the text (most of what scanning a sentence cost). Skipping to these characters first (a
# search that runs at C speed), then matching there, finds the same tokens (`_tokens`).
_NUMBER_START = re.compile(r"[+\-\u2212.\d]")


def _tokens(number: re.Pattern[str], text: str, start: int, stop: int) -> Iterator[re.Match[str]]:
    """``number.finditer(text, start, stop)``: the same matches (none is empty, and each starts
    at a `_NUMBER_START` character), found faster."""
    find, match = _NUMBER_START.search, number.match
    at = start
    while (candidate := find(text, at, stop)) is not None:
        at = candidate.start()
        m = match(text, at, stop)
        if m is None:
            at += 1
            continue
        yield m
        at = m.end()


def scan_numbers(text: str, start: int = 0, end: int | None = None, *,
                 base: int = 0, comma: bool = False) -> list[Shown]:
    """Every number token in ``text[start:end]`` (offsets relative to ``text``, plus ``base``:
    where ``text`` starts in the segment it was cut from). ``comma``: the text writes decimal
    commas (`decimal_mark.decimal_comma`)."""
    out: list[Shown] = []
    stop = len(text) if end is None else end
    for m in _tokens(_NUMBER_COMMA if comma else _NUMBER, text, start, stop):
        shown = _build(m, text, base, comma)
        if shown is not None:
            out.append(shown)
    return out


def number_at(text: str, pos: int, end: int | None = None, *,
              comma: bool = False) -> Shown | None:
    """The number that starts exactly at ``pos`` (and ends by ``end``), or None."""
    m = (_NUMBER_COMMA if comma else _NUMBER).match(text, pos, len(text) if end is None else end)
    return _build(m, text, 0, comma) if m is not None else None


def parse_number(text: str, *, comma: bool = False) -> Shown | None:
    """The number a whole cell or macro argument shows (leading formatting skipped), or None."""
    for m in (_NUMBER_COMMA if comma else _NUMBER).finditer(text):
        shown = _build(m, text, 0, comma)
        if shown is not None:
            return shown
    return None


class Check:
    """A shown number judged against one expected value. Treat as immutable.

    A plain slotted class, not a frozen dataclass: one is made per number and candidate claim
    (thousands per reconcile), and a frozen dataclass's ``__init__`` costs several times as much.
    """

    __slots__ = ("matches", "plausible", "scale", "unit_ok", "unit_shown")

    def __init__(self, *, matches: bool, unit_ok: bool, unit_shown: str | None,
                 plausible: bool, scale: int) -> None:
        self.matches = matches        # equal at the precision shown (and units compatible)
        self.unit_ok = unit_ok        # no unit shown, or the claim's (or percent on a fraction)
        self.unit_shown = unit_shown
        self.plausible = plausible    # could be this claim's number at all (see `check`)
        self.scale = scale            # power of ten applied to the value (2: percent points)

    def __repr__(self) -> str:
        return (f"Check(matches={self.matches}, unit_ok={self.unit_ok}, "
                f"unit_shown={self.unit_shown!r}, plausible={self.plausible}, "
                f"scale={self.scale})")

    def expected(self, value: float | Decimal) -> float:
        """The claim's value in the scale the number is shown in (91.34 for 0.9134 as %)."""
        return round(float(value) * 10.0 ** self.scale, 12)


def is_percent_unit(unit: str | None) -> bool:
    """Whether ``unit`` is percent (``%``, ``percent``, ``pct``)."""
    return unit is not None and norm_unit(unit) in _PERCENT_UNITS


def is_fraction_unit(unit: str | None) -> bool:
    """Whether ``unit`` names a plain fraction (``fraction``, ``ratio``, ``1``): no unit shown."""
    return unit is not None and norm_unit(unit) in _FRACTION_UNITS


def percent_scale(value: float | Decimal, unit: str | None) -> int:
    """Power of ten that turns a claim's value into the percent points a ``%`` number shows."""
    if unit is None:
        return 0 if abs(float(value)) > 1 else 2  # a bare value above 1 is in percent already
    return 0 if norm_unit(unit) in _PERCENT_UNITS else 2


def is_multiplier(word: str | None) -> bool:
    """Whether ``word`` scales the number before it (``k``, ``M``, ``million``...)."""
    return word is not None and word in _MULTIPLIERS


def pow10(exponent: int) -> float:
    """10.0 ** exponent, infinite instead of OverflowError ("1e400" in a document is a number
    far from every claim, not a crash)."""
    try:
        return 10.0 ** exponent
    except OverflowError:
        return math.inf


def _exact_match(digits: Decimal, value: float | Decimal, scale: int) -> bool:
    """|digits − value·10^scale| ≤ ½·10^exponent(digits) (+ 2⁻⁵⁰ relative), in exact decimal."""
    with localcontext() as ctx:
        ctx.prec = 80
        exact = Decimal(value).scaleb(scale)
        half = _HALF.scaleb(digits.as_tuple().exponent)  # type: ignore[arg-type]
        return abs(digits - exact) <= half + abs(exact) * _EPS


def check(shown: Shown, value: float | Decimal, unit: str | None = None, *,
          percent_context: bool = False, window: float = 2.0) -> Check:
    """Compare ``shown`` with ``value`` (in ``unit``) at the precision the text shows.

    ``percent_context`` says the number is in a percent column (a header with ``%``).
    ``plausible`` is true when the number could be the claim's at all: it matches, or its unit is
    shown and is the claim's, or its magnitude (in the claim's scale) is within a factor
    ``window`` of the value with the same sign. Anchored (hand-typed) numbers that are not
    plausible are other quantities, not drift.

    The comparison runs in floats and falls back to exact decimal arithmetic only when the
    distance is within 10⁻¹² (relative) of half a unit, where float rounding could decide it.
    """
    scale = 0
    unit_shown: str | None = None
    unit_ok = True
    shift = 0
    claim_unit = norm_unit(unit) if unit else None
    if shown.percent or percent_context:
        unit_shown = "%"
        if claim_unit is not None and claim_unit not in _PERCENT_UNITS | _FRACTION_UNITS:
            unit_ok = False
        scale = percent_scale(value, unit)
    unit_says = False  # the unit shown is the claim's: the number is plausibly its own
    if shown.suffix is not None:
        word = norm_unit(shown.suffix)
        if claim_unit is not None and word == claim_unit:
            unit_shown, unit_says = shown.suffix, True
        elif shown.suffix in _MULTIPLIERS:
            if unit is not None and _MULTIPLIERS.get(unit.strip()) == _MULTIPLIERS[shown.suffix]:
                unit_shown, unit_says = shown.suffix, True  # "25.6 million" of a claim in M
            else:
                shift = _MULTIPLIERS[shown.suffix]
        elif word in _KNOWN_UNITS:
            unit_shown = shown.suffix
            # A claim declared without a unit is neither confirmed nor contradicted by one
            # ("31.7 dB" next to a unit-less PSNR claim is compared, not skipped unseen).
            unit_ok = claim_unit is None
    if (scale == 0 and shift == 0 and unit_shown is None and 1 < shown.fvalue <= 100
            and 0 < float(value) <= 1 and (claim_unit is None or claim_unit in _FRACTION_UNITS)):
        # A fraction shown above 1 with no sign is in percent points: tables drop the % ("Top-1
        # Acc." over 76.3 for 0.763); no fraction's own digits read 76.3.
        scale = 2
    target = float(value) * 10.0 ** scale
    number = shown.fvalue * pow10(shift)
    half = 0.5 * pow10(shown.exponent + shift)
    if not unit_ok:
        matches = False
    elif not (math.isfinite(number) and math.isfinite(half)):
        return Check(matches=False, unit_ok=unit_ok, unit_shown=unit_shown, plausible=False,
                     scale=scale)  # beyond floats ("1e400"): no claim is that far out
    elif shift == 0 and scale == 0 and shown.exponent >= 0 and 0 < abs(target) < 1:
        # A whole number said of a fraction ("1 GPU", "0 errors" next to an accuracy of 0.88)
        # carries no digit of it: no paper rounds 0.88 to 1. Neither its match nor its drift.
        return Check(matches=False, unit_ok=unit_ok, unit_shown=unit_shown, plausible=False,
                     scale=scale)
    else:
        distance = abs(number - target)
        margin = 1e-12 * max(abs(number), abs(target), half)
        if distance < half - margin:
            matches = True
        elif distance > half + margin:
            matches = False
        else:
            matches = _exact_match(shown.digits.scaleb(shift), value, scale)
    if matches or unit_says:
        plausible = True
    elif not unit_ok or target == 0 or number == 0:
        plausible = False
    else:
        ratio = number / target
        plausible = 1 / window <= ratio <= window
    return Check(matches=matches, unit_ok=unit_ok, unit_shown=unit_shown, plausible=plausible,
                 scale=scale)
