"""Price history: who changed what from when; analyses use the price of their date."""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.loader import load_catalog
from catalog.models import CloudOffering, PriceChange
from catalog.selectors import price_changed_since
from catalog.services import import_price_file
from tco.engine import evaluate
from tco.scenario.resolve import CatalogSnapshot, ScenarioError, build_scenario
from tests.catalog.price_files import csv_bytes, exported_rows, set_cell

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
P5 = "aws-p5-48xlarge-od"
OLD, NEW = Decimal("55.04"), Decimal("38.50")


def change_p5_price(effective: date, price: Decimal = NEW, user: User | None = None) -> None:
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", str(price))
    set_cell(rows, P5, "as_of", effective.isoformat())
    import_price_file(
        kind="cloud", filename="cloud.csv", data=csv_bytes(rows), source="test", changed_by=user
    )


def document(as_of: date | None = None) -> dict[str, object]:
    doc: dict[str, object] = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())
    if as_of is not None:
        doc["as_of"] = as_of.isoformat()
    return doc


def test_seed_load_starts_the_history_of_every_price(seed_catalog: object) -> None:
    history = PriceChange.objects.filter(kind="cloud", key=P5)
    assert [(c.old_value, c.new_value, c.effective_from) for c in history] == [
        (None, OLD, date(2025, 7, 1))
    ]
    assert history[0].changed_by is None and history[0].source == "load_catalog"
    assert PriceChange.objects.filter(kind="cloud").count() == CloudOffering.objects.count()
    # The two seed EUR/USD rates are one history: the second follows the first.
    fx = list(PriceChange.objects.filter(kind="fx", key="EUR-USD"))
    assert [(c.old_value, c.new_value) for c in fx] == [
        (None, Decimal("1.0411")),
        (Decimal("1.0411"), Decimal("1.16")),
    ]
    load_catalog()  # unchanged files add nothing
    assert PriceChange.objects.filter(kind="cloud", key=P5).count() == 1


@pytest.mark.dates
def test_a_change_records_old_new_date_and_who(
    seed_catalog: object, django_user_model: type[User]
) -> None:
    user = django_user_model.objects.create_user("sam", is_staff=True)
    effective = timezone.localdate() - timedelta(days=3)
    change_p5_price(effective, user=user)
    latest = PriceChange.objects.filter(kind="cloud", key=P5).latest("changed_at")
    assert (latest.old_value, latest.new_value) == (OLD, NEW)
    assert latest.effective_from == effective and latest.changed_by == user
    assert latest.pct_change == pytest.approx(float((NEW - OLD) / OLD))
    assert latest.age_days == 3


@pytest.mark.dates
def test_analysis_dated_before_a_price_change_uses_the_old_price(seed_catalog: object) -> None:
    effective = timezone.localdate() - timedelta(days=10)
    change_p5_price(effective)

    def p5_price(as_of: date | None) -> float:
        built = build_scenario(document(as_of))
        return built.scenario.cloud_offerings[0].price_per_hour

    assert p5_price(effective - timedelta(days=1)) == float(OLD)
    assert p5_price(effective) == float(NEW)
    assert p5_price(None) == float(NEW)
    # Before the row's first recorded price, its first price is the best known.
    assert p5_price(date(2020, 1, 1)) == float(OLD)

    before = evaluate(build_scenario(document(effective - timedelta(days=1))).scenario)
    after = evaluate(build_scenario(document(effective)).scenario)
    p5_before = next(o for o in before.cloud_options if "p5.48xlarge" in o.name)
    p5_after = next(o for o in after.cloud_options if "p5.48xlarge" in o.name)
    assert p5_before.total_cost > p5_after.total_cost
    assert before.onprem.total_cost == after.onprem.total_cost
    # The assumptions show the price and the date of the price that was used.
    old_assumption = next(
        a
        for a in build_scenario(document(effective - timedelta(days=1))).assumptions
        if "p5.48xlarge" in str(a.label)
    )
    assert old_assumption.as_of == date(2025, 7, 1)


@pytest.mark.dates
def test_fx_rate_of_the_analysis_date_is_used(seed_catalog: object) -> None:
    early = build_scenario(document(date(2025, 6, 1)))
    late = build_scenario(document(timezone.localdate()))
    assert early.scenario.finance.fx.usd_per_eur == pytest.approx(1.0411)
    assert late.scenario.finance.fx.usd_per_eur == pytest.approx(1.16)


def test_dated_snapshot_costs_one_query_more(seed_catalog: object) -> None:
    with CaptureQueriesContext(connection) as current:
        CatalogSnapshot.load()
    with CaptureQueriesContext(connection) as dated:
        CatalogSnapshot.load(as_of=date(2026, 1, 1))
    assert len(current) == 7 and len(dated) == 8


def test_scenario_as_of_must_be_a_date(seed_catalog: object) -> None:
    for bad in ("2026-13-01", 20260101, "yesterday"):
        with pytest.raises(ScenarioError) as caught:
            build_scenario({**document(), "as_of": bad})
        assert caught.value.field == "as_of"


@pytest.mark.dates
def test_estimate_command_with_as_of_uses_the_price_of_that_date(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    effective = timezone.localdate() - timedelta(days=10)
    change_p5_price(effective)

    def p5_total(as_of: date) -> float:
        path = tmp_path / "scenario.json"
        path.write_text(json.dumps(document(as_of)))
        call_command("tco", "estimate", "--input", str(path))
        result = json.loads(capsys.readouterr().out)
        total: float = next(
            o["total_cost"] for o in result["options"] if "p5.48xlarge" in o["name"]
        )
        return total

    assert p5_total(effective - timedelta(days=1)) > p5_total(effective)


@pytest.mark.dates
def test_price_changed_since_for_quotes(seed_catalog: object) -> None:
    yesterday = timezone.localdate() - timedelta(days=1)
    # The seed load recorded first prices, which are not changes.
    assert not price_changed_since(kind="cloud", key=P5, since=yesterday)
    moment = timezone.now()
    change_p5_price(timezone.localdate() - timedelta(days=30))
    # Recorded after the quote, even though it takes effect from an earlier date.
    assert price_changed_since(kind="cloud", key=P5, since=moment)
    assert price_changed_since(kind="cloud", key=P5, since=yesterday)
    assert not price_changed_since(kind="cloud", key=P5, since=timezone.now())
    assert not price_changed_since(kind="cloud", key="aws-p5en-48xlarge-od", since=yesterday)


@pytest.mark.dates
def test_history_page_shows_current_price_age_and_changes(
    client: Client, seed_catalog: object
) -> None:
    effective = timezone.localdate() - timedelta(days=10)
    change_p5_price(effective)
    html = client.get(f"/catalog/prices/cloud/{P5}/").content.decode()
    assert "38.50 USD" in html and "10 days" in html
    # (38.50 − 55.04) / 55.04 = −30.05 %, rounded to one decimal
    assert "55.04 → 38.50 USD" in html and "-30.1" in html
    overview = client.get("/catalog/").content.decode()
    assert f'href="/catalog/prices/cloud/{P5}/"' in overview
    fx = client.get("/catalog/prices/fx/EUR-USD/")
    assert fx.status_code == 200 and "1.0411 → 1.16" in fx.content.decode()
    assert client.get("/catalog/prices/cloud/no-such-key/").status_code == 404
    assert client.get("/catalog/prices/gpus/h100-sxm/").status_code == 404


def test_price_edits_in_the_admin_are_kept_in_the_history(
    seed_catalog: object, admin_user: User, rf: RequestFactory
) -> None:
    from django.contrib import admin

    request = rf.post("/admin/")
    request.user = admin_user
    offer = CloudOffering.objects.get(key=P5)
    model_admin = admin.site.get_model_admin(CloudOffering)
    offer.source = "typo fixed"
    model_admin.save_model(request, offer, None, True)  # no price change: no history
    assert PriceChange.objects.filter(kind="cloud", key=P5).count() == 1
    offer.price_per_hour = Decimal("44.00")
    model_admin.save_model(request, offer, None, True)
    latest = PriceChange.objects.filter(kind="cloud", key=P5).latest("changed_at")
    assert (latest.old_value, latest.new_value, latest.source) == (OLD, Decimal("44"), "admin")
    assert latest.changed_by == admin_user
