"""tco/canonical.py writes urllib's `urlencode` of the form's pairs, the same text."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote_plus, urlencode

import pytest
from django.http import QueryDict
from hypothesis import given
from hypothesis import strategies as st

from tco.canonical import _quoted, canonical_query
from tco.forms import CalculatorForm
from tco.presets import PRESETS
from tco.scenario_io import CatalogSnapshot
from tco.services import form_data


@given(st.text() | st.sampled_from(["Google Cloud", "a+b", "é", "x&y=z", "1e-05", "~._-"]))
def test_a_name_or_value_is_quoted_as_by_urllib(text: str) -> None:
    assert _quoted(text) == quote_plus(text)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [f"preset={preset.slug}" for preset in PRESETS]
    + ["preset=serve-70b&providers=Google+Cloud&providers=AWS&preset=free+text%C3%A9"],
)
def test_the_canonical_query_is_urlencode_of_its_pairs(seed_catalog: object, query: str) -> None:
    form = CalculatorForm(form_data(QueryDict(query)), catalog=CatalogSnapshot.load())
    assert form.is_valid(), form.errors
    canonical = canonical_query(form)
    pairs = parse_qsl(canonical, keep_blank_values=True)
    assert canonical == urlencode(pairs)
    assert ("providers", "Google Cloud") in pairs or "Google" not in query
