"""Signals of the catalog app."""

from django.dispatch import Signal

# Sent once when a transaction that wrote catalog rows in bulk (a price import, the seed
# load) has committed. Bulk writes send no post_save per row, so listeners that must learn
# of every catalog change (the calculator's caches, tco/apps.py) listen to this too.
catalog_written = Signal()
