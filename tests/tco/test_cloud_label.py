"""tco.presentation.wording.cloud_label: an option's name for people, its pricing term in the
reader's language."""

from __future__ import annotations

import pytest
from django.utils import translation

from tco.presentation.wording import cloud_label


@pytest.mark.parametrize(
    ("language", "name", "label"),
    [
        ("en", "AWS p5.48xlarge (committed_3y)", "AWS p5.48xlarge, 3-year commitment"),
        ("nl", "AWS p5.48xlarge (committed_3y)", "AWS p5.48xlarge, 3-jarige verbintenis"),
        ("en", "CoreWeave HGX H100 8-GPU (on_demand)", "CoreWeave HGX H100 8-GPU, on demand"),
        ("nl", "CoreWeave HGX H100 8-GPU (on_demand)", "CoreWeave HGX H100 8-GPU, on-demand"),
        ("en", "No term at all", "No term at all"),
        ("nl", "Some (thing) in brackets", "Some (thing) in brackets"),
    ],
)
def test_the_term_is_spelled_out_in_the_readers_language(
    language: str, name: str, label: str
) -> None:
    with translation.override(language):
        assert cloud_label(name) == label


def test_the_language_is_the_one_active_when_asked() -> None:
    name = "Lambda 8x H100 (spot)"
    with translation.override("nl"):
        dutch = cloud_label(name)
    with translation.override("en"):
        assert cloud_label(name) == "Lambda 8x H100, spot"
    with translation.override("nl"):
        assert cloud_label(name) == dutch
