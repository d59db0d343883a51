"""The draws of the wild cluster bootstrap (private to :mod:`evalstats_core.wild`): the weight vectors, drawn
or enumerated, each reduced to the five coefficients that give its bootstrap t at any null, and the count of
draws whose ``|t*|`` exceeds the observed ``|t|``.

The algebra is in the Notes of :func:`evalstats_core.wild.wild_cluster_bootstrap`: for a draw,
``d* = a + b d`` and ``sum_g S*_g^2 = p2 + 2 pq d + q2 d^2`` with ``d = estimate - null``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

_TABLES = {
    "rademacher": np.array([-1.0, 1.0]),  # +-1, probability 1/2 each
    "webb": np.array([-math.sqrt(1.5), -1.0, -math.sqrt(0.5), math.sqrt(0.5), 1.0, math.sqrt(1.5)]),  # 1/6 each
}
_CHUNK_CELLS = 1 << 16  # weights are drawn ~64k (draw, cluster) cells at a time (cache-sized),
_CHUNK_ROWS = 16  # and at least 16 draws
_TIE = 1e-9  # |t*| must exceed |t| by more than _TIE * (1 + |t|) to count: exact ties never count
_GRID_BLOCK = 8  # grid points evaluated together, each block on the draws that can still count


@dataclass(frozen=True, slots=True)
class _Draws:
    """Per-draw coefficients of the non-constant weight vectors (each shape (m,)); see the Notes of
    :func:`evalstats_core.wild.wild_cluster_bootstrap`.

    For a draw, ``d* = a + b d`` and ``sum_g S*_g^2 = p2 + 2 pq d + q2 d^2``; ``k = G/(G-1)/n^2``
    turns that sum into ``se*^2``. Constant weight vectors (exact ties) are left out but counted in
    ``total``.
    """

    a: np.ndarray
    b: np.ndarray
    p2: np.ndarray
    pq: np.ndarray
    q2: np.ndarray
    k: float
    total: int
    enumerated: bool

    def t_star(self, d: float) -> np.ndarray:
        """Bootstrap t statistics of the non-constant draws at ``d = estimate - null`` (for tests)."""
        var = np.maximum(self.k * (self.p2 + d * (2.0 * self.pq + d * self.q2)), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):  # se* = 0: +-inf (nan if d* = 0 too)
            return (self.a + self.b * d) / np.sqrt(var)


def _bootstrap(
    sums: np.ndarray, sizes: np.ndarray, n: int, kind: str, n_boot: int, rng: Any
) -> _Draws:
    """Draw (or enumerate) the weights in chunks and reduce each draw to its five coefficients."""
    g = sums.size
    table = _TABLES[kind]  # (base,) the weight values
    base = table.size
    enumerated = g <= 64 and base**g <= n_boot
    total = base**g if enumerated else n_boot
    gen = None if enumerated else np.random.default_rng(rng)
    ns = sizes * sums  # (G,) n_g S_g
    n2 = sizes * sizes  # (G,) n_g^2
    cols_u = np.stack([sums, ns, n2, sums * sums], axis=1)  # (G, 4): multiplied by u
    cols_u2 = np.stack([sums * sums, ns, n2], axis=1)  # (G, 3): multiplied by u^2
    consts = (float(sums.sum()), float(sums @ sums), float(sizes @ sums), float(n2.sum()))
    rows = max(_CHUNK_ROWS, _CHUNK_CELLS // g)
    parts = []
    for start in range(0, total, rows):  # loop over chunks of draws, never over clusters
        r = min(rows, total - start)
        codes = _enumerate(start, r, g, base) if enumerated else _draw(gen, r, g, base)  # (r, G)
        codes = codes[codes.min(axis=1) != codes.max(axis=1)]  # constant vectors: t* = +-t, a tie
        parts.append(_coefficients(table.take(codes), sizes, n, cols_u, cols_u2, consts))
    a, b, p2, pq, q2 = (np.concatenate(c) for c in zip(*parts, strict=True))
    return _Draws(a, b, p2, pq, q2, g / (g - 1) / (n * n), total, enumerated)


def _enumerate(start: int, r: int, g: int, base: int) -> np.ndarray:
    """Rows ``start .. start + r - 1`` of every weight vector: the base-``base`` digits of the row index."""
    idx = np.arange(start, start + r, dtype=np.int64)[:, None]  # (r, 1)
    powers = base ** np.arange(g, dtype=np.int64)  # (G,)
    return (idx // powers % base).astype(np.uint8)  # (r, G) digit of each cluster


def _draw(gen: np.random.Generator, r: int, g: int, base: int) -> np.ndarray:
    """``r`` random weight vectors as codes ``0 .. base-1``, shape (r, G)."""
    if base == 2:  # one random bit per Rademacher weight
        packed = gen.integers(0, 256, size=(r, (g + 7) // 8), dtype=np.uint8)
        return np.unpackbits(packed, axis=1, count=g)
    return gen.integers(0, base, size=(r, g), dtype=np.uint8)


def _coefficients(
    v: np.ndarray, sizes: np.ndarray, n: int, cols_u: np.ndarray, cols_u2: np.ndarray, consts: tuple
) -> tuple[np.ndarray, ...]:
    """``a, b, p2, pq, q2`` of each weight vector (rows of ``v``, shape (r, G)).

    With ``u_g = v_g - b`` (the weights minus their size-weighted mean ``b``): ``a = sum_g v_g S_g /
    n``, ``S*_g(d) = P_g + d Q_g`` with ``P_g = b S_g + u_g S_g - n_g a`` and ``Q_g = n_g u_g``, so
    ``p2 = |P|^2``, ``pq = P.Q``, ``q2 = |Q|^2``. Expanding in ``u`` rather than ``v`` keeps the
    products free of cancellation for weight vectors that are nearly constant (the near-ties).
    """
    sum_s, ss, sn, nn = consts
    b = (v @ sizes) / n  # (r,) size-weighted mean weight: d* = a + b d
    u = v - b[:, None]  # (r, G)
    m_u = u @ cols_u  # (r, 4): sum u S, sum u n S, sum u n^2, sum u S^2
    m_u2 = (u * u) @ cols_u2  # (r, 3): sum u^2 S^2, sum u^2 n S, sum u^2 n^2
    a = (m_u[:, 0] + b * sum_s) / n  # sum_g v_g S_g / n  (sum_g S_g is 0 up to rounding)
    w2 = m_u2[:, 0] - 2.0 * a * m_u[:, 1] + a * a * nn  # |u S - a n|^2
    p2 = w2 + 2.0 * b * (m_u[:, 3] - a * sn) + b * b * ss  # |b S + (u S - a n)|^2
    pq = m_u2[:, 1] + b * m_u[:, 1] - a * m_u[:, 2]
    return a, b, p2, pq, m_u2[:, 2]


def _exceed(draws: _Draws, se: float, d: np.ndarray, reach: np.ndarray | None = None) -> np.ndarray:
    """How many draws have ``|t*| > |t|`` (beyond the tie margin) at each ``d`` (shape (m,) -> (m,)).

    With ``reach`` (each draw's bound from :func:`evalstats_core._wild_interval._reach`, the draws sorted by
    it, largest first) only the draws that can still count at the smallest ``|d|`` of a block are evaluated.
    """
    out = np.empty(d.size, dtype=np.int64)
    for start in range(0, d.size, _GRID_BLOCK):
        x = d[start : start + _GRID_BLOCK, None]  # (m', 1)
        live = draws.a.size if reach is None else int(np.searchsorted(-reach, -np.abs(x).min()))
        a, b, p2, pq, q2 = (c[:live] for c in (draws.a, draws.b, draws.p2, draws.pq, draws.q2))
        num = a + b * x  # (m', M) d*
        var = draws.k * (p2 + x * (2.0 * pq + x * q2))  # (m', M) se*^2
        np.maximum(var, 0.0, out=var)  # rounding near se* = 0 (then t* is infinite)
        bound = (1.0 + _TIE) * np.abs(x) / se + _TIE  # |t| plus the tie margin, (m', 1)
        out[start : start + _GRID_BLOCK] = np.count_nonzero(num * num > var * (bound * bound), axis=1)
    return out

def _take(draws: _Draws, idx: np.ndarray) -> _Draws:
    """The draws at indices (or boolean mask) ``idx``, same ``k`` and ``total``."""
    a, b, p2, pq, q2 = (x[idx] for x in (draws.a, draws.b, draws.p2, draws.pq, draws.q2))
    return _Draws(a, b, p2, pq, q2, draws.k, draws.total, draws.enumerated)
