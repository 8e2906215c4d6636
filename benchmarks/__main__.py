"""``python -m benchmarks``: every benchmark, one markdown table (see ``benchmarks/run.py``)."""

from benchmarks.run import main

main()
