"""The charts' words in the reader's language: titles, axes, legends and option names.

Apart from tco/web so that a proposal (quotes) and the page label their charts alike without
the quotes app importing the calculator's web layer.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from tco.presentation.charts import ChartLabels, ChartSeries
from tco.presentation.wording import cloud_label

# Plotly's `separators`: decimal mark, then thousands separator.
SEPARATORS = {"en": ".,", "nl": ",."}


def chart_labels(series: ChartSeries | None = None) -> ChartLabels:
    """ChartLabels translated into the active language (with ``series``: its option names)."""
    return ChartLabels(
        option_names=tuple((name, cloud_label(name)) for name in series.option_names)
        if series is not None
        else (),
        cumulative_title=_("Cumulative cost over time"),
        breakdown_title=_("On-prem cost by year"),
        utilization_title=_("Total cost over the horizon by utilization"),
        tornado_title=_("What moves the saving from buying instead of renting {option}"),
        month=_("Month"),
        year=_("Year"),
        year_tick=_("Year {year}"),
        cost=_("Cost ({currency})"),
        cumulative_cost=_("Cumulative cost ({currency})"),
        total_cost=_("Total cost ({currency})"),
        utilization=_("Utilization"),
        onprem=_("On-prem"),
        resell=_("Buy, run and resell"),
        breakdown_resell_title=_("Buying, running and reselling: cost by year"),
        break_even=_("Break-even"),
        break_even_annotation=_("Break-even {percent} %"),
        crossover=_("Crossover"),
        crossover_annotation=_("Month {month}"),
        current_utilization=_("Planned utilization"),
        purchase=_("Purchase"),
        lease=_("Lease"),
        energy=_("Energy"),
        colocation=_("Colocation"),
        support=_("Support"),
        staff=_("Staff"),
        software=_("Software"),
        insurance=_("Insurance"),
        residual=_("Residual value"),
        net_total=_("Net total"),
        tornado_axis=_("NPV saving of buying ({currency})"),
        tornado_low=_("Input −{pct} %"),
        tornado_high=_("Input +{pct} %"),
        base=_("Base"),
        input_value=_("Input value"),
        carbon_title=_("CO₂ of each option over the horizon"),
        carbon_axis=_("Tonnes CO₂"),
        confidence_title=_("How sure: the saving across {draws} plausible futures"),
        confidence_axis=_("Saving of the recommended choice ({currency})"),
        confidence_count=_("Futures"),
        confidence_own=_("Owning cheaper"),
        confidence_rent=_("Renting cheaper"),
        input_names=(
            ("electricity_price_per_kwh", _("Electricity price")),
            ("pue", _("PUE")),
            ("utilization", _("Utilization")),
            ("server_price", _("Hardware price")),
            ("cloud_price_scale", _("Cloud prices")),
            ("support_pct_per_year", _("Support %")),
            ("horizon_months", _("Horizon")),
            ("discount_rate", _("Discount rate")),
            ("colocation_per_kw_month", _("Colocation price")),
            ("staff_annual_cost", _("Staff cost")),
        ),
    )
