"""The database itself refuses impossible catalog rows, whatever code path writes them."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest
from django.db import IntegrityError, models, transaction

from catalog.models import CloudOffering, FxRate, Gpu, ServerModel, Site

pytestmark = pytest.mark.django_db


def refused(change: Callable[[], object]) -> bool:
    try:
        with transaction.atomic():
            change()
    except IntegrityError:
        return True
    return False


def _update(model: type[models.Model], key: str, **fields: object) -> Callable[[], object]:
    return lambda: model._default_manager.filter(key=key).update(**fields)


@pytest.mark.parametrize(
    ("model", "key", "fields"),
    [
        (CloudOffering, "aws-p5-48xlarge-od", {"price_per_hour": Decimal("-0.01")}),
        (CloudOffering, "aws-p5-48xlarge-od", {"gpu_count": 0}),
        (ServerModel, "nvidia-dgx-h100", {"list_price": Decimal("-1")}),
        (ServerModel, "nvidia-dgx-h100", {"gpu_count": 0}),
        (ServerModel, "nvidia-dgx-h100", {"idle_power_kw": Decimal("11")}),
        (Site, "nl-colo-amsterdam", {"pue": Decimal("0.9")}),
        (Site, "nl-colo-amsterdam", {"electricity_price_per_kwh": Decimal("-0.1")}),
        (Gpu, "h100-sxm", {"memory_gb": Decimal("0")}),
    ],
)
def test_impossible_values_are_refused(
    seed_catalog: object, model: type, key: str, fields: dict[str, object]
) -> None:
    assert refused(_update(model, key, **fields))


def test_valid_update_is_accepted(seed_catalog: object) -> None:
    assert not refused(_update(CloudOffering, "aws-p5-48xlarge-od", price_per_hour=Decimal("0")))


def test_unique_sku_per_gpu_and_unique_keys(seed_catalog: object) -> None:
    original = ServerModel.objects.get(key="smc-821ge-tnhr-h100")

    def duplicate_sku() -> None:
        original.pk = None
        original.key = "another-key"
        original.save()

    assert refused(duplicate_sku)
    gpu = Gpu.objects.get(key="h100-sxm")

    def duplicate_key() -> None:
        gpu.pk = None
        gpu.save()

    assert refused(duplicate_key)


def test_fx_rate_needs_two_currencies_and_a_positive_rate(seed_catalog: object) -> None:
    rate = FxRate.objects.first()
    assert rate is not None
    assert refused(lambda: FxRate.objects.filter(pk=rate.pk).update(quote="EUR"))
    assert refused(lambda: FxRate.objects.filter(pk=rate.pk).update(rate=Decimal("0")))
