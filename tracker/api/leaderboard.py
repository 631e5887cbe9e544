"""The circle leaderboard in the API (SPEC 6): its date range, its JSON and its CSV.

`selectors.circle_leaderboard` does the counting; this module reads `since` and `until`
from the query, turns them into the day range the selector filters on, and says the
answer in the API's terms (player ids, money as decimal strings).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Any

from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty

from tracker import services
from tracker.api.serializers import MoneyField, StandingRowOut, money
from tracker.models import Circle
from tracker.selectors import Leaderboard

# What `DayField` accepts, for the schema: four digits, two, two. Python's own
# `date.fromisoformat` also takes `20260331` and week dates; the API does not.
DAY_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DAY_SCHEMA = {"type": "string", "format": "date", "pattern": DAY_PATTERN}

SINCE_AFTER_UNTIL = gettext_noop(
    "since (%(since)s) is after until (%(until)s); send a since on or before the until."
)


@extend_schema_field(DAY_SCHEMA)
class DayField(serializers.Field):
    """A calendar day, `YYYY-MM-DD` and nothing else; an empty `?since=` is refused too,
    not taken as left out (DRF's default for an optional field read from a query)."""

    def get_value(self, dictionary: Any) -> Any:
        return dictionary.get(self.field_name, empty)

    def to_internal_value(self, data: Any) -> date:
        if isinstance(data, str) and re.fullmatch(DAY_PATTERN[1:-1], data):
            try:
                return date.fromisoformat(data)
            except ValueError:
                pass
        raise serializers.ValidationError(
            _("Send a day as YYYY-MM-DD, such as %(example)s.") % {"example": "2026-03-31"}
        )

    def to_representation(self, value: date) -> str:
        return value.isoformat()


class LeaderboardQuery(serializers.Serializer):
    """`?since=` and `?until=`: whole days in the server's time zone, both included."""

    since = DayField(required=False)
    until = DayField(required=False)

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        """The range the selector filters on: from 00:00 of `since` (inclusive) to 00:00
        of the day after `until` (exclusive). The first and last days Python knows mean no
        bound at all (there is no day after 9999-12-31)."""
        data = self.validated_data
        since, until = data.get("since"), data.get("until")
        if since is not None and until is not None and since > until:
            raise services.Invalid(SINCE_AFTER_UNTIL, since=since, until=until)
        zone = timezone.get_current_timezone()
        start = end = None
        if since is not None and since > date.min:
            start = datetime.combine(since, time.min, tzinfo=zone)
        if until is not None and until < date.max:
            end = datetime.combine(until + timedelta(days=1), time.min, tzinfo=zone)
        return start, end

    def echo(self) -> dict[str, str | None]:
        """`since` and `until` as asked, for the answer."""
        data = self.validated_data
        return {
            name: data[name].isoformat() if name in data else None for name in ("since", "until")
        }


# The query parameters as the schema shows them.
LEADERBOARD_PARAMETERS = [
    OpenApiParameter(
        "since",
        DAY_SCHEMA,
        OpenApiParameter.QUERY,
        required=False,
        description=(
            "Only deals closed on this day (`YYYY-MM-DD`, the server's time zone) or later."
        ),
    ),
    OpenApiParameter(
        "until",
        DAY_SCHEMA,
        OpenApiParameter.QUERY,
        required=False,
        description=(
            "Only deals closed on this day (`YYYY-MM-DD`, the server's time zone) or earlier; "
            "not before `since`."
        ),
    ),
]


# --- JSON ---------------------------------------------------------------------------------


class LeaderboardRowOut(StandingRowOut):
    skill = serializers.FloatField(
        help_text="A cautious skill rating, mu - 3 sigma (OpenSkill's Plackett-Luce model "
        "over finishing orders); 0 before a player's first deal."
    )
    mu = serializers.FloatField(help_text="Estimated skill; 0 before the first deal.")
    sigma = serializers.FloatField(help_text="How uncertain mu is; 0 before the first deal.")
    net_by_currency = serializers.DictField(
        child=MoneyField(),
        help_text="Net money per currency the player's money moved in, e.g. "
        '{"USD": "-3.00", "VND": "10000.00"}. `net` adds the amounts as they are, so when '
        "`currencies` lists more than one, read this instead.",
    )


class HeadToHeadOut(serializers.Serializer):
    player = serializers.IntegerField()
    opponent = serializers.IntegerField()
    ahead = serializers.IntegerField(
        help_text="Deals both played where `player` finished above `opponent`."
    )
    behind = serializers.IntegerField(
        help_text="Deals both played where `player` finished below `opponent`."
    )


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    }
)
class PointsSeriesField(serializers.ReadOnlyField):
    """`[[deal id, points so far], ...]`"""


@extend_schema_field(
    {
        "type": "array",
        "items": {
            "type": "array",
            "items": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
            "minItems": 2,
            "maxItems": 2,
        },
    }
)
class NetSeriesField(serializers.ReadOnlyField):
    """`[[deal id, "net so far"], ...]`, the money as a decimal string."""


class SeriesOut(serializers.Serializer):
    player = serializers.IntegerField()
    points = PointsSeriesField(
        help_text="After each counted deal the player played, in the order they closed: "
        "[deal id, points so far]."
    )
    net = NetSeriesField(
        help_text='After each of those deals: [deal id, "net money so far"] (a decimal string).'
    )


class LeaderboardOut(serializers.Serializer):
    since = serializers.DateField(allow_null=True, help_text="The first day counted, as asked.")
    until = serializers.DateField(allow_null=True, help_text="The last day counted, as asked.")
    currencies = serializers.ListField(
        child=serializers.CharField(),
        help_text="The currencies money moved in over the range, sorted.",
    )
    rows = LeaderboardRowOut(many=True, help_text="One a player, in leaderboard order.")
    head_to_head = HeadToHeadOut(many=True)
    series = SeriesOut(many=True, help_text="One a player, in the order of `rows`.")


def leaderboard_data(board: Leaderboard, query: LeaderboardQuery) -> dict[str, Any]:
    series = [
        {
            "player": row.player,
            "points": [[deal, points] for deal, points, _ in board.series.get(row.player, [])],
            "net": [[deal, money(net)] for deal, _, net in board.series.get(row.player, [])],
        }
        for row in board.rows
    ]
    return {
        **query.echo(),
        "currencies": board.currencies,
        "rows": LeaderboardRowOut(board.rows, many=True).data,
        "head_to_head": HeadToHeadOut(board.head_to_head, many=True).data,
        "series": series,
    }


# --- CSV ----------------------------------------------------------------------------------


def csv_filename(circle: Circle) -> str:
    """`friday-table-leaderboard.csv`; a name with nothing ASCII in it goes by its id."""
    return f"{slugify(circle.name) or f'circle-{circle.pk}'}-leaderboard.csv"
