"""Field settings several models share."""

from __future__ import annotations

from typing import TypedDict


class _DecimalKwargs(TypedDict):
    max_digits: int
    decimal_places: int


# Money: exact decimals; a stake has 2 places and a half stake needs a third (SPEC 4).
# Typed so `DecimalField(**MONEY)` type-checks against django-stubs' keyword arguments.
MONEY: _DecimalKwargs = {"max_digits": 20, "decimal_places": 3}
