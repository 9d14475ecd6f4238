"""Public surface: exported names, digest parsing, error rendering, cheap import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import blake3
import pytest
from hypothesis import given
from hypothesis import strategies as st

import labledger.cas as cas
from labledger.cas import (
    CasError,
    MalformedDigestError,
    ObjectCorruptError,
    StoreFullError,
    digest_bytes,
    format_digest,
    is_digest,
    parse_digest,
)
from labledger.cas import errors as errors_module

EXPECTED_EXPORTS = {
    "PREFIX", "TREE_FORMAT", "Batch", "CaseCollisionError", "CasError", "CorruptObject",
    "DestinationExistsError", "Digest", "GcItem", "GcReport", "MalformedDigestError",
    "MalformedTreeError", "NotATreeError", "ObjectCorruptError", "ObjectInfo",
    "ObjectNotFoundError", "ObjectUnreadableError", "PutResult", "SourceChangedError",
    "SourceNotFoundError",
    "SourceUnreadableError", "Store", "StoreFullError", "StoreWriteError",
    "SymlinkRefusedError", "TreeEntry", "UnsafePathError", "UnsupportedFileTypeError",
    "VerifyReport", "decode_tree", "digest_bytes", "encode_tree", "format_digest", "is_digest",
    "parse_digest",
}


def test_exported_names_are_pinned() -> None:
    assert set(cas.__all__) == EXPECTED_EXPORTS
    for name in cas.__all__:
        assert getattr(cas, name) is not None


def test_import_is_cheap_and_independent() -> None:
    code = (
        "import sys, labledger.cas; "
        "bad = [m for m in ('pyarrow', 'duckdb', 'torch', 'click', 'labledger.ledger') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@given(st.binary(max_size=5000))
def test_digest_matches_reference_blake3(data: bytes) -> None:
    expected = "blake3:" + blake3.blake3(data).hexdigest()
    assert digest_bytes(data) == expected
    assert parse_digest(expected) == expected[7:]
    assert is_digest(expected)


@pytest.mark.parametrize(
    "bad",
    [
        "", "blake3:", "blake3:" + "a" * 63, "blake3:" + "a" * 65, "blake3:" + "A" * 64,
        "sha256:" + "a" * 64, "a" * 64, "blake3:" + "g" * 64, "blake3:" + "a" * 64 + "\n",
        " blake3:" + "a" * 64, "BLAKE3:" + "a" * 64,
    ],
)
def test_malformed_digests_are_refused(bad: str) -> None:
    with pytest.raises(MalformedDigestError) as info:
        parse_digest(bad)
    assert info.value.value == bad
    assert "64 lowercase hex" in str(info.value)
    assert not is_digest(bad)
    assert isinstance(info.value, ValueError)


@given(st.text(max_size=80))
def test_arbitrary_text_is_either_a_digest_or_refused(text: str) -> None:
    if is_digest(text):
        assert format_digest(parse_digest(text)) == text
    else:
        with pytest.raises(MalformedDigestError):
            parse_digest(text)


def test_format_digest_refuses_bad_hex() -> None:
    with pytest.raises(MalformedDigestError):
        format_digest("xyz")


def test_every_error_renders_json_with_its_fields(tmp_path: Path) -> None:
    err = ObjectCorruptError("blake3:" + "a" * 64, tmp_path / "obj", tmp_path / "q",
                             "blake3:" + "b" * 64)
    doc = err.to_json()
    assert doc["error"] == "ObjectCorruptError"
    assert doc["digest"] == "blake3:" + "a" * 64
    assert doc["path"] == str(tmp_path / "obj")
    assert doc["quarantine_path"] == str(tmp_path / "q")
    assert "check --deep" in doc["message"]
    json.dumps(doc)
    full = StoreFullError(tmp_path, 28, tmp_path / "src")
    assert full.to_json()["errno_name"] == "ENOSPC"
    assert "Free space" in str(full)
    subclasses = [c for c in vars(errors_module).values()
                  if isinstance(c, type) and issubclass(c, CasError) and c is not CasError]
    assert len(subclasses) >= 15
    for cls in subclasses:
        assert cls.__name__.endswith("Error")
        assert cls.__name__ in cas.__all__
