"""Comparing quantities across unit names, metric prefixes and unit systems.

``parse_quantity`` (in ``_normalize``) reads a value as a number and a canonical unit. Here two
such values are compared:

* the same unit and number, or one side a bare number;
* units of one dimension related by an *exact* metric factor (km/m/cm/mm, t/kg/g, h/min/s,
  kWh/TWh, kW/MW): "8,849 m" = "8.849 km" ("converted");
* units of one dimension related by a non-decimal factor (miles/km, ft/m, mph/km/h, °F/°C,
  sq mi/km², days/hours): the predicted value, converted, must round to the ground truth's figure
  at the precision that figure is written with (half a unit of its last digit), so that
  "29,032 ft" states "8,849 m" and "341 mi" states "549 km", while "29,029 ft" (8,848 m) and a
  coarser "1.8 days" for "42.5 hours" do not ("rounded conversion").

A rounded figure written with a magnitude word ("1.3 million", "8万") stands for every exact
figure that rounds to it: ``rounding_step`` gives that half-step and ``quantity_equal`` accepts
an exact predicted figure within it ("1,331,824" for "1.3 million", not "1,400,000").
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

# unit -> (dimension, factor to the dimension's base unit), exact decimal factors only
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
    "kwh": ("energy", Decimal(1)),
    "mwh": ("energy", Decimal(1000)),
    "gwh": ("energy", Decimal(10) ** 6),
    "twh": ("energy", Decimal(10) ** 9),
    "w": ("power", Decimal(1)),
    "kw": ("power", Decimal(1000)),
    "mw": ("power", Decimal(10) ** 6),
    "gw": ("power", Decimal(10) ** 9),
    "km2": ("area", Decimal(10) ** 6),
    "m2": ("area", Decimal(1)),
    "ha": ("area", Decimal(10) ** 4),
}
# units whose factor to the base unit is not a power of ten: compared with rounding
_INEXACT: dict[str, tuple[str, float]] = {
    "mi": ("length", 1609.344),
    "ft": ("length", 0.3048),
    "in": ("length", 0.0254),
    "yd": ("length", 0.9144),
    "nmi": ("length", 1852.0),
    "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523125),
    "d": ("time", 86400.0),
    "km/h": ("speed", 1 / 3.6),
    "m/s": ("speed", 1.0),
    "mph": ("speed", 0.44704),
    "kn": ("speed", 1852 / 3600),
    "mi2": ("area", 2589988.110336),
    "acre": ("area", 4046.8564224),
}

Quantity = tuple[str, "str | None"]


def in_base(number: str, unit: str | None) -> tuple[str, Decimal] | None:
    """(dimension, value in the base unit) for a unit with an exact decimal factor, else None."""
    if unit is None or unit not in _SCALE:
        return None
    dim, factor = _SCALE[unit]
    try:
        return dim, Decimal(number) * factor
    except InvalidOperation:
        return None


def dimension(unit: str | None) -> str | None:
    """The physical dimension of a canonical unit ('length', 'speed', 'temperature'...)."""
    if unit in _SCALE:
        return _SCALE[unit][0]
    if unit in _INEXACT:
        return _INEXACT[unit][0]
    if unit in ("°c", "°f", "k"):
        return "temperature"
    return None


def _to_base(value: float, unit: str) -> float | None:
    if unit in _SCALE:
        return value * float(_SCALE[unit][1])
    if unit in _INEXACT:
        return value * _INEXACT[unit][1]
    if unit == "°c":
        return value
    if unit == "°f":
        return (value - 32) * 5 / 9
    if unit == "k":
        return value - 273.15
    return None


def _from_base(value: float, unit: str) -> float | None:
    if unit in _SCALE:
        return value / float(_SCALE[unit][1])
    if unit in _INEXACT:
        return value / _INEXACT[unit][1]
    if unit == "°c":
        return value
    if unit == "°f":
        return value * 9 / 5 + 32
    if unit == "k":
        return value + 273.15
    return None


def _half_step(number: str) -> float:
    """Half a unit of the last written digit: '8849' -> 0.5, '42.5' -> 0.05."""
    decimals = len(number.split(".", 1)[1]) if "." in number else 0
    return 0.5 * 10 ** (-decimals)


def _rounds_to(value: float, unit: str, number: str, target_unit: str) -> bool:
    """Does ``value`` in ``unit``, converted to ``target_unit``, round to ``number``?"""
    base_value = _to_base(value, unit)
    if base_value is None:
        return False
    converted = _from_base(base_value, target_unit)
    if converted is None:
        return False
    return abs(converted - float(number)) <= _half_step(number) * (1 + 1e-9)


def converted_by_rounding(gt: Quantity, pred: Quantity) -> bool:
    """Two values in different units of one dimension that agree once rounded: the predicted
    value, converted, rounds to the ground truth's figure. Not the other way: a coarser
    prediction ("1.8 days") says less than a finer ground truth ("42.5 hours")."""
    (gv, gu), (pv, pu) = gt, pred
    if gu is None or pu is None or gu == pu:
        return False
    dim = dimension(gu)
    if dim is None or dim != dimension(pu):
        return False
    try:
        p = float(pv)
        float(gv)
    except ValueError:
        return False
    return _rounds_to(p, pu, gv, gu)


_MAGNITUDE = re.compile(r"(\d+(?:\.(\d+))?)\s*(万|亿|thousand\b|million\b|billion\b|trillion\b|bn\b)", re.I)
_MAGNITUDE_VALUE = {"万": 1e4, "亿": 1e8, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}


def rounding_step(raw: str) -> float | None:
    """Half the step of a rounded figure written with a magnitude word ('1.3 million' -> 50,000)."""
    m = _MAGNITUDE.search(str(raw))
    if not m:
        return None
    decimals = len(m.group(2) or "")
    return 0.5 * 10 ** (-decimals) * _MAGNITUDE_VALUE[m.group(3).lower()]


_HEDGE = re.compile(r"^\s*(?:about|approximately|approx\.?|around|roughly|nearly|almost|some|c\.|ca\.|circa|~|约|大约)\s*"
                    r"(\d{1,3}(?:,\d{3})+|\d+)(?!\.\d(?!\d*\s*(?:thousand|million|billion|trillion|万|亿)))", re.I)


def hedged_step(raw: str) -> float | None:
    """Half the step of a whole figure a prediction says is rounded ("about 11,000 m": 500,
    "approx. 340 km": 5), when it keeps two significant figures or more; else None."""
    m = _HEDGE.match(str(raw))
    if not m:
        return None
    if rounding_step(raw) is not None:  # "approx. 182.5 thousand": half a unit of its last digit
        return rounding_step(raw)
    digits = m.group(1).replace(",", "")
    zeros = len(digits) - len(digits.rstrip("0"))
    if zeros == 0 or len(digits) - zeros < 2:
        return None
    return 0.5 * 10 ** zeros


def magnitude(number: str) -> int | None:
    """The power of ten of a number (for indexing values that may round to one another)."""
    try:
        value = abs(float(number))
    except ValueError:
        return None
    return int(math.floor(math.log10(value))) if value > 0 else None


def within_rounding(gt: Quantity, pred: Quantity, step: float | None) -> bool:
    """An exact predicted figure that rounds to the ground truth's rounded one (same unit or none)."""
    if step is None:
        return False
    (gv, gu), (pv, pu) = gt, pred
    if not (gu is None or pu is None or gu == pu):
        return False
    try:
        return abs(float(gv) - float(pv)) <= step * (1 + 1e-9)
    except ValueError:
        return False


def quantity_equal(gt: tuple[str, str | None], pred: tuple[str, str | None]) -> str | None:
    """'same' (same number, same or unstated unit), 'converted' (an exact metric conversion),
    'rounded' (a conversion between unit systems that agrees once rounded) or None.

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
    if a is None or b is None:
        if converted_by_rounding(gt, pred):
            return "rounded"
    return None


def finer_figure(gt: Quantity, pred: Quantity) -> bool:
    """A predicted figure written with more decimals that rounds to the ground truth's at the
    precision the ground truth is written with ("21196.18 km" states "21196 km", "42.195" states
    "42.2"; "21197.6" does not). Same unit, or one side without a unit."""
    (gv, gu), (pv, pu) = gt, pred
    if not (gu is None or pu is None or gu == pu):
        return False
    if _decimals(pv) <= _decimals(gv):
        return False
    try:
        return abs(float(pv) - float(gv)) <= _half_step(gv) * (1 + 1e-9)
    except ValueError:
        return False


def _decimals(number: str) -> int:
    return len(number.split(".", 1)[1]) if "." in number else 0


def floor_keys(number: str, *, gt_side: bool) -> tuple[int, ...]:
    """Index keys for ``finer_figure``: the integer part of a predicted figure, and the integer
    parts a ground-truth figure's rounding interval spans."""
    try:
        value = float(number)
    except ValueError:
        return ()
    if not gt_side:
        return (math.floor(value),)
    half = _half_step(number)
    return tuple(sorted({math.floor(value - half), math.floor(value + half)}))

