"""Pledge, an example arena game shipped as its own package (rules: README.md)."""

__version__ = "0.1.0"
