"""What every app and config share: small web and process helpers with no app of their own.

Apps (catalog, tco, quotes, api) and config import from here; nothing here imports an app
or config (tests/test_architecture.py).
"""
