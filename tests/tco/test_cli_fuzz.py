"""Fuzz `manage.py tco estimate` with malformed scenario files (hypothesis).

Every file below is broken on purpose; the command must refuse each one with a one-line
message naming the file and exit status 1 (Django's CommandError), never a traceback.
The command runs in-process (call_command) so that 300+ cases stay fast.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
BASE = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())

pytestmark = pytest.mark.django_db

# Numeric fields of the example and values each refuses.
NUMERIC = [
    ("workload", "params_billion"),
    ("workload", "tokens_billion"),
    ("workload", "deadline_days"),
    ("finance", "horizon_months"),
    ("finance", "utilization"),
    ("finance", "discount_rate"),
]
BAD_SCALARS = st.one_of(
    st.text(max_size=8),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.integers(min_value=-(10**6), max_value=-1),  # none of these fields may be negative
    st.integers(min_value=10**309, max_value=10**600),  # no float holds these
    st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False),
)


@st.composite
def malformed(draw: st.DrawFn) -> str:
    """The text of a scenario file that is wrong in one way or another."""
    kind = draw(st.integers(0, 8))
    doc: dict[str, Any] = copy.deepcopy(BASE)
    if kind == 0:  # a numeric field of the wrong type or out of range
        block, name = draw(st.sampled_from(NUMERIC))
        value = draw(BAD_SCALARS)
        if value is None and name == "deadline_days":  # the one optional field: null is valid
            value = "thirty"
        doc[block][name] = value
    elif kind == 1:  # an unknown field somewhere
        name = draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in BASE))
        target = draw(st.sampled_from([doc, doc["workload"], doc["finance"]]))
        if target is not doc and name in ("name",):
            name += "_x"
        target[name + "\u00a7"] = draw(st.integers())
    elif kind == 2:  # a required block missing
        del doc[draw(st.sampled_from(["workload", "server", "site", "cloud_offerings"]))]
    elif kind == 3:  # nesting far deeper than any scenario
        depth = draw(st.integers(25, 400))
        nested: Any = 1
        for _ in range(depth):
            nested = [nested] if draw(st.booleans()) else {"k": nested}
        block, name = draw(st.sampled_from(NUMERIC))
        doc[block][name] = nested
    elif kind == 4:  # not JSON at all, or JSON that is not an object
        text: str = draw(
            st.one_of(
                st.text(max_size=40).filter(lambda t: not t.strip().startswith("{")),
                st.just("{" * 3 + '"a": 1'),
                st.just("[" * 50_000),
                st.just('{"workload": ' + "1" * 5000 + "}"),
                st.just("NaN"),
                st.just('{"workload": {"params_billion": Infinity}}'),
            )
        )
        return text
    elif kind == 5:  # unknown catalog keys
        which = draw(st.sampled_from(["server", "site", "cloud_offerings"]))
        key = "no-such-" + draw(st.text(alphabet="abcdef", min_size=1, max_size=6))
        doc[which] = [key] if which == "cloud_offerings" else key
    elif kind == 6:  # a percentage where a fraction belongs
        field = draw(st.sampled_from(["utilization", "discount_rate", "support_pct_per_year"]))
        doc["finance"][field] = draw(
            st.floats(min_value=1.01, max_value=100.0, allow_nan=False, allow_infinity=False)
        )
    elif kind == 7:  # an unsupported or unknown currency
        doc["finance"]["reporting_currency"] = draw(st.sampled_from(["GBP", "JPY", "", "usd"]))
    else:  # a workload kind that does not exist
        valid = {"pretrain", "full_finetune", "lora", "qlora", "inference"}
        doc["workload"]["kind"] = draw(st.text(max_size=10).filter(lambda k: k not in valid))
    return json.dumps(doc)


@settings(
    max_examples=320,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
@given(text=malformed())
def test_malformed_files_end_in_one_line_and_exit_1(
    seed_catalog: object, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "fuzz.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("tco", "estimate", "--input", str(path), "--format", "table")
    message = str(caught.value)
    assert caught.value.returncode == 1
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"{path}: ")
