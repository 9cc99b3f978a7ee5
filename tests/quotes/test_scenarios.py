"""Saved scenarios (docs/quotes.md, "Saved scenarios"): a calculator result saved to a
customer, compared side by side, priced again after a catalog change, and started as a
quote whose options are the scenarios; every page for each role.

The analyses are the seed catalog's: a scenario is saved through the service once per
query and copied for the other tests (the calculator takes a second or two a query).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from catalog.models import ServerModel
from quotes import services
from quotes.models import Customer, LineKind, SavedScenario, Team
from quotes.views.scenarios import comparison_chart
from tco.analysis.calculator import analyse_result_query
from tests.tco.test_dutch_pages import untranslated  # noqa: F401 (a fixture)

from .test_reprice import SERVERS, change_price

pytestmark = pytest.mark.django_db

# One H100 server serving a 70B model (the calculator's choice on "auto"), and the same
# work on an H200 server at a lower utilization.
H100_QUERY = "preset=serve-70b"
H200_QUERY = "preset=serve-70b&server=smc-821ge-tnhr-h200&utilization_pct=50"

_SAVED: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}


def saved(customer: Customer, owner: User, query: str, name: str) -> SavedScenario:
    """A scenario of `query` saved for `customer`: through the service the first time,
    then a copy of that one's document and figures (same seed catalog, same analysis)."""
    if query not in _SAVED:
        first = services.scenario_save(customer=customer, owner=owner, query=query, name=name)
        _SAVED[query] = (first.document, first.summary)
        return first
    document, summary = _SAVED[query]
    return SavedScenario.objects.create(
        customer=customer,
        owner=owner,
        name=name,
        document=document,
        summary=summary,
        catalog_date=date(2026, 12, 3),
    )


def test_saving_keeps_the_document_of_the_chosen_server_and_the_figures_shown(
    seed_catalog: object, customer: Customer, sales_user: User, frozen_today: date
) -> None:
    scenario = services.scenario_save(
        customer=customer,
        owner=sales_user,
        query=H100_QUERY,
        name="  1 ×  H100, 5 years ",
        note="Asked for on-prem first",
    )
    shown = analyse_result_query(H100_QUERY).analysis
    assert shown is not None
    assert scenario.name == "1 × H100, 5 years" and scenario.note == "Asked for on-prem first"
    assert scenario.catalog_date == date(2026, 12, 3)
    # The document, not a URL: the server the calculator chose on "auto", the work, the
    # finance; a fresh evaluation of it today gives the figures the page showed.
    assert scenario.document["server"]["key"] == shown.built.server_model.key
    assert scenario.document["workload"]["params_billion"] == 70
    assert "preset" not in str(scenario.document)
    figures = services.scenario_figures(scenario.summary)
    assert figures.owning == shown.report.onprem.total_cost  # type: ignore[union-attr]
    assert figures.verdict == shown.report.verdict.action
    assert figures.servers == shown.report.sizing.servers_required
    assert len(scenario.summary["owning_cumulative"]) == figures.horizon_months + 1
    assert not services.scenario_reprice(scenario).moved


def test_a_fleet_run_once_and_resold_is_the_owning_the_table_and_the_chart_show(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    # Pre-training 7B: the verdict compares renting with buying 3 servers for the one run
    # and reselling them ("3.1× cheaper than owning"), not with keeping them 5 years.
    scenario = services.scenario_save(
        customer=customer, owner=sales_user, query="preset=pretrain-7b", name="7B"
    )
    figures = services.scenario_figures(scenario.summary)
    report = analyse_result_query("preset=pretrain-7b").analysis.report  # type: ignore[union-attr]
    assert report.verdict.owning_kind == "own_resell"
    resold = next(report.options_of("onprem_resell"))
    assert figures.owning is not None and figures.owning == resold.total_cost
    assert report.onprem is not None and report.onprem.total_cost is not None
    assert figures.owning < report.onprem.total_cost
    # The chart's line ends where the table's figure is: one cost of owning on the page.
    assert scenario.summary["owning_cumulative"][-1] == pytest.approx(figures.owning, abs=1)
    # And the headline's ratio is that figure over the rental's.
    assert figures.rental_total is not None
    assert round(figures.owning / figures.rental_total, 1) == 3.1


def test_saving_is_refused_for_another_teams_customer_and_without_a_name(
    seed_catalog: object, customer: Customer, make_sales_user: Callable[..., User]
) -> None:
    nils = make_sales_user("nils", team="Nordics")
    with pytest.raises(services.QuoteError, match="own team"):
        services.scenario_save(customer=customer, owner=nils, query=H100_QUERY, name="x")
    anna = User.objects.get(username="anna")
    with pytest.raises(services.QuoteError, match="name"):
        services.scenario_save(customer=customer, owner=anna, query=H100_QUERY, name="  ")
    assert not SavedScenario.objects.exists()


def test_the_comparison_flags_the_inputs_that_differ(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    h100 = saved(customer, sales_user, H100_QUERY, "H100")
    h200 = saved(customer, sales_user, H200_QUERY, "H200 at 50 %")
    rows = {row.path: row for row in services.input_rows([h100.document, h200.document])}
    differing = {path for path, row in rows.items() if row.differs}
    # The form's utilization (50 % against the preset's 70 %) sets both of the document's
    # utilizations, listed once; the server differs; the work is the same.
    assert differing == {"server.key", "finance.utilization"}
    assert "demand.utilization" not in rows
    # As the form shows them: a percentage (the document's fraction × 100), a choice by
    # its label; the document's name (the kind in the words of the day) is not compared.
    assert rows["finance.utilization"].values == ("70", "50")
    assert rows["workload.kind"].values == ("Inference serving", "Inference serving")
    assert "name" not in rows
    assert rows["server.key"].values == ("smc-8125gs-tnhr-h100", "smc-821ge-tnhr-h200")
    assert rows["workload.params_billion"].values == ("70", "70")
    assert not rows["workload.params_billion"].differs
    # Labelled as the calculator's form labels the field that sets them.
    assert str(rows["finance.utilization"].label) == "Expected utilization (%)"
    assert str(rows["server.key"].label) == "Server model"


def test_the_combined_chart_has_one_line_per_scenario_s_owned_option(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    h100 = saved(customer, sales_user, H100_QUERY, "H100")
    h200 = saved(customer, sales_user, H200_QUERY, "H200")
    figure = comparison_chart([h100, h200], "nl")
    names = [trace["name"] for trace in figure["data"]]
    assert names == ["H100", "H200"]
    # Month 0 of each line is its purchase: the saved cumulative series, in whole euros.
    for trace, scenario in zip(figure["data"], (h100, h200), strict=True):
        assert trace["y"][0] == round(scenario.summary["owning_cumulative"][0])
        assert len(trace["x"]) == 61  # months 0..60 of the 5-year horizon
    assert figure["layout"]["separators"] == ",."
    assert "Cumulatieve" in str(figure["layout"]["title"])


def test_re_price_today_shows_what_a_server_price_change_moved(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    scenario = services.scenario_save(
        customer=customer, owner=sales_user, query=H100_QUERY, name="H100"
    )
    key = scenario.document["server"]["key"]
    server = ServerModel.objects.get(key=key)
    change_price(SERVERS, key, server.list_price + Decimal(10_000))
    repriced = services.scenario_reprice(scenario)
    moves = {move.key: move for move in repriced.moves}
    # Hand calculation: +10,000 USD on one server at EUR/USD 1.16 (the seed's rate) is
    # +8,620.69 EUR of hardware; over the 5-year horizon it also carries support at 10 %
    # a year (+4,310.34) and insurance at 0.5 % a year (+215.52) and returns 10 % as
    # residual value (−862.07): 8,620.69 × (1 + 0.5 + 0.025 − 0.1) = 12,284.48 EUR more.
    assert moves["owning"].moved
    assert moves["owning"].new - moves["owning"].old == pytest.approx(12_284.48, abs=0.02)
    assert moves["owning"].old == services.scenario_figures(scenario.summary).owning
    # Renting costs the same; the saving and the payback month move with the purchase.
    assert not moves["rental_total"].moved and not moves["servers"].moved
    assert moves["verdict"].moved and moves["break_even_month"].moved
    assert moves["break_even_month"].new > moves["break_even_month"].old
    scenario.refresh_from_db()  # re-pricing shows; the saved figures stay as saved
    assert services.scenario_figures(scenario.summary).owning == moves["owning"].old


def test_a_quote_from_two_scenarios_has_them_as_options_a_and_b(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    h100 = saved(customer, sales_user, H100_QUERY, "1 × H100")
    h200 = saved(customer, sales_user, H200_QUERY, "1 × H200 at 50 %")
    quote = services.quote_from_scenarios(scenarios=[h100, h200], owner=sales_user)
    main = quote.revisions.get(option_of__isnull=True)
    options = services.options_of(main)
    assert [(o.option_letter or "A", o.option_name) for o in options] == [
        ("A", "1 × H100"),
        ("B", "1 × H200 at 50 %"),
    ]
    for option, scenario in zip(options, (h100, h200), strict=True):
        servers = option.lines.get(kind=LineKind.SERVER)
        figures = services.scenario_figures(scenario.summary)
        # Each option sells its own scenario's servers, with its analysis attached.
        assert servers.catalog_key == f"server:{scenario.document['server']['key']}"
        assert servers.quantity == figures.servers == 1
        assert (option.tco or {})["scenario"] == scenario.document
        assert option.lines.filter(kind=LineKind.INSTALLATION).get().quantity == 1


def test_a_quote_takes_one_to_four_scenarios_of_one_customer(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    other = services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="Other BV",
        contact_name="Els",
        email="els@other.example",
        country="NL",
        language="nl",
    )
    mine = saved(customer, sales_user, H100_QUERY, "mine")
    theirs = saved(other, sales_user, H100_QUERY, "theirs")
    with pytest.raises(services.QuoteError, match="one customer"):
        services.quote_from_scenarios(scenarios=[mine, theirs], owner=sales_user)
    with pytest.raises(services.QuoteError, match="one to four"):
        services.quote_from_scenarios(scenarios=[mine] * 5, owner=sales_user)
    with pytest.raises(services.QuoteError, match="one to four"):
        services.quote_from_scenarios(scenarios=[], owner=sales_user)


# --- pages, per role --------------------------------------------------------------------


@pytest.fixture
def two_saved(seed_catalog: object, customer: Customer, sales_user: User) -> list[SavedScenario]:
    return [
        saved(customer, sales_user, H100_QUERY, "H100"),
        saved(customer, sales_user, H200_QUERY, "H200"),
    ]


def _user(role: str, make_sales_user: Callable[..., User]) -> User | None:
    """A user of `role`: anonymous (None), a plain user, sales without a team, sales of the
    customer's team, its manager, sales of another team, staff (in no team)."""
    if role == "anonymous":
        return None
    if role == "staff":
        return User.objects.create_user("root", "root@distributor.example", "pw", is_staff=True)
    team = {"sales": "Benelux", "manager": "Benelux", "other_team": "Nordics"}.get(role)
    user = make_sales_user(role, team=team, sales=role != "plain")
    if role == "manager":
        user.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    return user


def _pages(client: Client, customer: Customer, scenarios: list[SavedScenario]) -> list[int]:
    ids = [str(s.public_id) for s in scenarios]
    return [
        client.get(reverse("quotes:customer", args=[customer.public_id])).status_code,
        client.get(reverse("quotes:scenario_save"), {"calc": H100_QUERY}).status_code,
        client.get(
            reverse("quotes:scenario_compare", args=[customer.public_id]), {"s": ids}
        ).status_code,
        client.get(reverse("quotes:scenario_reprice", args=[scenarios[0].public_id])).status_code,
        client.post(
            reverse("quotes:scenario_quote", args=[customer.public_id]), {"s": ids}
        ).status_code,
    ]


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        # customer page, save form, compare, re-price, start a quote (302: to the new quote)
        ("anonymous", [302, 302, 302, 302, 403]),
        ("plain", [403, 403, 403, 403, 403]),
        ("sales_without_team", [404, 200, 404, 404, 404]),
        ("other_team", [404, 200, 404, 404, 404]),
        ("sales", [200, 200, 200, 200, 302]),
        ("manager", [200, 200, 200, 200, 302]),
        ("staff", [200, 200, 200, 200, 302]),
    ],
)
def test_every_page_for_each_role(
    client: Client,
    two_saved: list[SavedScenario],
    customer: Customer,
    make_sales_user: Callable[..., User],
    role: str,
    expected: list[int],
) -> None:
    user = _user(role, make_sales_user)
    if user is not None:
        client.force_login(user)
    assert _pages(client, customer, two_saved) == expected
    quotes = customer.quotes.count()
    assert quotes == (1 if expected[-1] == 302 else 0)


def test_sales_without_a_team_cannot_save_to_a_customer_they_do_not_see(
    client: Client, two_saved: list[SavedScenario], customer: Customer, make_sales_user: Any
) -> None:
    client.force_login(make_sales_user("lone", team=None))
    response = client.post(
        reverse("quotes:scenario_save"),
        {"calc": H100_QUERY, "customer": str(customer.public_id), "name": "mine"},
    )
    assert response.status_code == 400 and SavedScenario.objects.count() == 2
    page = client.get(reverse("quotes:scenario_save"), {"calc": H100_QUERY}).content.decode()
    assert "Your teams have no customers yet." in page and customer.company not in page


def test_the_pages_show_the_scenarios_and_the_differences(
    client: Client, two_saved: list[SavedScenario], customer: Customer, sales_user: User
) -> None:
    client.force_login(sales_user)
    listing = client.get(reverse("quotes:customer", args=[customer.public_id])).content.decode()
    assert "H100" in listing and "H200" in listing and "Re-price today" in listing
    ids = [str(s.public_id) for s in two_saved]
    url = reverse("quotes:scenario_compare", args=[customer.public_id])
    page = client.get(url, {"s": ids}).content.decode()
    assert 'id="scenario-inputs-differ"' in page and 'data-path="server.key"' in page
    assert 'data-path="workload.params_billion"' not in page  # the same in both
    assert page.count('class="differs"') == 2 * 2  # 2 rows: the differing and all inputs
    assert 'data-chart="scenarios"' in page and "<svg" in page
    assert "Start a quote with these as options" in page
    more = [
        SavedScenario.objects.create(
            customer=customer,
            owner=sales_user,
            name=f"copy {i}",
            document=two_saved[0].document,
            summary=two_saved[0].summary,
            catalog_date=date(2026, 12, 3),
        )
        for i in range(3)
    ]
    five = ids + [str(s.public_id) for s in more]
    assert client.get(url, {"s": five}).status_code == 302  # four at most
    assert client.get(url, {"s": ["not-an-id"]}).status_code == 404


def test_the_re_price_page_shows_old_and_new_after_a_price_change(
    client: Client, seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    scenario = services.scenario_save(
        customer=customer, owner=sales_user, query=H100_QUERY, name="H100"
    )
    client.force_login(sales_user)
    url = reverse("quotes:scenario_reprice", args=[scenario.public_id])
    assert 'class="moved"' not in client.get(url).content.decode()
    key = scenario.document["server"]["key"]
    change_price(SERVERS, key, ServerModel.objects.get(key=key).list_price + Decimal(10_000))
    page = client.get(url).content.decode()
    old = services.scenario_figures(scenario.summary).owning
    assert old is not None
    # The owning cost moved by 12,284.48 EUR (the hand calculation above), whole euros.
    saved, today = f"€{old:,.0f}", f"€{old + 12_284.48:,.0f}"
    row = page[page.index('id="move-owning"') :].split("</tr>")[0]
    assert 'class="moved"' in row and saved in row and today in row


def test_the_pages_in_dutch(
    client: Client,
    two_saved: list[SavedScenario],
    customer: Customer,
    sales_user: User,
    untranslated: list[str],  # noqa: F811
) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    client.force_login(sales_user)
    ids = [str(s.public_id) for s in two_saved]
    pages = [
        client.get(reverse("quotes:customer", args=[customer.public_id])),
        client.get(reverse("quotes:scenario_save"), {"calc": H100_QUERY}),
        client.get(reverse("quotes:scenario_compare", args=[customer.public_id]), {"s": ids}),
        client.get(reverse("quotes:scenario_reprice", args=[two_saved[0].public_id])),
    ]
    assert [page.status_code for page in pages] == [200] * 4
    for page in pages:  # every element id once on its page
        ids = re.findall(r'\sid="([^"]+)"', page.content.decode())
        assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert untranslated == []  # every text on the pages was looked up in Dutch and found
    compare = pages[2].content.decode()
    assert "Invoer die verschilt" in compare and "Kosten van bezit over de horizon" in compare
    assert "Verwachte benutting (%)" in compare and "Offerte maken met deze als opties" in compare


def test_staff_find_the_saved_scenarios_in_the_admin(
    client: Client, two_saved: list[SavedScenario]
) -> None:
    client.force_login(User.objects.create_superuser("root", "root@distributor.example", "pw"))
    listing = client.get(reverse("admin:quotes_savedscenario_changelist"), {"q": "H200"})
    assert listing.status_code == 200 and "H200" in listing.content.decode()
    change = client.get(reverse("admin:quotes_savedscenario_change", args=[two_saved[0].pk]))
    assert change.status_code == 200


def test_scenarios_in_two_currencies_share_the_table_not_the_chart_nor_a_quote(
    client: Client, two_saved: list[SavedScenario], customer: Customer, sales_user: User
) -> None:
    dollars = saved(customer, sales_user, f"{H100_QUERY}&currency=USD", "H100 in USD")
    assert services.scenario_figures(dollars.summary).currency == "USD"
    euros = two_saved[0]
    figure = comparison_chart([euros, dollars], "en")
    assert [trace["name"] for trace in figure["data"]] == ["H100"]
    client.force_login(sales_user)
    url = reverse("quotes:scenario_compare", args=[customer.public_id])
    page = client.get(url, {"s": [str(euros.public_id), str(dollars.public_id)]})
    assert 'id="not-charted"' in page.content.decode() and "H100 in USD" in page.content.decode()
    with pytest.raises(services.QuoteError, match="different currencies"):
        services.quote_from_scenarios(scenarios=[euros, dollars], owner=sales_user)
    assert not customer.quotes.exists()
