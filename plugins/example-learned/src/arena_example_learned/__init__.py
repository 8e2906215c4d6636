"""An example learned arena agent: ``learned``, a small numpy policy for Slovak Lorum trained by imitation."""

__version__ = "0.1.0"
