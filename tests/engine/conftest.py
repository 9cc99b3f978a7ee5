"""Fixtures for the engine tests: plain Python, no Django."""

from __future__ import annotations

import pytest

from tco.engine import Scenario, ServerSpec
from tco.engine.examples import HGX_H100_SERVER, reference_scenario


@pytest.fixture
def scenario() -> Scenario:
    return reference_scenario()


@pytest.fixture
def server() -> ServerSpec:
    return HGX_H100_SERVER
