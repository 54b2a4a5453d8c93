"""The web client's built files (``static/``), served by ``paiju serve``'s web port.

The client's sources and build live elsewhere; only its output is committed here, so that
running the server needs no Node.
"""
