"""A quote revision's TCO analysis as the Excel model (tco.presentation.workbook).

The analysis of the quoted deal (see revision_workbook), or else the attached one,
evaluated again from what the revision keeps: the scenario document (the
calculator query's, for the server the analysis chose; or the one a draft created through
the API was given), priced with the catalog prices in effect on the day the analysis was
made (the price history, as ``as_of`` in a scenario document), so that the workbook shows
the analysis attached to the quote even after prices changed.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from tco.analysis import AnalysisError, CatalogSnapshot, analyse
from tco.analysis.calculator import calculator_document

from .models import QuoteRevision
from .services import QuoteError
from .services.deal import deal_document, deal_inputs


def analysis_document(tco: dict[str, Any]) -> dict[str, Any]:
    """The scenario document behind a revision's attached analysis, dated to that analysis."""
    if tco.get("scenario"):
        document = dict(tco["scenario"])
    elif tco.get("query"):
        server_key = str((tco.get("server") or {}).get("key"))
        calculated = calculator_document(
            query=tco["query"], server_key=server_key, catalog=CatalogSnapshot.load()
        )
        if calculated is None:
            raise QuoteError("The attached analysis cannot be evaluated again.")
        document = calculated.model_dump(mode="json", exclude_unset=True)
    else:
        raise QuoteError("This revision has no TCO analysis.")
    computed = parse_datetime(tco.get("computed_at") or "")
    if computed is not None and "as_of" not in document:
        document["as_of"] = timezone.localdate(computed).isoformat()
    return document


def revision_workbook(*, revision: QuoteRevision) -> tuple[bytes, str]:
    """(xlsx bytes, name for the file) of the revision's analysis, or QuoteError.

    A revision with server lines gets the analysis of the quoted deal (its fleet and net
    prices, as on the page and in the PDF: quotes/services/deal.py); one without, the
    attached calculator analysis.
    """
    name = f"{revision.quote.number}-{revision.letter}"
    tco = revision.tco or {}
    try:
        deal = deal_inputs(revision=revision)
        if deal.server_key is not None:
            document, catalog = deal_document(tco, deal)
            analysis = analyse(document, catalog=catalog)
        else:
            analysis = analyse(analysis_document(tco))
    except AnalysisError as exc:
        raise QuoteError(str(exc)) from exc
    from tco.presentation.workbook import analysis_workbook  # openpyxl loads on first use

    content = analysis_workbook(analysis, title=f"GPU TCO model, quote {name}")
    return content, name
