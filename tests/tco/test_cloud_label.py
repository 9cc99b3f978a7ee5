"""tco.wording.cloud_label: an option's name for people, kept per language."""

from __future__ import annotations

import pytest
from django.utils import translation

from config.render_language import language_bound
from tco.wording import _cloud_label, cloud_label

NAMES = [
    "AWS p5.48xlarge (committed_3y)",
    "CoreWeave HGX H100 8-GPU (on_demand)",
    "Lambda 8x H100 (spot)",
    "Some API (api)",
    "No term at all",
]


@pytest.mark.parametrize("bound", [False, True])
def test_kept_labels_are_those_made_afresh_in_each_language(bound: bool) -> None:
    for language in ("en", "nl", "en"):
        with translation.override(language):
            if bound:
                with language_bound():
                    kept = [cloud_label(n) for n in NAMES]
                    fresh = [_cloud_label(n) for n in NAMES]
            else:
                kept = [cloud_label(n) for n in NAMES]
                fresh = [_cloud_label(n) for n in NAMES]
        assert kept == fresh
        assert kept[0] == ("AWS p5.48xlarge, 3-year commitment" if language == "en" else kept[0])
    with translation.override("nl"):
        assert cloud_label(NAMES[1]) != "CoreWeave HGX H100 8-GPU, on demand"
