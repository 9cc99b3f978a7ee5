"""The self-serve result's "What is in it": the sized server's default configuration,
read-only, with the manufacturers' part numbers, in the reader's language and without
anything internal (prices, sources, estimate flags)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
URL = "/calculator/?preset=serve-70b&server=smc-821ge-tnhr-h100"
# catalog/data/chassis_defaults.csv: the SYS-821GE-TNHR's default, per server.
DEFAULT = (
    ("Xeon Platinum 8468", 2),
    ("MEM-DR564MC-ER48", 32),
    ("MZQL23T8HCLS-00A07", 8),
    ("MCX75310AAS-NEAT", 8),
    ("SMC-PSU-3000W-TI", 6),
)


def _section(client: Client, language: str) -> str:
    page = client.get(URL, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    found = re.search(r'<details class="what-is-in-it".*?</details>', page, re.S)
    assert found, "no What is in it"
    return found.group(0)


def test_the_result_lists_the_servers_parts_read_only(client: Client, seed_catalog: object) -> None:
    english = _section(client, "en")
    assert "What is in it" in english
    for part, quantity in DEFAULT:
        assert re.search(rf">{re.escape(part)}</td>.*?>{quantity}</td>", english, re.S), part
    assert "Memory module: 64 GB DDR5-4800 ECC RDIMM" in english
    assert "<input" not in english and "<select" not in english  # read-only
    for internal in ("$", "€", "estimate", "source", "cost"):
        assert internal not in english.lower(), internal
    dutch = _section(client, "nl")
    assert "Wat erin zit" in dutch and "48 kernen" in dutch
