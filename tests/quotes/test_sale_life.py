"""Issue 43 item 5: systems past their sale life are flagged and not offered by default.

"Start a quote" from the customer-service preset quoted 1 × NVIDIA DGX A100 640GB (a launch
price of 14 May 2020) and "Add a line" started its list at it. The seed catalog's newest
server price is the GB300 NVL72's of 2 December 2026; five years before it is 2 December
2021, so the DGX A100 (14 May 2020) is past its sale life and the L40S server (1 October
2023), the next oldest, is not.
"""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.contrib.auth.models import User
from django.http import QueryDict
from django.test import Client

from catalog.models import ServerModel, past_sale_life, sale_life_start
from quotes import services
from quotes.models import Customer
from tco.analysis.calculator import analyse_query

pytestmark = pytest.mark.django_db

A100 = "nvidia-dgx-a100-640gb"


def test_the_sale_life_starts_five_years_before_the_newest_price() -> None:
    assert sale_life_start(date(2026, 12, 2)) == date(2021, 12, 2)
    assert sale_life_start(date(2028, 2, 29)) == date(2023, 2, 28)  # no 29 February in 2023


def test_the_seed_catalog_flags_the_dgx_a100_only(seed_catalog: object) -> None:
    assert past_sale_life(ServerModel.objects.all()) == {A100}
    assert past_sale_life([]) == set()


def test_the_calculator_no_longer_chooses_it_but_lists_it_flagged(
    client: Client, seed_catalog: object
) -> None:
    # customer-service chose the DGX A100 as "the cheapest that fits" before.
    _form, outcome = analyse_query(QueryDict("preset=customer-service"))
    assert outcome.analysis is not None
    assert outcome.analysis.built.server_model.key != A100
    assert A100 not in {c.server.key for c in outcome.analysis.candidates}
    page = client.get("/calculator/?preset=customer-service").content.decode()
    option = re.search(rf'<option value="{A100}"[^>]*>([^<]*)</option>', page)
    assert option and option.group(1).endswith("(past its sale life)")
    # Chosen on purpose, it is still costed.
    _form, chosen = analyse_query(QueryDict(f"preset=customer-service&server={A100}"))
    assert chosen.analysis is not None and chosen.analysis.built.server_model.key == A100


def test_a_new_quote_and_a_new_line_start_from_a_system_on_sale(
    client: Client, seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=customer-service"
    )
    revision = quote.revisions.get()
    servers = [line.catalog_key for line in revision.lines.all() if line.kind == "server"]
    assert servers and f"server:{A100}" not in servers
    groups = services.catalog_choices()
    first_group, first_choices = groups[0]
    assert first_group == "Servers" and first_choices[0][0] != f"server:{A100}"
    last_group, last_choices = groups[-1]
    assert last_group == "Servers past their sale life"
    assert last_choices == [
        (
            f"server:{A100}",
            "NVIDIA DGX A100 640GB (8× A100 80GB SXM), past its sale life (price of 14 May 2020)",
        )
    ]
    # Chosen on purpose, the line is added and flagged on the draft.
    client.force_login(sales_user)
    added = client.post(
        f"/quotes/revisions/{revision.public_id}/lines/",
        {"catalog_key": f"server:{A100}", "quantity": "1", "discount_pct": "0"},
    )
    assert added.status_code in (200, 302)
    page = client.get(f"/quotes/{quote.public_id}/").content.decode()
    assert page.count("past-sale-life") == 1
