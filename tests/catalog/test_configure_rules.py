"""The rule kinds of catalog/configure/rules.py, each with a valid and an invalid
configuration of a published system (pure: runs with -p no:django).

The chassis is the Supermicro SYS-821GE-TNHR as its product page describes it (the slot
split and the 4+2 redundancy are our reading, flagged as estimates in the catalog): two
Socket E (LGA-4677) CPUs of the 4th or 5th Xeon generation, 8 memory channels each and 32
DIMM slots, ten PCIe 5.0 x16 slots (eight low-profile for the NICs, two full-height),
sixteen 2.5" NVMe bays and two M.2 slots, six 3 kW supplies in 4+2 redundancy; 10.2 kW at
most (as the DGX H100, its GPUs' system).
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.configure.rules import (
    ChassisRules,
    ComponentSpec,
    Configuration,
    check,
    recommended,
    scheme_text,
)

CPU = ComponentSpec(
    "Xeon Platinum 8468", "cpu", Decimal(7214), Decimal("6131.90"), 210, 350,
    cpu_family="xeon-4", cpu_socket="LGA4677",
)  # fmt: skip
CPU_5 = replace(CPU, part_number="Xeon Platinum 8568Y+", cpu_family="xeon-5")
EPYC = ComponentSpec(
    "EPYC 9474F", "cpu", Decimal(6780), None, 215, 360, cpu_family="epyc-9004", cpu_socket="SP5"
)
XEON6 = ComponentSpec(
    "Xeon 6767P", "cpu", Decimal(9000), None, 210, 350, cpu_family="xeon-6", cpu_socket="LGA4710"
)
DIMM = ComponentSpec(
    "MEM-DR564MC-ER48", "memory", Decimal(380), Decimal(323), 6, 10,
    memory_type="DDR5", memory_speed_mts=4800, memory_capacity_gb=64,
)  # fmt: skip
DIMM_6400 = replace(DIMM, part_number="MEM-DR564MC-ER64", memory_speed_mts=6400)
DDR4 = replace(DIMM, part_number="DDR4-64", memory_type="DDR4", memory_speed_mts=3200)
U2 = ComponentSpec(
    "MZQL23T8HCLS-00A07", "drive", Decimal(450), Decimal("382.50"), 8, 14, drive_form_factor="u2"
)
M2 = ComponentSpec("MZ1L21T9HCLS-00A07", "boot", Decimal(260), None, 6, 9, drive_form_factor="m2")
NIC = ComponentSpec(
    "MCX75310AAS-NEAT", "nic", Decimal(1700), Decimal(1445), 19, 25, slot="x16", network_gbps=400
)
DPU = ComponentSpec(
    "900-9D3B6-00CV-AA0", "dpu", Decimal(2800), None, 75, 150, slot="x16", network_gbps=200
)
PSU = ComponentSpec(
    "SMC-PSU-3000W-TI", "psu", Decimal(650), Decimal("552.50"), 0, 0, psu_rating_w=3000
)
PSU_2700 = replace(PSU, part_number="SMC-PSU-2700W-TI", psu_rating_w=2700)
PARTS = {
    c.part_number: c
    for c in (CPU, CPU_5, EPYC, XEON6, DIMM, DIMM_6400, DDR4, U2, M2, NIC, DPU, PSU, PSU_2700)
}

DEFAULT = ((CPU.part_number, 2), (DIMM.part_number, 32), (U2.part_number, 8),
           (NIC.part_number, 8), (PSU.part_number, 6))  # fmt: skip
SMC_821 = ChassisRules(
    server_key="smc-821ge-tnhr-h100", gpu_count=8, fixed=False, cpu_sockets=2,
    cpu_socket="LGA4677", cpu_families=("xeon-4", "xeon-5"), memory_slots=32,
    memory_channels_per_socket=8, memory_type="DDR5", memory_speeds=(4400, 4800, 5600),
    memory_capacities_gb=(16, 32, 64, 96, 128, 256), pcie_x16_slots=10, pcie_x8_slots=0,
    bays={"u2": 16, "e1s": 0, "m2": 2}, psu_bays=6, psu_ratings_w=(3000,),
    psu_redundancy="n+2", list_price=Decimal(280000), cost_price=Decimal(238000),
    max_w=10200, idle_w=2500, typical_w=None, default=DEFAULT,
)  # fmt: skip


def with_parts(*parts: tuple[ComponentSpec, int], chassis: ChassisRules = SMC_821) -> Configuration:
    items = dict(DEFAULT)
    for spec, quantity in parts:
        items[spec.part_number] = quantity
    return Configuration(chassis.server_key, tuple(items.items()))


def codes(configuration: Configuration, chassis: ChassisRules = SMC_821, **kw: object) -> list[str]:
    return [f.code for f in check(chassis, configuration, PARTS, **kw).violations]  # type: ignore[arg-type]


def test_the_default_is_valid_and_is_the_catalog_row() -> None:
    result = check(SMC_821, Configuration(SMC_821.server_key, DEFAULT), PARTS)
    assert result.valid and result.violations == ()
    assert (result.list_price, result.cost) == (Decimal(280000), Decimal(238000))
    assert (result.max_w, result.idle_w) == (10200, 2500)
    # Barebone = 280,000 − (2 × 7,214 + 32 × 380 + 8 × 450 + 8 × 1,700 + 6 × 650)
    #          = 280,000 − (14,428 + 12,160 + 3,600 + 13,600 + 3,900) = 280,000 − 47,688.
    assert result.barebone_list_price == Decimal(232312)


def test_sockets_and_families() -> None:
    assert codes(with_parts((CPU, 2))) == []
    assert codes(with_parts((CPU, 1))) == ["cpu_count"]  # 1 CPU, 2 sockets
    # An EPYC (SP5) and a Xeon 6 (LGA-4710) do not fit Socket E.
    assert codes(with_parts((CPU, 0), (EPYC, 2))) == ["cpu_socket"]
    assert codes(with_parts((CPU, 0), (XEON6, 2))) == ["cpu_socket"]
    assert codes(with_parts((CPU, 0), (CPU_5, 2))) == []  # 5th generation: supported
    assert codes(with_parts((CPU, 1), (CPU_5, 1))) == ["cpu_mixed"]
    # The DGX B200 takes the 5th-generation Xeon 8570 only: a 4th-generation 8468 fits
    # its socket but not its family.
    b200 = replace(SMC_821, cpu_families=("xeon-5",), fixed=False)
    assert codes(with_parts((CPU, 2), chassis=b200), b200) == ["cpu_family"]


def test_memory_population() -> None:
    # 2 CPUs × 8 channels = 16 channels: 16 (1 per channel) or 32 (2 per channel).
    assert codes(with_parts((DIMM, 16))) == []
    assert codes(with_parts((DIMM, 32))) == []
    result = check(SMC_821, with_parts((DIMM, 8)), PARTS)
    assert [(f.code, dict(f.params)) for f in result.violations] == [
        (
            "memory_balance",
            {"dimms": 8, "channels": 16, "cpus": 2, "family": "xeon-4", "fits": [16, 32]},
        )
    ]
    assert codes(with_parts((DIMM, 24))) == ["memory_balance"]  # 24 mod 16 = 8
    assert codes(with_parts((DIMM, 48))) == ["memory_slots"]  # 48 > 32 slots
    assert codes(with_parts((DIMM, 0))) == ["memory_missing"]
    assert codes(with_parts((DIMM, 0), (DDR4, 16))) == ["memory_type"]
    # DDR5-6400 is a Xeon 6 speed; Socket E runs 4400, 4800 or 5600.
    assert codes(with_parts((DIMM, 0), (DIMM_6400, 16))) == ["memory_speed"]
    assert codes(with_parts((DIMM, 16), (DIMM_6400, 16))) == ["memory_mixed", "memory_speed"]


def test_pcie_slots() -> None:
    # 8 NICs + 2 DPUs fill the ten x16 slots; an eleventh card does not fit.
    assert codes(with_parts((DPU, 2))) == []
    result = check(SMC_821, with_parts((DPU, 3)), PARTS)
    assert [(f.code, dict(f.params)) for f in result.violations] == [
        ("pcie_slots", {"size": "x16", "cards": 11, "slots": 10})
    ]


def test_drive_bays() -> None:
    assert codes(with_parts((U2, 16), (M2, 2))) == []
    assert codes(with_parts((U2, 17))) == ["drive_bays"]  # 17 U.2 drives, 16 bays
    assert codes(with_parts((M2, 3))) == ["drive_bays"]  # 3 M.2 drives, 2 slots


def test_power_supplies_in_redundancy() -> None:
    # Six 3 kW supplies in 4+2 carry 4 × 3,000 = 12,000 W ≥ 10,200 W.
    assert codes(with_parts()) == []
    assert scheme_text("n+2", 6) == "4+2"
    # Full N+N redundancy on the same six supplies (3+3) carries 3 × 3,000 = 9,000 W, less
    # than the 10,200 W the system draws.
    n_plus_n = replace(SMC_821, psu_redundancy="n+n")
    result = check(n_plus_n, with_parts(), PARTS)
    assert [(f.code, dict(f.params)) for f in result.violations] == [
        (
            "psu_capacity",
            {"psus": 6, "rating_w": 3000, "capacity_w": 9000, "max_w": 10200, "scheme": "3+3"},
        )
    ]
    eight_bays = replace(n_plus_n, psu_bays=8)
    assert codes(with_parts((PSU, 8), chassis=eight_bays), eight_bays) == []  # 4 × 3,000
    assert codes(with_parts((PSU, 4))) == ["psu_count"]
    assert codes(with_parts((PSU, 0), (PSU_2700, 6))) == ["psu_rating"]
    assert codes(with_parts((PSU, 3), (PSU_2700, 3))) == ["psu_mixed"]


def test_rack_power() -> None:
    # One 10.2 kW system in a 10 kW rack: too much; in a 12 kW rack: fits.
    assert codes(with_parts(), rack_power_limit_kw=Decimal(10)) == ["rack_power"]
    assert codes(with_parts(), rack_power_limit_kw=Decimal(12)) == []


def test_fixed_configuration_and_unknown_parts() -> None:
    fixed = replace(SMC_821, fixed=True)
    assert codes(with_parts(), fixed) == []
    assert codes(with_parts((U2, 16)), fixed) == ["fixed_configuration"]
    assert codes(with_parts((replace(U2, part_number="NOPE"), 1))) == ["unknown_part"]


def test_recommendations_carry_their_source() -> None:
    fewer = check(SMC_821, with_parts((NIC, 4)), PARTS, workload="training")
    assert fewer.valid
    (advice,) = fewer.recommendations
    assert (advice.code, dict(advice.params)) == (
        "nic_per_gpu",
        {"nics": 4, "gpus": 8, "gbps": 400},
    )
    assert "SuperPOD" in advice.source
    assert check(SMC_821, with_parts(), PARTS, workload="training").recommendations == ()
    serving = check(SMC_821, with_parts(), PARTS, workload="serving").recommendations
    assert [f.code for f in serving] == ["serving_nics"]
    assert check(SMC_821, with_parts((NIC, 2)), PARTS, workload="serving").recommendations == ()


def test_doubling_nics_and_drives_adds_their_price_and_power() -> None:
    # 8 more NICs and 8 more drives: + 8 × 1,700 + 8 × 450 = 17,200 list; max + 8 × 25 +
    # 8 × 14 = 312 W; idle (typical draw) + 8 × 19 + 8 × 8 = 216 W.
    result = check(SMC_821, with_parts((NIC, 16), (U2, 16)), PARTS)
    assert result.list_price == Decimal(280000 + 17200)
    assert (result.max_w, result.idle_w) == (10200 + 312, 2500 + 216)
    assert result.violations[0].code == "pcie_slots"  # 16 NICs, 10 slots


# No deadline: the machine is shared, and a slow example is not a wrong one.
@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(PARTS)), st.integers(0, 40), max_size=6))
def test_price_and_power_are_the_barebone_plus_the_parts(quantities: dict[str, int]) -> None:
    result = check(SMC_821, Configuration(SMC_821.server_key, tuple(quantities.items())), PARTS)
    parts = [(PARTS[p], n) for p, n in quantities.items()]
    assert result.list_price == result.barebone_list_price + sum(
        (s.list_price * n for s, n in parts), Decimal(0)
    )
    # The default's parts draw at most 2 × 350 + 32 × 10 + 8 × 14 + 8 × 25 + 6 × 0 = 1,332 W.
    assert result.max_w == 10200 - 1332 + sum(s.max_w * n for s, n in parts)
    assert result.valid == (result.violations == ())


def test_the_recommended_configuration_follows_the_workload() -> None:
    # Serving: the eight 400G NICs cut to two; valid, nothing more to recommend.
    serving = recommended(SMC_821, PARTS, "serving")
    assert dict(serving.items)[NIC.part_number] == 2
    result = check(SMC_821, serving, PARTS, workload="serving")
    assert result.valid and result.recommendations == ()
    # Training on a default of 4 NICs: up to one per GPU (8), the ten x16 slots allow it.
    four = replace(
        SMC_821, default=tuple((p, 4 if p == NIC.part_number else n) for p, n in DEFAULT)
    )
    training = recommended(four, PARTS, "training")
    assert dict(training.items)[NIC.part_number] == 8
    assert check(four, training, PARTS, workload="training").recommendations == ()
    # With only 5 x16 slots (the SYS-521GE-TNRT's for NICs), 5 NICs: the advice remains.
    five_slots = replace(four, pcie_x16_slots=5)
    assert dict(recommended(five_slots, PARTS, "training").items)[NIC.part_number] == 5
    # A fixed system keeps its default.
    fixed = replace(SMC_821, fixed=True)
    assert recommended(fixed, PARTS, "serving").items == DEFAULT
