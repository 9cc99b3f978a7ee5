"""The typed report: one evaluation's result as every output renders it.

``build_report`` turns the engine's result into a :class:`Report` once; the calculator page,
the proposal PDF (from a revision's stored JSON), the API (its OpenAPI schema is the
report's), the command line and the workbook all read it. Its JSON form is
``Report.to_json()`` / ``Report.from_json()`` (docs/api.md, "The report"). Pure Python and
pydantic: no Django.

Beside it, the series the charts draw (tco/report/chart_series.py: ``chart_series``, computed
once per analysis, ``Analysis.chart_series``): typed numpy series at the engine's precision,
not part of the report's JSON (a proposal stores its figures as drawn).
"""

from tco.report.build import build_report
from tco.report.models import (
    Bridge,
    Capacity,
    Confidence,
    Constraints,
    Demand,
    ExcludedOffering,
    ExcludedOption,
    HorizonRow,
    Horizons,
    Hybrid,
    Lease,
    LeaseTerm,
    Note,
    Option,
    OptionKind,
    OwningExtras,
    Racks,
    Report,
    Serving,
    Sizing,
    Timing,
    Tornado,
    TornadoBar,
    Verdict,
)

__all__ = [
    "Bridge",
    "Capacity",
    "Confidence",
    "Constraints",
    "Demand",
    "ExcludedOffering",
    "ExcludedOption",
    "HorizonRow",
    "Horizons",
    "Hybrid",
    "Lease",
    "LeaseTerm",
    "Note",
    "Option",
    "OptionKind",
    "OwningExtras",
    "Racks",
    "Report",
    "Serving",
    "Sizing",
    "Timing",
    "Tornado",
    "TornadoBar",
    "Verdict",
    "build_report",
]
