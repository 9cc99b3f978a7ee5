"""Vectorized sweep: totals, NPV and break-even for many scenarios at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from tco.engine.costmodel import (
    CostModel,
    break_even,
    cloud_total,
    cloud_totals,
    onprem_total,
    onprem_totals,
)
from tco.engine.errors import InvalidInput
from tco.engine.units import FloatArray

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is asked for
    import pandas as pd

_FIELDS = frozenset(CostModel.__dataclass_fields__) - {"clouds"}


@dataclass(frozen=True, slots=True, eq=False)
class SweepResult:
    """Arrays of length n (scenarios); cloud arrays are (clouds, n)."""

    cloud_names: tuple[str, ...]
    onprem_total: FloatArray
    onprem_npv: FloatArray
    cloud_total: FloatArray
    cloud_npv: FloatArray
    break_even_utilization: FloatArray  # NaN where the two lines never cross

    def to_frame(self) -> pd.DataFrame:
        """One row per scenario; cloud columns suffixed with the offering's index."""
        import pandas as pd

        columns: dict[str, FloatArray] = {
            "onprem_total": self.onprem_total,
            "onprem_npv": self.onprem_npv,
        }
        for k in range(len(self.cloud_names)):
            columns[f"cloud{k}_total"] = self.cloud_total[k]
            columns[f"cloud{k}_npv"] = self.cloud_npv[k]
            columns[f"cloud{k}_break_even_utilization"] = self.break_even_utilization[k]
        return pd.DataFrame(columns)


def sweep(
    model: CostModel,
    overrides: Mapping[str, npt.ArrayLike] | None = None,
    *,
    break_evens: bool = True,
    npvs: bool = True,
) -> SweepResult:
    """Evaluate ``model`` with fields replaced by arrays (numpy broadcasting).

    ``break_evens=False`` skips the break-even utilizations (their array is then empty,
    shape ``(0, n)``) and ``npvs=False`` the NPVs (empty too) for callers that need only
    the totals: the nominal totals are the same numbers either way.

    >>> m = CostModel(servers=1, gpus_per_server=8, server_price=100_000.0,
    ...     idle_power_kw=1.0, max_power_kw=10.0, pue=1.0, electricity_price_per_kwh=0.1,
    ...     colocation_per_kw_month=0.0, utilization=0.5, horizon_months=12,
    ...     discount_rate=0.0)
    >>> r = sweep(m, {"electricity_price_per_kwh": [0.1, 0.2]})
    >>> r.onprem_total.round(2).tolist()  # 100,000 + 12 × 5.5 kW × 730 h × price
    [104818.0, 109636.0]
    """
    changes: dict[str, FloatArray] = {}
    for name, values in (overrides or {}).items():
        if name not in _FIELDS:
            raise InvalidInput(name, f"{name!r} is not a cost input that can be swept.")
        array = np.asarray(values, dtype=np.float64)
        if not np.all(np.isfinite(array)):
            raise InvalidInput(name, "Swept values must be finite numbers.")
        changes[name] = array
    m = model.replace(**changes) if changes else model
    if npvs:
        onprem = onprem_totals(m)
        onprem_nominal, onprem_npv = onprem.total, onprem.npv
    else:  # the nominal total alone: the same closed form, without the discounting
        onprem_nominal, onprem_npv = onprem_total(m), None
    shape = np.broadcast_shapes(onprem_nominal.shape, *(np.shape(v) for v in changes.values()))
    clouds_total, clouds_npv, clouds_be = [], [], []
    for cloud in m.clouds:
        if npvs:
            totals = cloud_totals(m, cloud)
            clouds_total.append(np.broadcast_to(totals.total, shape))
            clouds_npv.append(np.broadcast_to(totals.npv, shape))
        else:
            clouds_total.append(np.broadcast_to(cloud_total(m, cloud), shape))
        if break_evens:
            clouds_be.append(np.broadcast_to(break_even(m, cloud), shape))
    empty = np.empty((0, *shape))
    return SweepResult(
        cloud_names=tuple(c.name for c in m.clouds),
        onprem_total=np.broadcast_to(onprem_nominal, shape).astype(np.float64),
        onprem_npv=(
            np.broadcast_to(onprem_npv, shape).astype(np.float64)
            if onprem_npv is not None
            else np.empty(0)
        ),
        cloud_total=np.stack(clouds_total) if clouds_total else empty,
        cloud_npv=np.stack(clouds_npv) if clouds_npv else empty,
        break_even_utilization=np.stack(clouds_be) if clouds_be else empty,
    )
