"""VAT on a quote: the seller is in the Netherlands and quotes businesses (B2B goods).

- Buyer in the Netherlands: Dutch VAT (21 %), VAT ID or not.
- Buyer elsewhere in the EU with a valid VAT ID of its own country: 0 %, an
  intra-Community supply of goods (Article 138 of Council Directive 2006/112/EC); the
  invoice names the buyer's VAT ID and the buyer accounts for VAT at home.
- Buyer elsewhere in the EU without a valid VAT ID: Dutch VAT (21 %). Destination rates
  apply to distance sales to consumers, which we do not make.
- Buyer outside the EU: 0 %, export (Article 146 of the Directive).

A VAT ID is valid when python-stdnum accepts its format and check digit and its prefix is
the buyer's country ("EL" for Greece). With QUOTES_VIES_LOOKUP on, the EU's VIES service
must also confirm it (off by default: it needs the network). An ID that fails is a form
error; one stored before these checks counts as no ID.

Standard rates as of 2026; the table is small on purpose and lives in code so that a
change is reviewed like any other rule change.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from stdnum.eu import vat as eu_vat

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


# What people read instead of the ISO code (forms, filters), in the reader's language.
COUNTRY_NAMES: dict[str, Promise] = {
    "AE": gettext_lazy("United Arab Emirates"),
    "AT": gettext_lazy("Austria"),
    "BE": gettext_lazy("Belgium"),
    "BG": gettext_lazy("Bulgaria"),
    "CA": gettext_lazy("Canada"),
    "CH": gettext_lazy("Switzerland"),
    "CY": gettext_lazy("Cyprus"),
    "CZ": gettext_lazy("Czechia"),
    "DE": gettext_lazy("Germany"),
    "DK": gettext_lazy("Denmark"),
    "EE": gettext_lazy("Estonia"),
    "ES": gettext_lazy("Spain"),
    "FI": gettext_lazy("Finland"),
    "FR": gettext_lazy("France"),
    "GB": gettext_lazy("United Kingdom"),
    "GR": gettext_lazy("Greece"),
    "HR": gettext_lazy("Croatia"),
    "HU": gettext_lazy("Hungary"),
    "IE": gettext_lazy("Ireland"),
    "IL": gettext_lazy("Israel"),
    "IN": gettext_lazy("India"),
    "IT": gettext_lazy("Italy"),
    "JP": gettext_lazy("Japan"),
    "LT": gettext_lazy("Lithuania"),
    "LU": gettext_lazy("Luxembourg"),
    "LV": gettext_lazy("Latvia"),
    "MT": gettext_lazy("Malta"),
    "NL": gettext_lazy("Netherlands"),
    "NO": gettext_lazy("Norway"),
    "PL": gettext_lazy("Poland"),
    "PT": gettext_lazy("Portugal"),
    "RO": gettext_lazy("Romania"),
    "SE": gettext_lazy("Sweden"),
    "SG": gettext_lazy("Singapore"),
    "SI": gettext_lazy("Slovenia"),
    "SK": gettext_lazy("Slovakia"),
    "US": gettext_lazy("United States"),
}


def country_choices() -> list[tuple[str, str]]:
    """The countries of COUNTRY_CHOICES by name in the active language, sorted by that name."""
    return sorted(
        ((code, str(COUNTRY_NAMES.get(code, code))) for code, _code in COUNTRY_CHOICES),
        key=lambda choice: choice[1],
    )


STANDARD = "standard"
# Stored as "reverse_charge" (the name of the kind since the first quotes): a 0 % intra-
# Community supply whose VAT the buyer accounts for.
REVERSE_CHARGE = "reverse_charge"
INTRA_COMMUNITY = REVERSE_CHARGE
EXPORT = "export"

logger = logging.getLogger(__name__)


def vat_prefix(country: str) -> str:
    """The prefix of a country's VAT IDs: the ISO code, except "EL" for Greece."""
    country = country.upper()
    return "EL" if country == "GR" else country


# What a VAT ID looks like, shown when one is refused: a well-formed ID that passes the
# check digits (the python-stdnum documentation's examples), so the example is never refused.
VAT_FORMAT_HINTS: dict[str, str] = {
    "AT": "ATU13585627",
    "BE": "BE0403019261",
    "BG": "BG175074752",
    "CY": "CY10259033P",
    "CZ": "CZ25123891",
    "DE": "DE136695976",
    "DK": "DK13585628",
    "EE": "EE100931558",
    "ES": "ESB58378431",
    "FI": "FI20774740",
    "FR": "FR40303265045",
    "GR": "EL094259216",
    "HR": "HR33392005961",
    "HU": "HU12892312",
    "IE": "IE6433435F",
    "IT": "IT00743110157",
    "LT": "LT119511515",
    "LU": "LU15027442",
    "LV": "LV40003521600",
    "MT": "MT11679112",
    "NL": "NL004495445B01",
    "PL": "PL8567346215",
    "PT": "PT501964843",
    "RO": "RO18547290",
    "SE": "SE123456789701",
    "SI": "SI50223054",
    "SK": "SK2022749619",
}


def normalise_vat_id(vat_id: str, country: str = "") -> str:
    """Upper case without spaces, dots or dashes; the country prefix added when missing.

    >>> normalise_vat_id(" de 136.695.976 ", "DE"), normalise_vat_id("136695976", "DE")
    ('DE136695976', 'DE136695976')
    >>> normalise_vat_id("094259216", "GR")
    'EL094259216'
    """
    compact = "".join(ch for ch in vat_id.upper() if ch.isalnum())
    if compact and country and country.upper() in EU_VAT_RATES and compact[0].isdigit():
        compact = vat_prefix(country) + compact
    return compact


def vat_id_problem(vat_id: str, country: str) -> str | None:
    """Why a buyer's VAT ID is not accepted (in the active language), or None if it is.

    Empty is fine (no ID); outside the EU nothing is checked.

    >>> vat_id_problem("DE136695976", "DE") is None, vat_id_problem("", "DE") is None
    (True, True)
    >>> vat_id_problem("x", "DE") is not None, vat_id_problem("DE136695976", "FR") is not None
    (True, True)
    """
    country = country.upper()
    compact = normalise_vat_id(vat_id, country)
    if not compact or country not in EU_VAT_RATES:
        return None
    prefix = vat_prefix(country)
    hint = VAT_FORMAT_HINTS.get(country, prefix)
    if not compact.startswith(prefix):
        return _(
            "A VAT ID for a customer in %(country)s starts with %(prefix)s (for example %(hint)s)."
        ) % {"country": country, "prefix": prefix, "hint": hint}
    if not eu_vat.is_valid(compact):
        return _(
            "This is not a valid VAT ID for %(country)s: check the digits (format: %(hint)s)."
        ) % {"country": country, "hint": hint}
    if settings.QUOTES_VIES_LOOKUP and not vies_confirms(compact):
        return _("The EU VIES service does not know this VAT ID.")
    return None


def vies_confirms(vat_id: str) -> bool:
    """Ask the EU's VIES service whether a VAT ID is registered (QUOTES_VIES_LOOKUP only).

    An unreachable VIES does not refuse the ID: format and check digit passed already.
    """
    try:
        answer = eu_vat.check_vies(vat_id, timeout=settings.QUOTES_VIES_TIMEOUT_SECONDS)
    except Exception:  # VIES is often down; the offline checks stand
        logger.warning("VIES lookup of %s failed; accepting on format", vat_id, exc_info=True)
        return True
    return bool(answer.get("valid"))


def vat_id_valid(vat_id: str, country: str) -> bool:
    """A non-empty VAT ID that passes vat_id_problem (no network: VIES is asked on input)."""
    country = country.upper()
    compact = normalise_vat_id(vat_id, country)
    return (
        bool(compact)
        and country in EU_VAT_RATES
        and compact.startswith(vat_prefix(country))
        and eu_vat.is_valid(compact)
    )


@dataclass(frozen=True)
class VatTreatment:
    rate: Decimal  # percent, e.g. Decimal("21")
    kind: str  # STANDARD, REVERSE_CHARGE (intra-Community supply) or EXPORT

    @property
    def reverse_charge(self) -> bool:
        return self.kind == REVERSE_CHARGE


def vat_legal_text(kind: str, language: str, buyer_vat_id: str = "") -> str:
    """The legal wording under the totals, in the buyer's language ("" for Dutch VAT).

    >>> vat_legal_text("export", "nl")
    'Export buiten de EU, 0 % btw (artikel 146 Richtlijn 2006/112/EG)'
    >>> vat_legal_text("reverse_charge", "en", "DE136695976").endswith("VAT ID: DE136695976")
    True
    """
    with translation.override(language):
        if kind == REVERSE_CHARGE:
            text = _(
                "VAT reverse charged — intra-Community supply, Article 138 of Council "
                "Directive 2006/112/EC"
            )
            if buyer_vat_id:
                text += ". " + _("Buyer's VAT ID: %(vat_id)s") % {"vat_id": buyer_vat_id}
            return str(text)
        if kind == EXPORT:
            return str(_("Export outside the EU, VAT 0 % (Article 146 of Directive 2006/112/EC)"))
    return ""


def vat_note(kind: str, buyer_vat_id: str = "") -> str:
    """The legal line printed under the totals, in the active language."""
    return vat_legal_text(kind, translation.get_language() or "en", buyer_vat_id)


def vat_for(*, country: str, vat_number: str) -> VatTreatment:
    """The VAT treatment of a business buyer.

    >>> vat_for(country="NL", vat_number="NL123").rate
    Decimal('21')
    >>> t = vat_for(country="DE", vat_number="DE136695976")
    >>> (t.rate, t.reverse_charge)
    (Decimal('0'), True)
    >>> vat_for(country="DE", vat_number="x").rate, vat_for(country="DE", vat_number="").rate
    (Decimal('21'), Decimal('21'))
    >>> vat_for(country="US", vat_number="").rate
    Decimal('0')
    """
    country = country.upper()
    dutch = VatTreatment(EU_VAT_RATES[SELLER_COUNTRY], STANDARD)
    if country == SELLER_COUNTRY:
        return dutch
    if country in EU_VAT_RATES:
        if vat_id_valid(vat_number, country):
            return VatTreatment(Decimal("0"), REVERSE_CHARGE)
        return dutch
    return VatTreatment(Decimal("0"), EXPORT)
