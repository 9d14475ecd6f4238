"""The BLAKE3 content-addressed store (CAS) under ``.labledger/cas/``.

Storage invariants (each MUST holds for every writer; the cost of breaking it follows):

* Objects are named ``blake3:<64 lowercase hex>`` and live at ``objects/ab/cdef…`` (the first
  two hex characters name a fan-out directory, the other 62 the file). An object's bytes are
  exactly the content; nothing else is in the file, so ``b3sum`` of it prints its name.
* A writer MUST read the source once, hash exactly the bytes it writes into a temp file in
  ``tmp/`` (same filesystem, names ending ``.labledger-tmp``), fsync that file, ``os.replace`` it
  under its digest, then fsync the fan-out directory. Breaking the order can leave a partial
  object under a real digest after a crash. A batch (`Store.batch`) MAY defer the syncs but MUST
  make every temp file durable before renaming any of them, and return only after the renames
  are durable.
* Objects are read-only (``0o444``) from the moment they are visible and are never modified in
  place; identical content is stored once. Putting content that already exists refreshes the
  object's mtime, so gc's grace period covers the window before an event references it.
* A file a writer builds in ``tmp/`` itself and hands over (`Store.adopt`, `Batch.adopt`: a
  pull's partial file) is adopted only under an exclusive ``flock`` on it (`_stage.Claim`),
  which its writer holds from before its first append to the commit; a file another process
  holds is refused, and one that is not as long as its writer hashed, or no longer the claimed
  file, is never moved under a digest. Else two writers of one file interleave their appends
  and the first to finish stores bytes that do not hash to its name.
* A source that changes while it is read (size, mtime, ctime or inode differ before and after,
  or the bytes read differ from the size) is refused; nothing is stored.
* Objects MUST be written before any event that references them (the ledger's rule: write
  objects first, events second). A tree object is written after all of its files are durable.
* Trees are canonical JSON documents starting ``{"format":"labledger.tree.v1",`` with sorted,
  validated entries (see `labledger.cas.tree`); symlinks are recorded, never followed.
* An object whose bytes do not match its name is moved to ``quarantine/<hex>-<UTC time>`` and
  reported (`ObjectCorruptError`, or listed by `Store.verify_all`); it is never deleted. The
  store knows no events: whoever reads through it MUST record the quarantine in the ledger
  (``object.quarantined``), else the ledger keeps vouching for bytes that are gone. Only gc
  deletes, and only objects that nothing references and that are older than the grace period.
* A reader that hands bytes on where they cannot be taken back (``cas cat`` to stdout) verifies
  the whole object first; ``read_chunks`` alone reports a mismatch only after the last chunk.
"""

from labledger.cas.batch import Batch
from labledger.cas.digest import (
    PREFIX,
    Digest,
    digest_bytes,
    format_digest,
    is_digest,
    parse_digest,
)
from labledger.cas.errors import (
    CaseCollisionError,
    CasError,
    DestinationExistsError,
    MalformedDigestError,
    MalformedTreeError,
    NotATreeError,
    ObjectCorruptError,
    ObjectNotFoundError,
    ObjectUnreadableError,
    SourceChangedError,
    SourceNotFoundError,
    SourceUnreadableError,
    StoreFullError,
    StoreWriteError,
    SymlinkRefusedError,
    UnsafePathError,
    UnsupportedFileTypeError,
)
from labledger.cas.results import (
    CorruptObject,
    GcItem,
    GcReport,
    ObjectInfo,
    PutResult,
    VerifyReport,
)
from labledger.cas.store import Store
from labledger.cas.tree import TREE_FORMAT, TreeEntry, decode_tree, encode_tree

__all__ = [
    "PREFIX",
    "TREE_FORMAT",
    "Batch",
    "CaseCollisionError",
    "CasError",
    "CorruptObject",
    "DestinationExistsError",
    "Digest",
    "GcItem",
    "GcReport",
    "MalformedDigestError",
    "MalformedTreeError",
    "NotATreeError",
    "ObjectCorruptError",
    "ObjectInfo",
    "ObjectNotFoundError",
    "ObjectUnreadableError",
    "PutResult",
    "SourceChangedError",
    "SourceNotFoundError",
    "SourceUnreadableError",
    "Store",
    "StoreFullError",
    "StoreWriteError",
    "SymlinkRefusedError",
    "TreeEntry",
    "UnsafePathError",
    "UnsupportedFileTypeError",
    "VerifyReport",
    "decode_tree",
    "digest_bytes",
    "encode_tree",
    "format_digest",
    "is_digest",
    "parse_digest",
]
