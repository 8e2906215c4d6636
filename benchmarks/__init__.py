"""Benchmarks of arena: engine speed, peers, tournament scaling and rating fits.

Plain scripts that print markdown tables; ``python -m benchmarks`` runs them all
(``benchmarks/run.py``).  Results and how to reproduce them: ``docs/performance.md``.
(The ``strength_*.py`` scripts beside them measure agents' playing strength.)
"""
