"""The daily stale-price mail to staff: sent once a day, only when something is stale."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.utils import timezone

from catalog.models import ApiOffering, CloudOffering, FxRate, InfrastructureItem, ServerModel
from catalog.selectors import stale_prices
from catalog.services import notify_stale_prices as notify_service
from catalog.tasks import notify_stale_prices

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model: type[User]) -> list[object]:
    return [
        django_user_model.objects.create_user("ann", "ann@example.com", is_staff=True),
        django_user_model.objects.create_user("bob", "bob@example.com", is_staff=True),
        django_user_model.objects.create_user("cy", "cy@example.com", is_staff=False),
        django_user_model.objects.create_user(
            "dee", "dee@example.com", is_staff=True, is_active=False
        ),
    ]


def make_everything_fresh() -> None:
    recent = timezone.localdate() - timedelta(days=5)
    # FX rows are unique per day: keep the newest row of the pair.
    newest = FxRate.objects.order_by("-as_of").first()
    if newest is not None:
        FxRate.objects.exclude(pk=newest.pk).delete()
    for model in (CloudOffering, ServerModel, InfrastructureItem, FxRate, ApiOffering):
        model.objects.update(as_of=recent)
    ServerModel.objects.update(price_as_of=recent)  # a server's price has its own date


@pytest.mark.dates
def test_staff_get_one_summary_of_stale_prices(seed_catalog: object, staff: object) -> None:
    make_everything_fresh()
    as_of = timezone.localdate() - timedelta(days=200)
    CloudOffering.objects.filter(key="aws-p5-48xlarge-od").update(as_of=as_of)
    assert notify_stale_prices() == 2
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.com", "bob@example.com"]
    message = mail.outbox[0]
    assert message.subject == "1 stale price(s) in the GPU TCO catalog"
    assert "aws-p5-48xlarge-od" in message.body and "(200 days)" in message.body
    assert f"as of {as_of.day} {as_of:%b %Y} (200 days)" in message.body  # "15 Jan 2026"
    assert "55.04 USD" in message.body


@pytest.mark.dates
def test_a_second_run_the_same_day_sends_nothing(seed_catalog: object, staff: object) -> None:
    assert stale_prices()  # the seed catalog has old prices
    assert notify_stale_prices() == 2
    assert notify_stale_prices() == 0
    assert len(mail.outbox) == 2
    tomorrow = timezone.localdate() + timedelta(days=1)
    assert notify_service(today=tomorrow).sent == 2


def test_no_mail_when_nothing_is_stale(seed_catalog: object, staff: object) -> None:
    make_everything_fresh()
    assert stale_prices() == []
    result = notify_service()
    assert (result.stale, result.sent) == (0, 0)
    assert mail.outbox == []


@pytest.mark.dates
def test_only_the_current_fx_rate_can_be_stale(seed_catalog: object) -> None:
    make_everything_fresh()
    FxRate.objects.update(as_of=timezone.localdate() - timedelta(days=400))
    assert [(p.kind, p.key) for p in stale_prices()] == [("fx", "EUR-USD")]
