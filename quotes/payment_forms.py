"""The draft's payment terms form: up to six milestones (event and share) and the billing
of each support line. The form parses; services.revision_set_payment_terms decides (the
milestones must add up to 100 %)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from common.numbers import LocalizedDecimalField

from .billing import MAX_MILESTONES, LineBilling, PaymentEvent
from .models import QuoteLine


def _event_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        label=_("When"), choices=[("", "—"), *PaymentEvent.choices], required=False
    )


def _share_field() -> forms.DecimalField:
    return LocalizedDecimalField(
        label=_("Share %"),
        required=False,
        max_digits=5,
        decimal_places=2,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off", "size": 5}),
    )


class PaymentTermsForm(forms.Form):
    """Fields ``event_<n>``/``pct_<n>`` per milestone row and ``billing_<line id>`` per
    support line; ``milestones()`` and ``billing()`` give what the service takes."""

    def __init__(
        self,
        *args: Any,
        support_lines: Sequence[QuoteLine] = (),
        schedule: Sequence[dict[str, str]] = (),
        **kwargs: Any,
    ) -> None:
        initial = kwargs.pop("initial", None) or {}
        for number, milestone in enumerate(schedule, start=1):
            initial[f"event_{number}"] = milestone["event"]
            initial[f"pct_{number}"] = Decimal(milestone["pct"])
        for line in support_lines:
            initial[f"billing_{line.pk}"] = line.billing
        kwargs["initial"] = initial
        super().__init__(*args, **kwargs)
        self.rows = []
        for number in range(1, MAX_MILESTONES + 1):
            self.fields[f"event_{number}"] = _event_field()
            self.fields[f"pct_{number}"] = _share_field()
            self.rows.append((number, f"event_{number}", f"pct_{number}"))
        self.support_lines = list(support_lines)
        for line in self.support_lines:
            # Not required: a post without it (an older page) keeps the line's billing.
            self.fields[f"billing_{line.pk}"] = forms.ChoiceField(
                label=_("Billing"), choices=LineBilling.choices, required=False
            )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        for _number, event_name, pct_name in self.rows:
            event, pct = data.get(event_name), data.get(pct_name)
            if event and pct is None and pct_name not in self.errors:
                self.add_error(pct_name, _("Enter the share of this milestone."))
            if pct is not None and not event:
                self.add_error(event_name, _("Choose when this milestone is invoiced."))
        return data

    def milestones(self) -> list[dict[str, str]]:
        data = self.cleaned_data
        return [
            {"event": data[event], "pct": str(data[pct])}
            for _number, event, pct in self.rows
            if data.get(event) and data.get(pct) is not None
        ]

    def billing(self) -> dict[int, str]:
        data = self.cleaned_data
        return {
            line.pk: data[f"billing_{line.pk}"]
            for line in self.support_lines
            if data.get(f"billing_{line.pk}")
        }

    def bound_rows(self) -> list[tuple[int, forms.BoundField, forms.BoundField]]:
        return [(number, self[event], self[pct]) for number, event, pct in self.rows]

    def billing_rows(self) -> list[tuple[QuoteLine, forms.BoundField]]:
        return [(line, self[f"billing_{line.pk}"]) for line in self.support_lines]
