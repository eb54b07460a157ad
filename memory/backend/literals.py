"""Query parameters rendered once into FalkorDB's parameter header.

The FalkorDB client renders each parameter with `stringify_param_value`, one call
per value; a bulk write of a thousand rows with 256-float embeddings spends more
time there than the server spends writing. `Literal` and `Vector` render the same
text in fewer steps (the client calls `str()` on values it does not know).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from falkordb.helpers import stringify_param_value

DECIMALS = 7  # digits after the point of a vector component (float32 holds about 7)
_SCALE = 10**DECIMALS
_WIDTH = DECIMALS + 3  # separator, sign, point, digits: one component's bytes
_OPEN, _COMMA, _MINUS, _SPACE, _POINT, _ZERO = (np.uint8(ord(c)) for c in "[,- .0")


@functools.cache
def _row_format(dim: int) -> str:
    return ",".join(["%.9g"] * dim)


class Vector:
    """An embedding rendered straight into the query's parameter header.

    The FalkorDB client renders parameters it does not know (not str, list, dict
    or None) with `str()`; a 256-float list otherwise costs 256 recursive calls.
    `Vector.many` renders a whole matrix of embeddings with array operations.
    """

    __slots__ = ("text",)

    def __init__(self, values: Sequence[float] | np.ndarray) -> None:
        self.text = vector_texts(np.asarray(values, dtype=np.float64).reshape(1, -1))[0]

    @classmethod
    def many(cls, vectors: np.ndarray | Sequence[Sequence[float]]) -> list[Vector]:
        """One `Vector` per row of a matrix (rendered together: no loop per component)."""
        out = []
        for text in vector_texts(np.asarray(vectors, dtype=np.float64)):
            vector = cls.__new__(cls)
            vector.text = text
            out.append(vector)
        return out

    def __str__(self) -> str:
        return self.text


def vector_texts(vectors: np.ndarray) -> list[str]:
    """Each row of a 2-d array as a Cypher list literal of its components.

    A component below 1 in magnitude is written with `DECIMALS` digits after the
    point, no leading zero and a space for a plus sign (``[ .0612345,-.0012000]``):
    an absolute error of at most 5e-8, below float32's own for a unit vector's
    components. All rows' characters are built at once, as byte planes; a row with
    a larger or non-finite component is written with nine significant digits.
    """
    if vectors.ndim != 2:
        raise ValueError(f"vectors must be a 2-d array, got {vectors.ndim} dimensions")
    count, dim = vectors.shape
    if dim == 0:
        return ["[]"] * count
    scaled = np.rint(np.abs(vectors) * _SCALE)
    fast = np.isfinite(vectors).all(axis=1) & (scaled < _SCALE).all(axis=1)
    scaled[~fast] = 0
    digits = scaled.astype(np.int32)
    planes = np.empty((_WIDTH, count, dim), dtype=np.uint8)  # one plane per character
    planes[0] = _COMMA
    planes[0, :, 0] = _OPEN
    planes[1] = np.where(np.signbit(vectors) & (digits > 0), _MINUS, _SPACE)
    planes[2] = _POINT
    for place in range(_WIDTH - 1, 2, -1):
        rest = digits // 10
        planes[place] = digits - rest * 10 + _ZERO
        digits = rest
    text = planes.transpose(1, 2, 0).tobytes().decode("ascii")
    size = dim * _WIDTH
    return [
        text[row * size : (row + 1) * size] + "]"
        if fast[row]
        else "[" + (_row_format(dim) % tuple(vectors[row].tolist())) + "]"
        for row in range(count)
    ]


class Literal:
    """Rows rendered once, straight into the query's parameter header.

    Renders exactly as the FalkorDB client's `stringify_param_value` (strings quoted
    with backslash and double quote escaped, map keys in backticks, None as null),
    without its per-value dispatch: 2x faster on the rows of a bulk write.
    """

    __slots__ = ("text",)

    def __init__(self, value: Any) -> None:
        self.text = _literal(value)

    def __str__(self) -> str:
        return self.text


NUL_REFUSED = (
    "contains a NUL character (U+0000), which FalkorDB cannot receive in a query; "
    "remove it (input boundaries refuse it with the file and line)"
)


def check_params(params: Any, name: str = "params") -> None:
    """Refuse a string parameter holding a NUL before it is inlined into a query header.

    FalkorDB's client inlines parameters into a ``CYPHER k=v`` header and the server
    stops parsing at a NUL: the rest of the query would be lost or misread.

    Raises:
        ValueError: Naming the parameter.
    """
    kind = type(params)
    if kind is str:
        if "\x00" in params:
            raise ValueError(f"query parameter {name!r} {NUL_REFUSED}")
    elif kind is dict:
        for key, item in params.items():
            check_params(item, str(key) if name == "params" else f"{name}.{key}")
    elif kind is list or kind is tuple:
        for item in params:
            check_params(item, name)
    elif isinstance(params, Literal) and "\x00" in params.text:
        raise ValueError(f"query parameter {name!r} {NUL_REFUSED}")


def _literal(value: Any) -> str:
    kind = type(value)
    if kind is str:
        if "\x00" in value:
            raise ValueError(f"a string {NUL_REFUSED}")
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if kind is list or kind is tuple:
        return "[" + ",".join(map(_literal, value)) + "]"
    if kind is dict:
        parts = []
        for key, item in value.items():
            if not key or "`" in key:
                raise ValueError(f"a map key must be non-empty and without backticks: {key!r}")
            parts.append(f"`{key}`:{_literal(item)}")
        return "{" + ",".join(parts) + "}"
    if kind is Vector:
        return str(value.text)
    if isinstance(value, str | list | tuple | dict):  # subclasses: the general path
        return str(stringify_param_value(value))
    return str(value)


__all__ = ["DECIMALS", "Literal", "Vector", "check_params", "vector_texts"]
