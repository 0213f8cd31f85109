"""Comparing quantities across unit names and metric prefixes: "8,849 m" = "8849 metres" = "8.849 km".

``parse_quantity`` (in ``_normalize``) reads a value as a number and a canonical unit. Here two
such values are compared: the same unit and number, or units of one dimension related by an
exact metric factor (km/m/cm/mm, t/kg/g, h/min/s). Imperial and metric values are never
converted into each other: written conversions are rounded ("14,320 km" / "8,900 miles") and a
rule cannot tell a rounding from a wrong figure, so such pairs stay "not covered".
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

# unit -> (dimension, factor to the dimension's base unit), exact factors only
_SCALE: dict[str, tuple[str, Decimal]] = {
    "km": ("length", Decimal(1000)),
    "m": ("length", Decimal(1)),
    "cm": ("length", Decimal("0.01")),
    "mm": ("length", Decimal("0.001")),
    "t": ("mass", Decimal(1000)),
    "kg": ("mass", Decimal(1)),
    "g": ("mass", Decimal("0.001")),
    "h": ("time", Decimal(3600)),
    "min": ("time", Decimal(60)),
    "s": ("time", Decimal(1)),
}

Quantity = tuple[str, "str | None"]


def in_base(number: str, unit: str | None) -> tuple[str, Decimal] | None:
    """(dimension, value in the base unit) for a metric unit, else None."""
    if unit is None or unit not in _SCALE:
        return None
    dim, factor = _SCALE[unit]
    try:
        return dim, Decimal(number) * factor
    except InvalidOperation:
        return None


def quantity_equal(gt: tuple[str, str | None], pred: tuple[str, str | None]) -> str | None:
    """'same' (same number, same or unstated unit), 'converted' (an exact metric conversion) or None.

    A bare number (unit ``None``) equals the same number with any unit; a counter word (``""``)
    equals another counter word but not a physical unit or currency.
    """
    (gv, gu), (pv, pu) = gt, pred
    try:
        same_number = Decimal(gv) == Decimal(pv)
    except InvalidOperation:
        same_number = gv == pv
    # None: a bare number; "": a counter word, which equals another counter but not "300 t"
    if same_number and (gu is None or pu is None or gu == pu):
        return "same"
    a, b = in_base(gv, gu), in_base(pv, pu)
    if a is not None and b is not None and a[0] == b[0] and a[1] == b[1]:
        return "converted"
    return None
