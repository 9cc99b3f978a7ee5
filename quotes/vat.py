"""VAT on a quote: the seller is in the Netherlands.

- Buyer in the Netherlands: Dutch VAT (21 %), VAT number or not.
- Buyer elsewhere in the EU with a VAT number (a business): 0 %, "VAT reverse-charged"
  (the buyer accounts for VAT in their own country).
- Buyer elsewhere in the EU without a VAT number: the VAT rate of the buyer's country.
- Buyer outside the EU: 0 % (export).

Standard rates as of 2026; the table is small on purpose and lives in code so that a
change is reviewed like any other rule change.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

SELLER_COUNTRY = "NL"

EU_VAT_RATES: dict[str, Decimal] = {
    "AT": Decimal("20"),
    "BE": Decimal("21"),
    "BG": Decimal("20"),
    "CY": Decimal("19"),
    "CZ": Decimal("21"),
    "DE": Decimal("19"),
    "DK": Decimal("25"),
    "EE": Decimal("24"),
    "ES": Decimal("21"),
    "FI": Decimal("25.5"),
    "FR": Decimal("20"),
    "GR": Decimal("24"),
    "HR": Decimal("25"),
    "HU": Decimal("27"),
    "IE": Decimal("23"),
    "IT": Decimal("22"),
    "LT": Decimal("21"),
    "LU": Decimal("17"),
    "LV": Decimal("21"),
    "MT": Decimal("18"),
    "NL": Decimal("21"),
    "PL": Decimal("23"),
    "PT": Decimal("23"),
    "RO": Decimal("21"),
    "SE": Decimal("25"),
    "SI": Decimal("22"),
    "SK": Decimal("23"),
}

# Countries offered in the customer form: the EU plus the usual export destinations.
COUNTRY_CHOICES: list[tuple[str, str]] = sorted(
    [(code, code) for code in EU_VAT_RATES]
    + [(c, c) for c in ("CH", "GB", "NO", "US", "CA", "IL", "AE", "SG", "JP", "IN")]
)


STANDARD = "standard"
REVERSE_CHARGE = "reverse_charge"
EXPORT = "export"


@dataclass(frozen=True)
class VatTreatment:
    rate: Decimal  # percent, e.g. Decimal("21")
    kind: str  # STANDARD, REVERSE_CHARGE or EXPORT

    @property
    def reverse_charge(self) -> bool:
        return self.kind == REVERSE_CHARGE


def vat_note(kind: str) -> str:
    """The line printed under the totals, in the active language."""
    if kind == REVERSE_CHARGE:
        return str(_("VAT reverse-charged"))
    if kind == EXPORT:
        return str(_("Export outside the EU: no VAT"))
    return ""


def vat_for(*, country: str, vat_number: str) -> VatTreatment:
    """The VAT treatment of a buyer.

    >>> vat_for(country="NL", vat_number="NL123").rate
    Decimal('21')
    >>> t = vat_for(country="DE", vat_number="DE123456789")
    >>> (t.rate, t.reverse_charge)
    (Decimal('0'), True)
    >>> vat_for(country="DE", vat_number="").rate
    Decimal('19')
    >>> vat_for(country="US", vat_number="").rate
    Decimal('0')
    """
    country = country.upper()
    if country == SELLER_COUNTRY:
        return VatTreatment(EU_VAT_RATES[country], STANDARD)
    if country in EU_VAT_RATES:
        if vat_number.strip():
            return VatTreatment(Decimal("0"), REVERSE_CHARGE)
        return VatTreatment(EU_VAT_RATES[country], STANDARD)
    return VatTreatment(Decimal("0"), EXPORT)
