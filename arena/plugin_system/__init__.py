"""The plugin system, one job a module, from the bottom up (trust by origin: docs/security.md).

``registry`` (what a registry holds: plain data), ``data`` (what a plugin reports, checked as untrusted data),
``sources`` (where plugins come from, found without running them), ``provenance`` (a plugin's files hash),
``source_only`` (a third-party plugin's modules run from source), ``origin`` (whether an agent is arena's own),
``registration`` (importing one plugin in this process), ``reporters`` (calling each reporter on its own),
``discovery`` (importing one third-party plugin in a sandboxed child), and on top ``loading``, which builds the
driver's registry (re-exported as ``arena.plugins``), and ``extensions``, which installs what trusted plugins
add to the driver's rating methods, formats and views.  This package imports none of them itself, so that a
sandboxed process importing a lower module never loads the layers above it.
"""
