"""The `memesh` command line: one Cyclopts app (`app.py`); `commands/` declares flags, `actions/` runs them."""
