"""Session standings in the API: a row a player, from the running totals."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import answers, selectors
from tracker.access import Role
from tracker.api.base import ApiView
from tracker.api.fields import MoneyField
from tracker.api.schema import watched
from tracker.money import money_text
from tracker.selectors import StandingRow


class StandingRowOut(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.IntegerField()
    deals = serializers.IntegerField()
    wins = serializers.IntegerField()
    podiums = serializers.IntegerField()
    losses = serializers.IntegerField()
    average_place = serializers.DecimalField(
        max_digits=6, decimal_places=2, allow_null=True, read_only=True
    )
    net = MoneyField()
    twos_beaten_made = serializers.IntegerField()
    twos_beaten_suffered = serializers.IntegerField()
    guaransheeds_won = serializers.IntegerField()
    guaransheeds_lost = serializers.IntegerField()


class StandingsOut(serializers.Serializer):
    rows = StandingRowOut(many=True)


_AVERAGE_PLACE = StandingRowOut().fields["average_place"]


def standings_data(rows: list[StandingRow]) -> dict[str, Any]:
    """`StandingsOut({"rows": rows}).data`, built directly: it is a watched read's first
    answer at each version, and DRF's serializer copied some 15 field objects a row for
    it. `StandingsOut` stays its schema; tests/api/test_standings_data.py holds the two to
    one answer."""
    return {
        "rows": [
            {
                "player": row.player,
                "name": row.name,
                "points": row.points,
                "deals": row.deals,
                "wins": row.wins,
                "podiums": row.podiums,
                "losses": row.losses,
                "average_place": None
                if row.average_place is None
                else _AVERAGE_PLACE.to_representation(row.average_place),
                "net": money_text(Decimal(row.net)),
                "twos_beaten_made": row.twos_beaten_made,
                "twos_beaten_suffered": row.twos_beaten_suffered,
                "guaransheeds_won": row.guaransheeds_won,
                "guaransheeds_lost": row.guaransheeds_lost,
            }
            for row in rows
        ]
    }


class StandingsView(ApiView):
    need = {"GET": Role.VIEWER}
    watches = "session"
    # The rows, and nothing else: a tap that files nothing is answered as before it.
    kept_by = (answers.ROWS,)

    @watched(StandingsOut, summary="Session standings")
    def get(self, request: Request, pk: int) -> Response:
        session = self.watched_session(pk)
        return self.fresh(
            session, lambda: Response(standings_data(selectors.session_standings(session)))
        )
