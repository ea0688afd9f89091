"""A measuring worker: `python -m lamina.tuning.worker [LOCK]`.

Reads jobs (`MeasureInput` as JSON, one per line) on stdin and answers each with
a `MeasureResult` (JSON, one line) on stdout; LOCK is the machine's timing lock
file. Native code and libraries that print write to stderr instead: stdout is
the protocol's alone. The runner that started the worker survives its crashes
and hangs (`lamina.tuning.runners`).
"""

from __future__ import annotations

import json
import os
import sys

from lamina.tuning.measure import MeasureInput, MeasureResult, References, measure


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    lock = args[0] if args else None
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what prints to stdout (fd 1) goes to stderr from now on
    sys.stdout = sys.stderr
    references = References()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            job = MeasureInput.from_json(json.loads(line))
        except (TypeError, ValueError) as e:
            result = MeasureResult.bad("error", f"bad job: {e}")
        else:
            result = measure(job, references, lock)
        protocol.write(json.dumps(result.to_json()) + "\n")
        protocol.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
