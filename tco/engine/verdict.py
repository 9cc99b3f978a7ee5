"""The buy-or-rent verdict: one decision, computed once, presented everywhere.

Every option that can do the work is ranked by its total cost over the
horizon; the cheapest eligible one is recommended. Spot capacity is eligible
only when the buyer's work tolerates interruptions (or has no deadline and is
not serving). An option that breaks one of the buyer's constraints
(tco/engine/constraints.py) is never recommended; when the cheapest option
overall breaks one, the verdict says that the constraints decided it and what
they cost (cheapest compliant − cheapest overall). The headline is a code with
its numbers; the web layer words it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tco.engine.notes import Note

OWN = "own"
OWN_RESELL = "own_resell"
CLOUD = "cloud"
HYBRID = "hybrid"


@dataclass(frozen=True, slots=True)
class Candidate:
    """An option as the verdict sees it."""

    name: str
    kind: str  # OWN, OWN_RESELL, CLOUD or HYBRID
    total_cost: float
    npv: float
    eligible: bool = True
    excluded_code: str | None = None  # why an ineligible option is not recommended
    break_even_month: float | None = None  # cloud: when owning has caught up with it
    violations: tuple[Note, ...] = ()  # the buyer's constraints this option breaks

    @property
    def recommendable(self) -> bool:
        return self.eligible and not self.violations


@dataclass(frozen=True, slots=True)
class RankedOption:
    name: str
    kind: str
    total_cost: float
    npv: float
    saving_vs_best: float  # this option's total − the recommended option's total
    eligible: bool
    excluded_code: str | None
    recommended: bool
    violations: tuple[Note, ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    action: str  # "buy", "rent" or "hybrid"
    code: str  # headline code: buy, buy_resell, rent, hybrid
    params: dict[str, Any]
    recommended: str
    reference_cloud: str | None  # the cheapest eligible cloud option
    options: tuple[RankedOption, ...]  # cheapest first
    notes: tuple[str, ...] = field(default_factory=tuple)


def decide(
    candidates: Sequence[Candidate],
    *,
    servers: int,
    server_name: str,
    horizon_months: int,
    per_work: bool,
    extra: dict[str, Any] | None = None,
) -> Verdict:
    """Rank the options and word the decision as a code with parameters.

    ``per_work``: the demand is a one-off or recurring job, so a rented
    option's cost is "for this work" rather than "over the horizon".

    >>> v = decide([Candidate("Own", OWN, 400_000.0, 390_000.0),
    ...     Candidate("Cloud A", CLOUD, 1_000.0, 990.0),
    ...     Candidate("Cloud spot", CLOUD, 500.0, 495.0, eligible=False,
    ...               excluded_code="spot_needs_tolerance")],
    ...     servers=1, server_name="DGX H100", horizon_months=60, per_work=True)
    >>> v.action, v.recommended, v.params["ratio"], [o.name for o in v.options]
    ('rent', 'Cloud A', 400.0, ['Cloud spot', 'Cloud A', 'Own'])
    """
    open_options = [c for c in candidates if c.eligible]  # before the buyer's constraints
    eligible = [c for c in open_options if c.recommendable]
    if not eligible:
        raise ValueError("decide() needs at least one eligible option")
    best = min(eligible, key=lambda c: c.total_cost)
    cheapest = min(open_options, key=lambda c: c.total_cost)
    clouds = [c for c in eligible if c.kind == CLOUD]
    reference = min(clouds, key=lambda c: c.total_cost) if clouds else None
    owning = [c for c in eligible if c.kind in (OWN, OWN_RESELL)]
    cheapest_own = min(owning, key=lambda c: c.total_cost) if owning else None
    npv_best = min(eligible, key=lambda c: c.npv)
    params: dict[str, Any] = {
        # Ranked on totals like the break-evens; when discounting reverses the order, say so.
        "npv_best": npv_best.name if npv_best is not best else None,
        "npv_best_kind": npv_best.kind if npv_best is not best else None,
        "servers": servers,
        "server": server_name,
        "horizon_months": horizon_months,
        "per_work": per_work,
        **constraint_params(best, cheapest, candidates),
        **(extra or {}),
    }
    if best.kind == CLOUD:
        action, code = "rent", "rent"
        params.update(_rent_params(best, cheapest_own))
    else:
        action = "hybrid" if best.kind == HYBRID else "buy"
        code = {OWN: "buy", OWN_RESELL: "buy_resell", HYBRID: "hybrid"}[best.kind]
        params.update(_own_params(best, reference))
    return Verdict(
        action=action,
        code=code,
        params=params,
        recommended=best.name,
        reference_cloud=reference.name if reference else None,
        options=_ranked(candidates, best),
    )


def _ranked(candidates: Sequence[Candidate], best: Candidate) -> tuple[RankedOption, ...]:
    """Every candidate, cheapest first (by name on a tie), with its gap to the best."""
    return tuple(
        RankedOption(
            name=c.name,
            kind=c.kind,
            total_cost=c.total_cost,
            npv=c.npv,
            saving_vs_best=c.total_cost - best.total_cost,
            eligible=c.recommendable,
            excluded_code=c.excluded_code or ("constraint" if c.violations else None),
            recommended=c is best,
            violations=c.violations,
        )
        for c in sorted(candidates, key=lambda c: (c.total_cost, c.name))
    )


def _rent_params(best: Candidate, cheapest_own: Candidate | None) -> dict[str, Any]:
    """Renting wins: what it costs, and what owning would cost instead."""
    own_total = cheapest_own.total_cost if cheapest_own else None
    return {
        "option": best.name,
        "cost": best.total_cost,
        "owning_cost": own_total,
        "ratio": (own_total / best.total_cost) if own_total and best.total_cost > 0 else None,
        "saving": (own_total - best.total_cost) if own_total is not None else None,
    }


def _own_params(best: Candidate, reference: Candidate | None) -> dict[str, Any]:
    """Owning (or the hybrid) wins: its saving against the cheapest cloud and the payback."""
    saving = reference.total_cost - best.total_cost if reference else None
    return {
        "option": reference.name if reference else None,
        "cost": best.total_cost,
        "saving": saving,
        "saving_pct": (saving / reference.total_cost)
        if reference and reference.total_cost > 0 and saving is not None
        else None,
        "payback_month": reference.break_even_month if reference else None,
    }


def constraint_params(
    best: Candidate, cheapest: Candidate, candidates: Sequence[Candidate]
) -> dict[str, Any]:
    """Whether the buyer's constraints, not cost, decided, and what complying costs.

    ``constraint_cost``: the cheapest compliant option's total − the cheapest
    option's total overall (0 when the cheapest option complies).

    >>> from tco.engine.notes import Note
    >>> cloud = Candidate("Cloud", CLOUD, 100.0, 95.0, violations=(Note("data_outside_eu"),))
    >>> own = Candidate("Own", OWN, 130.0, 120.0)
    >>> p = constraint_params(own, cloud, [cloud, own])
    >>> p["constraint_decided"], p["cheapest_overall"], p["constraint_cost"]
    (True, 'Cloud', 30.0)
    """
    decided = cheapest is not best and cheapest.total_cost < best.total_cost
    return {
        "constraint_decided": decided,
        "excluded_by_constraints": sum(1 for c in candidates if c.violations),
        "cheapest_overall": cheapest.name if decided else None,
        "cheapest_overall_kind": cheapest.kind if decided else None,
        "cheapest_overall_cost": cheapest.total_cost if decided else None,
        "constraint_cost": best.total_cost - cheapest.total_cost if decided else 0.0,
    }
