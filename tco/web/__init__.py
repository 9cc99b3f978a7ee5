"""The web calculator: its form, views, URLs, presets, page cache and the charts' page data."""
