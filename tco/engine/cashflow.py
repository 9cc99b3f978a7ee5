"""One option's month-by-month amounts: a numpy block with named columns.

Months 0..H are the rows (month 0 is the purchase); the columns are the cost
components, then ``total`` (their sum) and ``cumulative`` (its running sum).
A plain array rather than a pandas DataFrame: a result page builds a dozen of
these per request, and a DataFrame's construction alone cost more than the
arithmetic. ``to_frame`` gives the DataFrame where one is wanted (exports).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from tco.engine.units import FloatArray

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is asked for
    import pandas as pd

SUMMARY_COLUMNS = ("total", "cumulative")


@dataclass(frozen=True, slots=True, eq=False)
class CashFlow:
    """Monthly amounts of one option.

    >>> cf = CashFlow.from_components(("a", "b"), np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> cf["total"].tolist(), cf["cumulative"].tolist(), cf.months.tolist()
    ([3.0, 7.0], [3.0, 10.0], [0, 1])
    >>> cf.components, len(cf)
    (('a', 'b'), 2)
    """

    columns: tuple[str, ...]
    values: FloatArray  # (H + 1) rows × len(columns)

    @classmethod
    def from_components(cls, components: tuple[str, ...], block: FloatArray) -> CashFlow:
        """Add ``total`` and ``cumulative`` to a block of component columns."""
        total = block.sum(axis=1)
        values = np.column_stack((block, total, np.cumsum(total)))
        return cls((*components, *SUMMARY_COLUMNS), values)

    def __getitem__(self, column: str) -> FloatArray:
        return self.values[:, self.columns.index(column)]

    def __len__(self) -> int:
        return len(self.values)

    @property
    def months(self) -> npt.NDArray[np.int64]:
        return np.arange(len(self.values))

    @property
    def components(self) -> tuple[str, ...]:
        """The cost components (every column but ``total`` and ``cumulative``)."""
        return tuple(c for c in self.columns if c not in SUMMARY_COLUMNS)

    def component_values(self) -> FloatArray:
        """The components' block, months × components (``components`` order)."""
        return self.values[:, : len(self.components)]

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(
            self.values,
            columns=list(self.columns),
            index=pd.RangeIndex(len(self.values), name="month"),
        )
