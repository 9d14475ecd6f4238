"""Bytes to text for the files reconcile and claims read (documents, CSV results).

UTF-8 (with or without a byte-order mark), or UTF-16 when the file starts with a UTF-16
byte-order mark: Excel's "Unicode Text" export and older Windows editors write that, and the
mark makes the reading unambiguous. Anything else that is not UTF-8 is refused by the caller,
never guessed.
"""

from __future__ import annotations

import codecs

_UTF16_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def decode_text(data: bytes) -> str:
    """``data`` as text; `UnicodeDecodeError` when it is neither UTF-8 nor marked UTF-16."""
    if data.startswith(_UTF16_MARKS):
        return data.decode("utf-16")  # the codec reads the mark for the byte order, drops it
    return data.decode("utf-8-sig")


def undecodable(data: bytes, exc: UnicodeDecodeError) -> str:
    """What `decode_text` refused, in a message's words: "not UTF-8 text (byte 0: ...)", or,
    for a file with a UTF-16 mark that does not decode, that (not "not UTF-8")."""
    what = "UTF-16 text (it starts with a UTF-16 byte-order mark)" \
        if data.startswith(_UTF16_MARKS) else "UTF-8 text"
    return f"not {what} (byte {exc.start}: {exc.reason})"
