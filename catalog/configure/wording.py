"""The findings of a configuration check (catalog/configure/rules.py) in the reader's
language: each code with its parameters as one sentence (Dutch in
locale/nl/LC_MESSAGES/django.po)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.formatting import grouped

from ..models import DriveFormFactor
from .rules import Finding

# CPU families (ComponentSpec.cpu_family codes) by name.
FAMILIES = {
    "xeon-4": gettext_lazy("4th-generation Xeon"),
    "xeon-5": gettext_lazy("5th-generation Xeon"),
    "xeon-6": gettext_lazy("Xeon 6"),
    "epyc-7002": gettext_lazy("EPYC 7002"),
    "epyc-9004": gettext_lazy("EPYC 9004"),
    "epyc-9005": gettext_lazy("EPYC 9005"),
    "grace": gettext_lazy("Grace"),
}


def family_name(code: str) -> str:
    return str(FAMILIES.get(code, code))


def count_word(count: int) -> str:
    """One and two as words, larger counts as digits."""
    words = {1: _("one"), 2: _("two")}
    return words.get(count, grouped(count))


def either(values: Sequence[object]) -> str:
    """ "a, b or c" in the reader's language."""
    texts = [str(v) for v in values]
    if len(texts) < 2:
        return "".join(texts)
    return _("%(first)s or %(last)s") % {"first": ", ".join(texts[:-1]), "last": texts[-1]}


def _numbers(values: object) -> str:
    return either([grouped(v) for v in values]) if isinstance(values, list) else str(values)


def _form(code: object) -> str:
    try:
        return str(DriveFormFactor(str(code)).label)
    except ValueError:
        return str(code)


def _cpu(p: Mapping[str, object]) -> str:
    if "family" in p:
        families = either([family_name(str(f)) for f in p["families"]])  # type: ignore[attr-defined]
        return _("%(part)s is a %(family)s CPU; this chassis takes %(families)s.") % {
            "part": p["part"],
            "family": family_name(str(p["family"])),
            "families": families,
        }
    return _("%(part)s fits socket %(socket)s; this chassis has %(chassis)s.") % dict(p)


def _memory_balance(p: Mapping[str, object]) -> str:
    sentence = _(
        "%(dimms)s DIMMs do not populate the %(channels)s channels of %(cpus)s %(family)s "
        "CPUs evenly; fit %(fits)s."
    )
    return sentence % {
        "dimms": grouped(p["dimms"]),  # type: ignore[arg-type]
        "channels": grouped(p["channels"]),  # type: ignore[arg-type]
        "cpus": count_word(int(p["cpus"])),  # type: ignore[call-overload]
        "family": family_name(str(p["family"])),
        "fits": _numbers(p["fits"]),
    }


def _psu_capacity(p: Mapping[str, object]) -> str:
    sentence = _(
        "%(psus)s × %(rating)s W supplies in %(scheme)s redundancy carry %(capacity)s W; "
        "the system draws up to %(max)s W."
    )
    return sentence % {
        "psus": p["psus"],
        "rating": grouped(p["rating_w"]),  # type: ignore[arg-type]
        "scheme": p["scheme"],
        "capacity": grouped(p["capacity_w"]),  # type: ignore[arg-type]
        "max": grouped(p["max_w"]),  # type: ignore[arg-type]
    }


def _simple(template: Callable[[], str], **formats: Callable[[object], str]) -> Callable[..., str]:
    """A sentence whose parameters are formatted one by one (numbers grouped by default)."""

    def word(p: Mapping[str, object]) -> str:
        values = {name: formats.get(name, _default)(value) for name, value in p.items()}
        return template() % values

    return word


def _default(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return grouped(value)
    if isinstance(value, list):
        return _numbers(value)
    return str(value)


def _decimal1(value: object) -> str:
    return grouped(value, 1)  # type: ignore[arg-type]


SENTENCES: dict[str, Callable[[Mapping[str, object]], str]] = {
    "unknown_part": _simple(lambda: _("Part number %(part)s is not in the catalog.")),
    "fixed_configuration": _simple(
        lambda: _(
            "This system is sold only in its manufacturer's fixed configuration (as NVIDIA "
            "DGX systems and NVL72 racks are): its components cannot be changed."
        )
    ),
    "cpu_count": _simple(
        lambda: _("%(cpus)s CPUs in a chassis with %(sockets)s sockets: fit one per socket.")
    ),
    "cpu_mixed": _simple(
        lambda: _("CPUs of %(models)s models: every socket takes the same CPU model.")
    ),
    "cpu_socket": _cpu,
    "cpu_family": _cpu,
    "memory_missing": _simple(
        lambda: _("No memory: fit at least one module on each of the %(channels)s channels.")
    ),
    "memory_slots": _simple(lambda: _("%(dimms)s DIMMs do not fit the %(slots)s memory slots.")),
    "memory_balance": _memory_balance,
    "memory_mixed": _simple(
        lambda: _("Memory modules of %(models)s models: use one model throughout.")
    ),
    "memory_type": _simple(
        lambda: _("%(part)s is %(type)s memory; this chassis takes %(chassis)s.")
    ),
    "memory_speed": _simple(
        lambda: _("%(part)s runs at %(speed)s MT/s; this chassis takes %(speeds)s MT/s.")
    ),
    "memory_capacity": _simple(
        lambda: _("%(part)s holds %(capacity)s GB; this chassis takes %(capacities)s GB modules.")
    ),
    "pcie_slots": _simple(
        lambda: _("%(cards)s %(size)s cards do not fit the %(slots)s free %(size)s slots.")
    ),
    "drive_bays": _simple(
        lambda: _("%(drives)s drives (%(form)s) do not fit the %(bays)s bays for them."),
        form=_form,
    ),
    "psu_count": _simple(lambda: _("%(psus)s power supplies for %(bays)s bays: fill every bay.")),
    "psu_mixed": _simple(
        lambda: _("Power supplies of %(models)s models: use one model in every bay.")
    ),
    "psu_rating": _simple(
        lambda: _("%(part)s is rated %(rating_w)s W; this chassis takes %(ratings_w)s W supplies.")
    ),
    "psu_capacity": _psu_capacity,
    "rack_power": _simple(
        lambda: _("The system draws up to %(max_kw)s kW; the site's racks take %(limit_kw)s kW."),
        max_kw=_decimal1,
        limit_kw=_decimal1,
    ),
    "nic_per_gpu": _simple(
        lambda: _(
            "Multi-node training: one NIC of %(gbps)s Gb/s or faster per GPU (%(gpus)s); this "
            "configuration has %(nics)s."
        )
    ),
    "serving_nics": _simple(
        lambda: _("Serving only: two NICs are enough; %(nics)s add cost and power.")
    ),
}


def describe(finding: Finding) -> str:
    """The finding as a sentence in the active language (its code if unknown)."""
    sentence = SENTENCES.get(finding.code)
    return sentence(finding.params) if sentence else finding.code
