"""MeMesh: local-first memory for AI coding agents."""

__version__ = "0.1.0"
# The upstream API reference this implementation follows.
SPEC_VERSION = "4.10.11"
