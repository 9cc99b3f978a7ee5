"""Reasons, notes and warnings as codes with parameters.

The engine never words a sentence for the buyer: it returns a code and the
numbers behind it, and the web layer words it in the reader's language
(tco/presentation/wording.py). The ``text`` property gives a plain English rendering for
the command line and logs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ENGLISH: dict[str, str] = {
    "demand_assumed_continuous": (
        "No demand given: the service is assumed to run around the clock, the owned fleet "
        "busy {utilization:.0%} of the time."
    ),
    "demand_assumed_one_run": (
        "No demand given: the training is assumed to run once; give demand.pattern "
        "'recurring' with runs_per_year, or 'continuous', for more."
    ),
    "workstation_site_fleet": (
        "A workstation site holds one machine; this plan needs {servers:,} servers, so they "
        "are costed as a server room (network, installation, operations staff)."
    ),
    "datacentre_defaults_small_fleet": (
        "Data-centre defaults (network ports, installation, operations staff) are applied "
        "to {gpus} GPU(s), fewer than {threshold}: for a workstation choose a workstation "
        "site, or give finance.networking_per_server, installation_per_server and staff_fte."
    ),
    "run_exceeds_horizon": (
        "One run takes {run_days:,.0f} days, longer than the {horizon_months} months compared."
    ),
    "demand_exceeds_fleet": (
        "{runs_per_year:g} runs a year do not fit on this fleet; it manages "
        "{max_runs_per_year:.1f}. Size for a shorter deadline or plan fewer runs."
    ),
    "fleet_too_large": "The plan needs {servers:,} servers, more than 1,000.",
    "fleet_too_large_deadline": (
        "A {deadline_days:g}-day deadline needs {servers:,} servers; relax the deadline to "
        "{relaxed_days:g} days for {relaxed_servers:,}."
    ),
    "power_too_high": "The fleet draws {facility_mw:,.1f} MW at the facility, more than 10 MW.",
    "cost_too_high": "Owning costs {amount:,.0f} {currency} over the horizon, more than 1 billion.",
    "spot_needs_tolerance": (
        "Spot capacity can be taken back at any time; it is not recommended for work with a "
        "deadline or for serving unless the work tolerates interruptions."
    ),
    "cloud_gpu_cannot_run": "This offering's GPU cannot run the workload: {reason}",
    "cloud_gpu_lacks_precision": "The {gpu} has no {precision} tensor cores.",
    # Constraints (tco/engine/constraints.py): why an option may not be recommended.
    "data_outside_eu": "Data would be processed outside the EU ({country}).",
    "data_country_unknown": "Where the data would be processed is unknown.",
    "not_own_premises": "Data would leave your own premises.",
    "not_air_gapped": "A rented service cannot be air-gapped.",
    "jurisdiction_outside_eu": "{provider} is under non-EU jurisdiction ({country}).",
    "jurisdiction_unknown": "{provider}'s controlling jurisdiction is unknown.",
    "provider_not_preferred": "{provider} is not one of your preferred providers.",
    "no_compliant_option": "No option meets the constraints.",
    # Site fit (tco/engine/site.py): why a site cannot take the fleet.
    "needs_liquid_cooling": (
        "the {server} is liquid-cooled; the site has {site_cooling} cooling only, no water at "
        "the racks"
    ),
    "rack_beyond_air_cooling": (
        "a rack of {server} draws {rack_kw:g} kW; {site_cooling} cooling removes at most "
        "{max_kw:g} kW a rack"
    ),
    "grid_connection": (
        "the fleet draws {it_kw:,.1f} kW of IT power; the site has {available_it_kw:,.1f} kW "
        "and its grid connection {grid_headroom_kw:,.1f} kW more"
    ),
    "server_room_power": (
        "the fleet draws {it_kw:,.1f} kW of IT power in {racks} rack(s); a server room with "
        "no available power given is taken to hold {assumed_kw:g} kW (an estimate)"
    ),
}


@dataclass(frozen=True, slots=True)
class Note:
    """A code, its parameters, its English sentence, and whether the buyer must see it.

    ``message`` is the English sentence when the code has no template here (sizing
    and rack notes word their own).
    """

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)
    message: str = ""
    warning: bool = False

    @property
    def text(self) -> str:
        """Plain English, for the command line.

        >>> Note("fleet_too_large", {"servers": 1200}).text
        'The plan needs 1,200 servers, more than 1,000.'
        >>> Note("idle_gpus", {"idle": 2}, "2 GPUs stay idle.").text
        '2 GPUs stay idle.'
        """
        if self.message:
            return self.message
        template = ENGLISH.get(self.code)
        if template is None:
            return self.code
        try:
            return template.format(**self.params)
        except (KeyError, ValueError, TypeError):
            return self.code
