"""Issue 29 as the buyer reads it: the page says what owning includes, in English and Dutch."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from tco.presets import preset_data

pytestmark = pytest.mark.django_db


def page(client: Client, language: str, **changes: Any) -> str:
    data = preset_data("serve-70b")
    assert data is not None
    response = client.get("/calculator/", {**data, **changes}, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def extras_line(html: str) -> str:
    match = re.search(r'<p class="help" id="owning-extras">(.*?)</p>', html, re.S)
    assert match, "the page says what owning includes"
    return match.group(1)


def test_the_page_says_which_extras_owning_includes(client: Client, seed_catalog: object) -> None:
    english = extras_line(page(client, "en"))
    assert english.startswith("Owning includes, besides the servers: a front-end NIC and a")
    assert "installation €" in english and "0.10 FTE of operations staff" in english
    dutch = extras_line(page(client, "nl"))
    assert dutch.startswith("Bezit omvat naast de servers: een front-end-netwerkkaart")
    assert "0,10 fte beheerpersoneel" in dutch


def test_a_workstation_site_includes_no_data_centre_extras(
    client: Client, seed_catalog: object
) -> None:
    english = extras_line(page(client, "en", site="office-workstation-nl"))
    assert english.startswith("A workstation: owning includes no network fabric")
    dutch = extras_line(page(client, "nl", site="office-workstation-nl"))
    assert dutch.startswith("Een werkstation: bezit omvat geen GPU-netwerk")
