"""The `labledger` console script: `emit`'s fast path first, then the full click CLI.

`labledger emit` runs inside training loops and shell hooks, so its start-up is a budget: this
module and the fast path import neither click nor msgspec (together ~40 ms, 4x a bare Python).
The fast path handles the plain form (`emit KIND [--run] [--instance] [--set]... [--data]
[--root]`) when every value is one it can prove valid; everything else, including every error
before the write, goes to the full CLI, which behaves and reports exactly as documented. It lives
outside `labledger.ledger.cli` because importing that package imports click.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if "emit" in args[:3]:
        from labledger.ledger._fast_emit import try_emit

        try:
            code = try_emit(args)
        except KeyboardInterrupt:  # e.g. waiting for the writer lock: nothing was written
            sys.stderr.write("labledger: interrupted\n")
            if "--json" in args:
                sys.stderr.write('{"type": "exit_error", "code": 130, "message": "interrupted", '
                                 '"error": "KeyboardInterrupt"}\n')
            sys.exit(130)
        if code is not None:
            sys.exit(code)
    from labledger.ledger.cli import main as full_main

    full_main(args)


if __name__ == "__main__":  # `python -m labledger.ledger._main ...` runs the CLI as well
    main()
