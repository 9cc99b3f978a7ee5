"""quick_init: the engine's frozen records built by writing their fields directly are the
records the dataclass's own __init__ builds, defaults, factories and checks included."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import tco.engine
import tco.scenario_io
from tco.engine.records import quick_init


def quick_classes() -> list[type]:
    modules = [
        importlib.import_module(f"tco.engine.{m.name}")
        for m in pkgutil.iter_modules(tco.engine.__path__)
    ]
    found = {
        obj
        for module in [*modules, tco.scenario_io]
        for obj in vars(module).values()
        if inspect.isclass(obj) and "__dataclass_init__" in obj.__dict__
    }
    return sorted(found, key=lambda c: c.__qualname__)


def test_the_records_built_most_are_quick() -> None:
    names = {c.__qualname__ for c in quick_classes()}
    assert {"CloudCostParams", "CloudOptionResult", "Candidate", "OnPremMonthly"} <= names
    assert {c for c in quick_classes() if hasattr(c, "__post_init__")} <= set(checked_examples())


def checked_examples() -> dict[type, object]:
    """A valid record of each quick class that checks its fields (__post_init__)."""
    from tco.engine.examples import reference_scenario

    scenario = reference_scenario()
    return {type(scenario): scenario, type(scenario.server): scenario.server}


@pytest.mark.parametrize("cls", quick_classes(), ids=lambda c: c.__qualname__)
def test_quick_records_are_the_dataclasses(cls: type) -> None:
    """Every field given, and only the required ones (the defaults): the same fields, the
    same frozen record, by position and by name. A class that checks its fields gets a
    valid record's values (and its checks run: the dataclass's own __init__ runs them too)."""
    fields = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__"):
        example = checked_examples()[cls]
        values = {f.name: getattr(example, f.name) for f in fields}
    else:
        values = {f.name: object() for f in fields}
    required = {
        f.name: values[f.name]
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    for kwargs in (values, required):
        quick = cls(**kwargs)
        slow = cls.__new__(cls)
        cls.__dataclass_init__(slow, **kwargs)  # type: ignore[attr-defined]
        for f in fields:
            a, b = getattr(quick, f.name), getattr(slow, f.name)
            assert a is b or a == b, f.name  # equal: a factory's default, a checked copy
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(quick, fields[0].name, None)
    positional = cls(*values.values())
    assert all(getattr(positional, f.name) == values[f.name] for f in fields)
    if required:
        with pytest.raises(TypeError):
            cls()  # the required fields are required
    assert inspect.signature(cls.__init__) == inspect.signature(cls.__dataclass_init__)  # type: ignore[attr-defined]


def test_checks_and_factories_run_as_in_the_dataclass() -> None:
    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        size: int
        tags: list[str] = dataclasses.field(default_factory=list)

        def __post_init__(self) -> None:
            if self.size < 0:
                raise ValueError("negative")

    a, b = Checked(1), Checked(2)
    assert a.tags == [] and a.tags is not b.tags
    with pytest.raises(ValueError):
        Checked(-1)

    @quick_init
    @dataclasses.dataclass(frozen=True)
    class Plain:  # no slots: the fields live in the instance's __dict__
        size: int
        name: str = "x"

    assert dataclasses.astuple(Plain(3)) == (3, "x") and Plain(3) == Plain(3)


def test_fields_it_cannot_write_are_refused() -> None:
    with pytest.raises(TypeError):

        @quick_init
        @dataclasses.dataclass(frozen=True, slots=True)
        class KeywordOnly:
            size: int = dataclasses.field(kw_only=True)

    with pytest.raises(TypeError):

        @quick_init
        @dataclasses.dataclass(frozen=True, slots=True)
        class Derived:
            size: int
            double: int = dataclasses.field(init=False, default=0)


def test_replace_is_dataclasses_replace() -> None:
    """records.replace runs the class's __init__ (its checks) like dataclasses.replace."""
    from tco.engine import records
    from tco.engine.errors import InvalidInput
    from tco.engine.examples import reference_scenario
    from tco.engine.inputs import Scenario

    scenario = reference_scenario()
    offerings = list(scenario.cloud_offerings[:2])
    fast = records.replace(scenario, cloud_offerings=offerings, name="other")
    slow = dataclasses.replace(scenario, cloud_offerings=offerings, name="other")
    assert fast == slow and type(fast.cloud_offerings) is tuple  # __post_init__ ran
    assert records.replace(scenario) == scenario
    with pytest.raises(TypeError):
        records.replace(scenario, no_such_field=1)
    with pytest.raises(InvalidInput):
        records.replace(scenario, cloud_offerings=())  # the scenario's own check
    with pytest.raises(InvalidInput):
        dataclasses.replace(scenario, cloud_offerings=())
    assert isinstance(fast, Scenario)


@pytest.mark.parametrize("currencies", [("EUR", "USD", "GBP"), ("GBP", "EUR", "USD")])
def test_cost_model_amounts_convert_as_fx_convert(currencies: tuple[str, str, str]) -> None:
    """build_cost_model looks each rate up once: the amounts FxRates.convert gives."""
    from tco.engine.examples import reference_scenario
    from tco.engine.scenario import build_cost_model
    from tco.engine.units import FxRates

    site_currency, finance_currency, reporting = currencies
    scenario = reference_scenario()
    fx = FxRates(usd_per_eur=1.0937, usd_per_gbp=1.2713)
    finance = dataclasses.replace(
        scenario.finance, fx=fx, currency=finance_currency, reporting_currency=reporting
    )
    site = dataclasses.replace(scenario.site, currency=site_currency)
    scenario = dataclasses.replace(scenario, finance=finance, site=site)
    m = build_cost_model(scenario, 3, with_clouds=False)
    assert m.electricity_price_per_kwh == fx.convert(
        site.electricity_price_per_kwh, site_currency, reporting
    )
    assert m.colocation_per_kw_month == fx.convert(
        site.colocation_per_kw_month, site_currency, reporting
    )
    assert m.networking_per_server == fx.convert(
        finance.networking_per_server, finance_currency, reporting
    )
    assert m.staff_annual_cost == fx.convert(finance.staff_annual_cost, finance_currency, reporting)
