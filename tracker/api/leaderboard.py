"""The circle leaderboard in the API (SPEC 6): its JSON and its CSV.

`selectors.circle_leaderboard` does the counting over a `selectors.DayRange`, which also
names the CSV file, exactly as for the page; this module reads `since` and `until` from
the query and says the answer in the API's terms (player ids, money as decimal strings).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import selectors
from tracker.access import Role, access_circle
from tracker.api.base import ApiView
from tracker.api.fields import MoneyField, money
from tracker.api.schema import BAD_QUERY, ERROR, reads
from tracker.api.standings import StandingRowOut
from tracker.models import Circle
from tracker.selectors import DayRange, Leaderboard

# What `DayField` accepts, for the schema: four digits, two, two. Python's own
# `date.fromisoformat` also takes `20260331` and week dates; the API does not.
DAY_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DAY_SCHEMA = {"type": "string", "format": "date", "pattern": DAY_PATTERN}


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

    def days(self) -> DayRange:
        """The range asked for (a `since` after the `until` is refused there)."""
        data = self.validated_data
        return DayRange(since=data.get("since"), until=data.get("until"))

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
    you = serializers.IntegerField(
        allow_null=True, help_text='Your player in the circle ("this is me"), or null.'
    )


def leaderboard_data(
    board: Leaderboard, query: LeaderboardQuery, you: int | None = None
) -> dict[str, Any]:
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
        "you": you,
    }


# --- Views ------------------------------------------------------------------------------


class LeaderboardBase(ApiView):
    need = {"GET": Role.MEMBER}

    def leaderboard(self, pk: int) -> tuple[Circle, DayRange, Leaderboard, LeaderboardQuery]:
        """The circle in reach (404 otherwise), then its leaderboard over `?since=` and
        `?until=` (400 for a day that is not `YYYY-MM-DD`, or `since` after `until`)."""
        circle = access_circle(self.actor, pk)
        query = LeaderboardQuery(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        days = query.days()
        return circle, days, selectors.circle_leaderboard(circle, days), query


class CircleLeaderboardView(LeaderboardBase):
    @reads(
        LeaderboardOut,
        summary="The circle leaderboard: standings summed, skill, head-to-head, charts",
        description="Every counted deal of the circle's sessions, or those closed from `since` "
        "to `until` (whole days, both included). `rows` are in leaderboard order: points, "
        "wins, net, name.",
        parameters=LEADERBOARD_PARAMETERS,
        checks_query=True,
    )
    def get(self, request: Request, pk: int) -> Response:
        circle, _days, board, query = self.leaderboard(pk)
        assert self.actor.user is not None  # members only
        you = selectors.my_player(circle, self.actor.user)
        return Response(leaderboard_data(board, query, you.pk if you else None))


class AnswerWithFirstRenderer(DefaultContentNegotiation):
    """Whatever `Accept` says (`text/csv`, `?format=`), a refusal is JSON: the view's only
    renderer. The export itself is a plain HttpResponse that no renderer touches."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type


CSV_MEDIA_TYPE = "text/csv"


class CircleLeaderboardCsvView(LeaderboardBase):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = AnswerWithFirstRenderer

    @extend_schema(
        summary="The circle leaderboard as CSV",
        operation_id="circles_leaderboard_csv",
        description="One row a player in leaderboard order, with a header row: "
        + ", ".join(selectors.LEADERBOARD_COLUMNS)
        + ". Refusals are JSON, as everywhere.",
        parameters=[
            *LEADERBOARD_PARAMETERS,
            OpenApiParameter(
                "Content-Disposition",
                {"type": "string", "pattern": r'^attachment; filename="[a-z0-9_-]+\.csv"$'},
                OpenApiParameter.HEADER,
                required=True,
                description='`attachment; filename="<circle-name>-leaderboard.csv"`, with '
                "`-from-<since>` and `-to-<until>` before `.csv` when the range has them "
                "(the page's download is named the same).",
                response=[200],
            ),
        ],
        responses={
            (200, CSV_MEDIA_TYPE): OpenApiResponse(
                OpenApiTypes.STR, description="The leaderboard as CSV (UTF-8)."
            ),
            400: BAD_QUERY,
            401: ERROR,
            403: ERROR,
            404: ERROR,
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        circle, days, board, _query = self.leaderboard(pk)
        response = HttpResponse(
            selectors.leaderboard_csv(board), content_type=f"{CSV_MEDIA_TYPE}; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{days.csv_filename(circle)}"'
        return response
