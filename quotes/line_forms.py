"""Forms of the line editor (inline line edits, free lines, the quote discount) and the
margin approval. Decimal fields are localised: a Dutch user types 2,5 (and "1,234", which
reads two ways, is refused: common.numbers)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from common.bounds import LEAD_TIME_WEEKS
from common.numbers import LocalizedDecimalField

from .models import LineKind, LineUnit

MAX_MONEY = Decimal("999999999999")


def _decimal(label: Any, *, required: bool = True, **kwargs: Any) -> forms.DecimalField:
    field = LocalizedDecimalField(
        label=label,
        required=required,
        decimal_places=2,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
        **kwargs,
    )
    return field


def _quantity() -> forms.DecimalField:
    field = _decimal(
        _("Quantity"), min_value=Decimal("0.01"), max_value=Decimal("100000"), max_digits=10
    )
    # Django formats these messages with %-params: a literal percent sign is written %%.
    field.error_messages["min_value"] = _("The quantity must be greater than zero.")
    field.error_messages["max_value"] = _("The quantity is too large.")
    return field


def _price(label: Any, required: bool = True) -> forms.DecimalField:
    field = _decimal(label, required=required, min_value=Decimal(0), max_value=MAX_MONEY)
    field.error_messages["min_value"] = _("An amount cannot be negative.")
    return field


def _discount() -> forms.DecimalField:
    field = _decimal(
        _("Discount %"), required=False, min_value=Decimal(0), max_value=Decimal(100), max_digits=5
    )
    field.error_messages["min_value"] = _("Enter a discount between 0 and 100 %%.")
    field.error_messages["max_value"] = _("Enter a discount between 0 and 100 %%.")
    return field


class LineEditForm(forms.Form):
    """One line, edited in its table row (fields are prefixed with the line's id)."""

    description = forms.CharField(label=_("Description"), max_length=300, required=False)
    quantity = _quantity()
    unit = forms.ChoiceField(label=_("Unit"), choices=LineUnit.choices)
    unit_price = _price(_("Unit price"))
    discount_pct = _discount()
    cost_price = _price(_("Unit cost"), required=False)
    # A per-system line's quantity other than its system's needs a reason (services.bom).
    quantity_reason = forms.CharField(
        label=_("Reason for another quantity (internal)"), max_length=300, required=False
    )

    def __init__(self, *args: Any, free: bool = False, child: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.free = free
        if not child:
            del self.fields["quantity_reason"]
        if free:
            self.fields["description"].required = True
            self.fields["cost_price"].required = True
        else:
            del self.fields["description"]
            del self.fields["cost_price"]


class LineDeliveryForm(forms.Form):
    """A server line's delivery set by hand: the lead time (0: from stock) and why."""

    lead_time_weeks = _decimal(
        _("Lead time (weeks)"),
        required=False,
        min_value=LEAD_TIME_WEEKS.low,  # common/bounds.py: as the stock feed
        max_value=LEAD_TIME_WEEKS.high,
        max_digits=5,
        help_text=_("0: delivered from stock. Empty: the catalog's stock and lead time."),
    )
    reason = forms.CharField(
        label=_("Reason (internal)"),
        max_length=300,
        required=False,
        help_text=_("For example: confirmed by the vendor on 2 December."),
    )


class FreeLineForm(forms.Form):
    description = forms.CharField(label=_("Description"), max_length=300)
    kind = forms.ChoiceField(label=_("Kind"), choices=LineKind.choices, initial=LineKind.OTHER)
    quantity = _quantity()
    unit = forms.ChoiceField(label=_("Unit"), choices=LineUnit.choices)
    unit_price = _price(_("Unit price"))
    cost_price = _price(_("Unit cost"))
    discount_pct = _discount()
    optional = forms.BooleanField(label=_("Optional item"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The catalog line form on the same page has fields of the same names: own ids.
        kwargs.setdefault("auto_id", "id_free_%s")
        super().__init__(*args, **kwargs)


class QuoteDiscountForm(forms.Form):
    discount_pct = _decimal(
        _("Quote discount %"),
        min_value=Decimal(0),
        max_value=Decimal(100),
        max_digits=5,
        error_messages={
            "min_value": _("Enter a discount between 0 and 100 %%."),
            "max_value": _("Enter a discount between 0 and 100 %%."),
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "id_quote_%s")  # a line's discount field is on the page too
        super().__init__(*args, **kwargs)


class ApprovalRequestForm(forms.Form):
    note = forms.CharField(
        label=_("Why this price?"),
        max_length=2000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    # The sales manager of another team or the administrator who decides, when the team
    # has no other manager to ask (services.approval_request checks who may be chosen).
    escalate_to = forms.IntegerField(required=False, min_value=1)


class ApprovalDecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", _("Approve")), ("reject", _("Reject"))])
    reason = forms.CharField(
        label=_("Reason"), max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
