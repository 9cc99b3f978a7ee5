"""The buyer's hard terms: where data may go and whom it may be entrusted to.

No cost figure overrides these. An option that breaks one is kept in the
comparison (greyed, with its reasons) but never recommended; the verdict says
when a constraint, not cost, decided the choice (tco/engine/verdict.py).

Countries are ISO 3166 alpha-2 codes. A provider's *jurisdiction* is the
country whose law controls it (the parent company's seat: a US parent's
European region is still reachable by US law); *data country* is where the
region that processes the data is. An unknown country (empty string) cannot
be shown to be in the EU, so it breaks an EU constraint, and the reason says
it is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tco.engine.errors import InvalidInput
from tco.engine.notes import Note

# The 27 member states of the European Union (ISO 3166 alpha-2; Greece is GR).
EU_COUNTRIES: frozenset[str] = frozenset(
    {
        "AT",
        "BE",
        "BG",
        "CY",
        "CZ",
        "DE",
        "DK",
        "EE",
        "ES",
        "FI",
        "FR",
        "GR",
        "HR",
        "HU",
        "IE",
        "IT",
        "LT",
        "LU",
        "LV",
        "MT",
        "NL",
        "PL",
        "PT",
        "RO",
        "SE",
        "SI",
        "SK",
    }
)


@dataclass(frozen=True, slots=True)
class Constraints:
    """What the buyer requires of every option, whatever it costs.

    ``preferred_providers``: when given, only these cloud providers may be
    recommended (names as in the catalog, compared without regard to case).
    """

    eu_data_only: bool = False
    own_premises_only: bool = False
    eu_jurisdiction_only: bool = False
    air_gapped: bool = False
    preferred_providers: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for name in ("eu_data_only", "own_premises_only", "eu_jurisdiction_only", "air_gapped"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(name, "Enter true or false.")
        providers = self.preferred_providers
        if isinstance(providers, str) or not all(isinstance(p, str) for p in providers):
            raise InvalidInput("preferred_providers", "Give a list of provider names.")
        cleaned = tuple(p.strip() for p in providers if p.strip())
        if any(len(p) > 80 for p in cleaned) or len(cleaned) > 50:
            raise InvalidInput("preferred_providers", "Give at most 50 names of 80 characters.")
        object.__setattr__(self, "preferred_providers", cleaned)

    @property
    def any(self) -> bool:
        return (
            self.eu_data_only
            or self.own_premises_only
            or self.eu_jurisdiction_only
            or self.air_gapped
            or bool(self.preferred_providers)
        )


def violations(
    constraints: Constraints,
    *,
    provider: str,
    jurisdiction: str,
    data_country: str,
    on_premises: bool,
) -> tuple[Note, ...]:
    """Every constraint an option breaks, as codes with the facts behind them.

    The buyer's own fleet is passed with ``provider=""``: it has no provider
    (``jurisdiction`` is ignored) and can be air-gapped wherever it stands; a
    rented service never can. ``on_premises``: in the buyer's own building (an
    owned fleet in a colocation data centre is not).

    >>> c = Constraints(eu_data_only=True, eu_jurisdiction_only=True)
    >>> [n.code for n in violations(c, provider="AWS", jurisdiction="US",
    ...     data_country="DE", on_premises=False)]
    ['jurisdiction_outside_eu']
    >>> [n.code for n in violations(c, provider="RunPod", jurisdiction="US",
    ...     data_country="", on_premises=False)]
    ['data_country_unknown', 'jurisdiction_outside_eu']
    >>> violations(c, provider="Nebius", jurisdiction="NL", data_country="FI", on_premises=False)
    ()
    """
    notes: list[Note] = []
    owned = provider == ""
    if constraints.eu_data_only:
        if not data_country:
            notes.append(Note("data_country_unknown", {"provider": provider}))
        elif data_country.upper() not in EU_COUNTRIES:
            notes.append(Note("data_outside_eu", {"country": data_country.upper()}))
    if constraints.own_premises_only and not on_premises:
        notes.append(Note("not_own_premises", {"provider": provider, "owned": owned}))
    if owned:
        return tuple(notes)
    if constraints.air_gapped:
        notes.append(Note("not_air_gapped", {"provider": provider}))
    if constraints.eu_jurisdiction_only:
        if not jurisdiction:
            notes.append(Note("jurisdiction_unknown", {"provider": provider}))
        elif jurisdiction.upper() not in EU_COUNTRIES:
            notes.append(
                Note(
                    "jurisdiction_outside_eu",
                    {"provider": provider, "country": jurisdiction.upper()},
                )
            )
    preferred = {p.casefold() for p in constraints.preferred_providers}
    if preferred and provider.casefold() not in preferred:
        notes.append(
            Note(
                "provider_not_preferred",
                {"provider": provider, "preferred": list(constraints.preferred_providers)},
            )
        )
    return tuple(notes)
