"""Cluster labels made into Python strings on first use (private; :attr:`evalstats_core.sums.FileSums.clusters`).

A file's cluster labels are needed by the reports that list clusters, not by the estimators, which read only how
many there are: :func:`~evalstats_core.sums.file_sums` keeps the labels' array and makes the tuple of str the
first time it is read (about 0.3 ms per 10,000 labels, otherwise paid by every analysis of a clustered file).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["Labels"]


class Labels(Sequence):
    """A tuple of str made from an array of labels on first use; compares, hashes and prints as that tuple."""

    __slots__ = ("_arr", "_tuple")

    def __init__(self, arr: np.ndarray) -> None:
        self._arr, self._tuple = arr, None

    def as_tuple(self) -> tuple[str, ...]:
        """The labels as a tuple of str (Python strings straight from a str array)."""
        if self._tuple is None:
            arr = self._arr
            self._tuple = (tuple(arr.tolist()) if arr.dtype.kind == "U" else tuple(map(str, arr.tolist()))
                           if arr.dtype.kind == "O" else tuple(str(c) for c in arr))
        return self._tuple

    def __len__(self) -> int:
        return len(self._arr) if self._tuple is None else len(self._tuple)

    def __getitem__(self, i: Any) -> Any:
        return self.as_tuple()[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_tuple())

    def __eq__(self, other: object) -> bool:
        return self.as_tuple() == (other.as_tuple() if isinstance(other, Labels) else other)

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        return repr(self.as_tuple())

    def __reduce__(self) -> tuple:
        return tuple, (self.as_tuple(),)  # pickled (a cache) as the plain tuple
