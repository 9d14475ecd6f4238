"""A paper's project page (``index.html``) is reconciled as the text a browser shows
(`html_pages`).

Before, `labledger reconcile index.html` refused the file (an unknown type); read as Markdown,
a page's script (``var psnr = 30.55``) drifted, and its prose, one "sentence" from ``<body>`` to
``</body>`` (a page's paragraphs are tags, not blank lines), hid a moved ``31.5`` among the
layout's numbers. Now scripts, styles, SVG, code (a BibTeX entry) and comments are blanked,
block tags end sentences, headings read as Markdown headings, entities are their characters,
and tables are `html_tables`'.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.doc_sources import resolve_documents
from labledger.reconcile.drift import reconcile_paths
from labledger.reconcile.html_pages import page_text
from tests.reconcile.test_documents import CLAIMS, claim, judge

CLAIMED = [CLAIMS["C1"], CLAIMS["C0"], CLAIMS["A1"]]
PAGE = """<!DOCTYPE html>
<html><head><title>FooNet: Sharper Super-Resolution</title>
<meta name="description" content="Ours reaches 31.5 dB PSNR">
<style>.psnr { width: 31.5px; margin: 20px }</style>
<script>var psnr = 30.55; // PSNR</script>
</head>
<body>
<div class="content" style="width: 960px">
<h2 class="title is-3">Results</h2>
<p>Ours reaches a <b>PSNR</b> of <span class="num">31.5</span>&nbsp;dB on Set5,
while the top-1 accuracy is 91.3&#37;.</p><p>Baseline reaches 30.10 dB PSNR.</p>
<img src="psnr_31.40.png" alt="PSNR curve"
     width="560">
<table>
<tr><th>Method</th><th>PSNR</th></tr>
<tr><td>Ours</td><td>31.42</td></tr>
<tr><td>Baseline</td><td>30.2</td></tr>
</table>
<pre><code>@article{foo2024, title={FooNet PSNR}, year={2024}, pages={31--40}}</code></pre>
<!-- PSNR 12.0 in an old draft -->
<p><!-- claim:C1 -->31.42 is marked.</p>
</div></body></html>
"""


@pytest.mark.parametrize("name", ["index.html", "page.htm", "INDEX.HTML"])
def test_a_project_page_is_judged_as_shown(name: str) -> None:
    report = judge(PAGE, CLAIMED, name)
    assert [(f.type, f.line, f.col, f.claims, f.shown) for f in report.findings] == [
        ("drift", 10, 52, ("C1",), "31.5"), ("drift", 17, 26, ("C0",), "30.2")]
    assert [(m.line, m.claims, m.shown, m.via) for m in report.matches] == [
        (11, ("A1",), "91.3%", "anchor"), (11, ("C0",), "30.10", "anchor"),
        (16, ("C1",), "31.42", "table"), (21, ("C1",), "31.42", "marker")]


def test_what_a_browser_does_not_show_as_text_is_blanked() -> None:
    shown = page_text(PAGE)
    for hidden in ("30.55", "width: 31.5px", "2024", "12.0", "psnr_31.40", "560"):
        assert hidden in PAGE
        assert hidden not in shown, hidden
    assert "##" in shown.splitlines()[8]  # <h2> opening a line: a Markdown heading
    assert "<table>" in shown  # for html_tables
    assert "<!-- claim:C1 -->" in shown  # for the marker reader


@pytest.mark.parametrize(("html", "shown", "drift"), [
    ("<p>Ours: PSNR 31.42&plusmn;0.05 dB.</p>", ["31.42"], []),  # ± a spread, not a value
    ("<p>Ours: PSNR 31.42 &plusmn; 0.95 dB.</p>", ["31.42"], []),
    ("<p>Ours: PSNR 31.5&nbsp;dB.</p>", [], ["31.5"]),
    ("<p>Ours gains &minus;1.3 dB PSNR over nothing.</p><p>Ours: PSNR 31.42.</p>",
     ["31.42"], []),
    ("<ul><li>Ours: PSNR 31.42</li><li>Baseline: PSNR 30.1</li></ul>", ["31.42", "30.1"], []),
    ("<p>Ours: PSNR 31.42<br>Baseline: PSNR 30.5</p>", ["31.42"], ["30.5"]),
    ("<p>Ours: PSNR <code>31.5</code> in the code.</p>", [], []),
])
def test_prose_of_a_page(html: str, shown: list[str], drift: list[str]) -> None:
    report = judge(html, CLAIMED, "index.html")
    assert [f.shown for f in report.findings if f.type == "drift"] == drift
    assert [m.shown for m in report.matches] == shown


def test_a_page_in_a_folder_given_is_read(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.html").write_text(PAGE)
    paths = resolve_documents([str(tmp_path / "docs")], tmp_path, None)
    report = reconcile_paths(paths, CLAIMED, cwd=tmp_path, jobs=1)
    assert [f.path for f in report.findings] == ["docs/index.html", "docs/index.html"]


_PIECES = ["<p>", "</p>", "<h2>", "</h2>", "<br>", "<div\nclass='x'>", "<script>", "</script>",
           "<pre>", "</pre>", "<!--", "-->", "<!-- claim:C1 -->", "&nbsp;", "&plusmn;",
           "&#37;", "&bogus;", "<table>", "</table>", "<td>", "31.42", " PSNR ", "\n", "\r\n",
           "<", ">", "&", "é", "\udcff"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_page_text_keeps_every_offset_and_line(text: str) -> None:
    shown = page_text(text)
    assert len(shown) == len(text)
    assert [i for i, c in enumerate(shown) if c == "\n"] == \
        [i for i, c in enumerate(text) if c == "\n"]


def test_a_site_built_from_the_sources_is_not_searched(tmp_path: Path) -> None:
    """Sphinx's ``_build`` and Jekyll's ``_site`` restate the sources beside them: a folder
    given is searched without them (each finding would be reported twice)."""
    for name in ("docs/index.html", "docs/_build/html/index.html", "docs/_site/index.html"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(PAGE)
    assert resolve_documents([str(tmp_path / "docs")], tmp_path, None) == \
        [tmp_path / "docs" / "index.html"]
    built = tmp_path / "docs" / "_build" / "html" / "index.html"
    assert resolve_documents([str(built)], tmp_path, None) == [built]  # named: read


# A page of the shape the Nerfies template gives most project pages (nerfies.github.io's
# index.html: indented sections, a multi-line <meta>, analytics scripts, <sup> affiliations,
# a <video>'s height="100%", a slider's min/max, an <iframe>'s &amp;, the BibTeX in
# <pre><code>, the licence's 4.0), with a results paragraph and table added.
TEMPLATE = """<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <meta name="description"
        content="FooNet reaches 31.5 dB PSNR on Set5">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>FooNet: Sharper Super-Resolution</title>
  <script async src="https://www.googletagmanager.com/gtag/js?id=G-PYVRSFMDRL"></script>
  <script>
    window.dataLayer = window.dataLayer || [];
    gtag('config', 'G-PYVRSFMDRL', {psnr: 30.55});
  </script>
  <link rel="stylesheet"
        href="https://cdn.jsdelivr.net/gh/jpswalsh/academicons@1/css/academicons.min.css">
</head>
<body>
<section class="hero">
  <div class="hero-body">
    <div class="container is-max-desktop">
          <h1 class="title is-1 publication-title">FooNet: Sharper Super-Resolution</h1>
          <div class="is-size-5 publication-authors">
            <span class="author-block">
              <a href="https://keunhong.com">A. Author</a><sup>1</sup>,</span>
            <span class="author-block">
              <a href="https://x.com">B. Author</a><sup>1,2</sup>
            </span>
          </div>
          <div class="is-size-5 publication-authors">
            <span class="author-block"><sup>1</sup>University of Washington,</span>
            <span class="author-block"><sup>2</sup>Google Research</span>
          </div>
              <span class="link-block">
                <a href="https://arxiv.org/pdf/2011.12948"
                   class="external-link button is-normal is-rounded is-dark">
                  <span>arXiv</span>
                </a>
              </span>
    </div>
  </div>
</section>
<section class="hero teaser">
      <video id="teaser" autoplay muted loop playsinline height="100%">
        <source src="./static/videos/teaser.mp4"
                type="video/mp4">
      </video>
      <h2 class="subtitle has-text-centered">
        <span class="dnerf">FooNet</span> turns 4x upscaled selfies into sharp
        portraits.
      </h2>
</section>
<section class="section">
        <h2 class="title is-3">Results</h2>
        <div class="content has-text-justified">
          <p>
            On Set5, <span class="dnerf">FooNet</span> reaches a PSNR of 31.42 dB, 1.32 dB above
            Bicubic (30.10 dB), with 8 layers and a batch size of 16.
          </p>
        </div>
            <input class="slider is-fullwidth is-large is-info"
                   id="interpolation-slider"
                   step="1" min="0" max="100" value="0" type="range">
          <iframe src="https://www.youtube.com/embed/MrKrnHhk8IA?rel=0&amp;showinfo=0"
                  frameborder="0" allow="autoplay; encrypted-media" allowfullscreen></iframe>
        <table class="table is-bordered">
          <thead><tr><th>Method</th><th>PSNR</th><th>SSIM</th></tr></thead>
          <tbody>
            <tr><td>Bicubic</td><td>30.10</td><td>0.868</td></tr>
            <tr><td><b>FooNet</b></td><td><b>31.42</b></td><td><b>0.912</b></td></tr>
          </tbody>
        </table>
</section>
<section class="section" id="BibTeX">
    <h2 class="title">BibTeX</h2>
    <pre><code>@article{park2021foonet,
  title     = {FooNet: 31.52 dB PSNR},
  year      = {2021},
}</code></pre>
</section>
<footer class="footer">
          <p>
            This website is licensed under a <a rel="license"
                                                href="http://creativecommons.org/licenses/by-sa/4.0/">Creative
            Commons Attribution-ShareAlike 4.0 International License</a>.
          </p>
</footer>
</body>
</html>
"""
TEMPLATE_CLAIMS = [claim("P1", "psnr", 31.42, unit="dB", aliases=("FooNet",)),
                   claim("P0", "psnr", 30.10, unit="dB", aliases=("Bicubic",), run="r0"),
                   claim("S1", "ssim", 0.912, aliases=("FooNet",))]


def test_a_template_page_is_judged_only_where_it_states_results() -> None:
    report = judge(TEMPLATE, TEMPLATE_CLAIMS, "index.html")
    assert report.findings == []
    assert [(m.line, m.claims, m.shown) for m in report.matches] == [
        (56, ("P1",), "31.42"), (57, ("P0",), "30.10"), (68, ("P0",), "30.10"),
        (69, ("P1",), "31.42"), (69, ("S1",), "0.912")]
    moved = TEMPLATE.replace("<td><b>31.42</b></td>", "<td><b>31.52</b></td>")
    drifted = judge(moved, TEMPLATE_CLAIMS, "index.html")
    assert [(f.type, f.line, f.claims, f.shown) for f in drifted.findings] == [
        ("drift", 69, ("P1",), "31.52")]


# df.to_html(float_format="%.2f") as pandas 3.1.1 writes it (the index name on a second
# header row, the row labels in <th>), pasted into a page
PANDAS_HTML = """<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th></th>
      <th>PSNR</th>
      <th>SSIM</th>
    </tr>
    <tr>
      <th>method</th>
      <th></th>
      <th></th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th>Bicubic</th>
      <td>30.10</td>
      <td>0.87</td>
    </tr>
    <tr>
      <th>FooNet</th>
      <td>31.42</td>
      <td>0.91</td>
    </tr>
  </tbody>
</table>"""


def test_a_pandas_table_on_a_page_is_judged() -> None:
    page = "<html><body><h2>Results</h2>\n" + PANDAS_HTML + "</body></html>\n"
    report = judge(page, TEMPLATE_CLAIMS + [claim("S0", "ssim", 0.868, aliases=("Bicubic",),
                                                    run="r0")], "index.html")
    assert report.findings == []
    assert sorted(m.claims for m in report.matches) == [("P0",), ("P1",), ("S0",), ("S1",)]
    moved = judge(page.replace("31.42", "31.52"), TEMPLATE_CLAIMS, "index.html")
    assert [(f.claims, f.shown) for f in moved.findings] == [(("P1",), "31.52")]
