"""Generated gRPC stubs of the Paiju contracts (``protos/``); never edited by hand.

Regenerate with ``.venv/bin/python scripts/gen_protos.py``.
"""
