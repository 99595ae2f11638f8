"""The HTTP API: a Starlette app whose routes are one table (`routes.py`), served by granian (`serve.py`)."""
