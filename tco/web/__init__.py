"""The web calculator: its views, URLs, page cache and the charts' page data (its form and
presets: tco/inputs; the server choice and result URLs: tco/analysis/calculator.py)."""
