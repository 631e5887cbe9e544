"""The API's own fields: ids, money in and out as decimal strings, names and seats.

Input fields check shapes and types only; the rules and their sentences live in the
services and `scoring`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any, NoReturn

from django.utils.functional import Promise, lazy
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import scoring
from tracker.money import money_text

MAX_ID = 2**63 - 1
LARGEST_AMOUNT = Decimal(10) ** 17  # what a money column (20 digits, 3 places) holds
FEWEST_PLAYERS = scoring.MIN_PLAYERS
MOST_PLAYERS = scoring.MAX_PLAYERS


def _table_size() -> str:
    return _("A table has %(fewest)s to %(most)s players.") % {
        "fewest": FEWEST_PLAYERS,
        "most": MOST_PLAYERS,
    }


TABLE_SIZE = lazy(_table_size, str)()  # said in the language of the request that reads it

# Patterns for the schema (ECMA regular expressions), so that a request the schema allows
# passes the serializers: DRF refuses a null character in any text.
NAME_PATTERN = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"  # something besides spaces
# A positive amount below 10**17 with at most 3 decimals: what AmountField accepts.
AMOUNT_PATTERN = r"^0*([1-9][0-9]{0,16}(\.[0-9]{1,3})?|\.([1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9]))$"


DIGITS = re.compile(r"[0-9]{1,19}")
AMOUNT_TEXT = re.compile(r"[0-9]+(\.[0-9]+)?|\.[0-9]+")

money = money_text  # the API, the CSV export and the pages agree on amounts


# --- Request bodies ---------------------------------------------------------------------

# What a browsable API's HTML form adds to what it posts.
FORM_KEYS = frozenset({"csrfmiddlewaretoken"})


# A request body's object: a key it does not know is refused (400), naming the ones it
# takes. DRF leaves such a key out quietly, and a misspelt one then changes nothing while
# the answer says it worked: a correction sent as `remove_events` for `add_events` was
# recorded, with its reason, as a correction that changed nothing. A read-only field (an
# event's `id`, sent back as the API showed it) is known, and ignored as before. The schema
# says it too (`additionalProperties: false`, `tracker.api.schema`).
# Said in comments, not a docstring: drf-spectacular describes every body without a
# docstring of its own by the first one up its classes, in /api/docs/.
class ClosedInput(serializers.Serializer):
    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(
                str(key) for key in data if key not in self.fields and key not in FORM_KEYS
            )
            if unknown:
                self.refuse(unknown)
        return super().to_internal_value(data)

    def refuse(self, unknown: list[str]) -> NoReturn:
        known = ", ".join(name for name, field in self.fields.items() if not field.read_only)
        sentence = _("no such field; the fields are %(known)s.") % {"known": known}
        raise serializers.ValidationError({name: [sentence] for name in unknown})


def closed_inputs() -> set[str]:
    """The names of every `ClosedInput`, as the schema names their components."""
    found, waiting = set(), [ClosedInput]
    while waiting:
        for subclass in waiting.pop().__subclasses__():
            found.add(subclass.__name__)
            waiting.append(subclass)
    return found


# --- Fields -----------------------------------------------------------------------------


class IdField(serializers.IntegerField):
    """An object id: a whole number from 1, a JSON integer; as text (a form body), ASCII
    digits only — Python's int() would read "٣" or " 3" as 3. A JSON number written with a
    fraction (`1.0`) is refused, as the `players` list and the money fields refuse it: DRF's
    field would read it as 1."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) or (isinstance(data, str) and not DIGITS.fullmatch(data)):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class MoneyField(serializers.DecimalField):
    """Money out, as a decimal string."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_digits=20, decimal_places=3, read_only=True, **kwargs)

    def to_representation(self, value: Decimal) -> str:
        return money(Decimal(value))


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": r"^[0-9]+(\.[0-9]+)?$", "example": "1.00"},
            {"type": "integer", "minimum": 1},
        ]
    }
)
class DecimalStringField(serializers.Field):
    """Money in: a decimal string such as "1.50" (a whole JSON number is fine too).

    A JSON number with a fraction is refused: it arrives as a binary float, which cannot
    hold most amounts of money exactly.
    """

    def __init__(self, *, what: str | Promise, **kwargs: Any) -> None:
        self.what = what  # a noun marked with gettext_lazy: "stake", "amount"
        super().__init__(**kwargs)

    def refusal(self, template: str) -> serializers.ValidationError:
        """A translated template naming the field's noun, as a sentence: Vietnamese puts
        the noun first ("Số tiền phải lớn hơn 0."), so the first letter is raised."""
        return serializers.ValidationError(capfirst(template % {"what": self.what}))

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, float):
            raise self.refusal(
                _(
                    'Send the %(what)s as a decimal string such as "1.50", not a JSON '
                    "number with a fraction: that is a float, and floats cannot hold money "
                    "exactly."
                )
            )
        if isinstance(data, bool) or not isinstance(data, str | int):
            raise self.refusal(_('The %(what)s is a decimal string such as "1.50".'))
        return str(data)

    def to_representation(self, value: Any) -> str:
        return money(Decimal(value))


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": AMOUNT_PATTERN, "example": "2.50"},
            {"type": "integer", "minimum": 1, "maximum": int(LARGEST_AMOUNT) - 1},
        ]
    }
)
class AmountField(DecimalStringField):
    """An amount in: a decimal string, parsed."""

    def to_internal_value(self, data: Any) -> Decimal:  # type: ignore[override]
        text = super().to_internal_value(data)
        # ASCII digits and a dot only, as the schema's pattern: Decimal would also read
        # "1_000", "١", "1e6", "NaN" and spaces.
        if not AMOUNT_TEXT.fullmatch(text.removeprefix("-")):
            raise self.refusal(_('The %(what)s must be a number such as "1.50".'))
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise self.refusal(_('The %(what)s must be a number such as "1.50".')) from None
        if not amount.is_finite() or amount <= 0:
            raise self.refusal(_("The %(what)s must be more than 0."))
        if amount >= LARGEST_AMOUNT:
            raise self.refusal(_("The %(what)s is too large."))
        if amount != amount.quantize(Decimal("0.001")):
            raise self.refusal(_("The %(what)s can have at most 3 decimal places."))
        return amount


SEAT_SCHEMA = {
    "oneOf": [
        {"type": "integer", "minimum": 1, "maximum": MAX_ID},
        {"type": "string", "pattern": NAME_PATTERN},
    ]
}


@extend_schema_field(SEAT_SCHEMA)
class SeatField(serializers.Field):
    """A player at the table: an id of a player of the circle, or a name (new names are
    added to the circle)."""

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, int) and not isinstance(data, bool):
            if not 1 <= data <= MAX_ID:
                raise serializers.ValidationError(_("There is no player %(id)s.") % {"id": data})
            return data
        if isinstance(data, str):
            if "\x00" in data:
                raise serializers.ValidationError(_("A name cannot hold a null character."))
            return data
        raise serializers.ValidationError(
            _("Each player is an id (a whole number) or a name (text).")
        )

    def to_representation(self, value: Any) -> Any:
        return value


class StringField(serializers.CharField):
    """Text in: a JSON string. DRF's CharField would quietly turn 5 into "5", which the
    schema (type string) does not allow."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "pattern": NAME_PATTERN})
class NameField(StringField):
    """A name as typed: spaces are tidied and a blank name refused by the services, with
    their own sentences; the schema says it needs something besides spaces."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)


@extend_schema_field(
    {"type": "array", "items": SEAT_SCHEMA, "minItems": FEWEST_PLAYERS, "maxItems": MOST_PLAYERS}
)
class PlayersField(serializers.ListField):
    """The players at the table, in seat order: ids or names (SeatField). A table of the
    wrong size is refused by the rules (TABLE_SIZE), as the schema's bounds say."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            child=SeatField(),
            max_length=MOST_PLAYERS,
            error_messages={"max_length": TABLE_SIZE},
            **kwargs,
        )


def renamed(fields: dict[str, serializers.Field], **names: str) -> dict[str, Any]:
    """Fields whose JSON names are Python keywords (`from`, `to`, `with`): declared under
    another name, exposed under the JSON name, in declaration order."""
    renamed = {}
    for name, field in fields.items():
        if name in names and field.source is None:
            field.source = name  # read from / write to the Python name
        renamed[names.get(name, name)] = field
    return renamed
