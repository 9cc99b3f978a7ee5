"""The calculator's inputs: its form (forms.py), the presets it starts from (presets.py), the
table of its fields and the scenario document's paths they set (field_paths.py) and the
canonical query of a result URL (canonical.py).

Below the web layer (tco/web: views, URLs, the page cache), so that the front door's reading
of a calculator result URL (tco.analysis.calculator) needs no view: quotes and leads start
from one.
"""
