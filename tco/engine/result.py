"""The engine's result types: what evaluating a scenario returns (ScenarioResult), how one
cloud offering does the owned fleet's work (OfferingFit), and the sizings one request
already did (SizingMemo). tco/engine/scenario.py computes them."""

from __future__ import annotations

from dataclasses import dataclass

from tco.engine.capacity import CapacityPlan
from tco.engine.costmodel import CostModel
from tco.engine.demand import DemandPlan
from tco.engine.extras import OwningExtras
from tco.engine.horizons import HorizonView
from tco.engine.hosted_api import ApiOptionResult
from tco.engine.hybrid import HybridResult
from tco.engine.inputs import GpuSpec, Scenario, Workload
from tco.engine.montecarlo import Confidence
from tco.engine.notes import Note
from tco.engine.options import CloudOptionResult, OnPremResult
from tco.engine.ownership import Financing, ResellResult
from tco.engine.racks import RackPlan
from tco.engine.sensitivity import Tornado
from tco.engine.serving import ServingOutcome
from tco.engine.site import SiteFit
from tco.engine.sizing import SizingResult
from tco.engine.verdict import Verdict


@dataclass(frozen=True, slots=True, eq=False)
class ScenarioResult:
    scenario: Scenario
    currency: str
    sizing: SizingResult
    rack_plan: RackPlan
    cost_model: CostModel
    onprem: OnPremResult
    cloud_options: tuple[CloudOptionResult, ...]
    tornado: Tornado
    energy_kwh: float
    carbon_tonnes: float | None
    demand: DemandPlan
    verdict: Verdict
    financing: Financing
    resell: ResellResult | None = None
    hybrid: HybridResult | None = None
    hybrid_option: str | None = None
    warnings: tuple[Note, ...] = ()
    excluded_offerings: tuple[tuple[str, Note], ...] = ()
    break_even_runs_per_year: tuple[float | None, ...] = ()
    confidence: Confidence | None = None
    cloud_energy: tuple[tuple[float | None, float | None], ...] = ()  # (kWh, tonnes CO₂)
    horizons: HorizonView | None = None
    serving: ServingOutcome | None = None  # the demand was given in users and requests
    api_options: tuple[ApiOptionResult, ...] = ()
    extras: OwningExtras | None = None  # networking, installation and staff of the fleet
    # The site fit (tco/engine/site.py): where the fleet runs (the buyer's site, or its
    # liquid-ready fallback when the own site cannot take it), the own site's verdict, and
    # the EU duties of the fleet's IT power there.
    site_fit: SiteFit | None = None
    own_site_fit: SiteFit | None = None
    site_duties: tuple[Note, ...] = ()
    capacity: CapacityPlan | None = None  # ready dates and bridges (scenario.capacity given)


@dataclass(frozen=True, slots=True)
class OfferingFit:
    """How one cloud offering does the owned fleet's work (see CloudCostParams)."""

    work_ratio: float = 1.0
    fleet_ratio: float = 1.0
    run_hours: float | None = None  # one run on this offering's instances
    problem: Note | None = None


SizingMemo = dict[tuple[Workload, GpuSpec, int, int | None], SizingResult]
"""Sizings already done for one request (the ranking of candidate servers, then the
evaluation of the cheapest), by everything a sizing depends on: the workload, the server's
GPU and GPUs per server, and a fixed fleet. Catalogs sell the same GPU board in several
servers and as cloud instances, so one board is sized once."""
