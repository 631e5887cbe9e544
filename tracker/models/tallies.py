"""Running totals that keep standings one row a player."""

from __future__ import annotations

from decimal import Decimal

from django.db import models

from tracker.models.circles import Player
from tracker.models.fields import MONEY
from tracker.models.sessions import Session


class StandingTally(models.Model):
    """A player's running totals in a session, kept in step with its deals by the services
    (scoring.standing), so standings read a row a player however long the session."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="tallies")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    points = models.IntegerField(default=0)
    deals = models.IntegerField(default=0)
    wins = models.IntegerField(default=0)
    podiums = models.IntegerField(default=0)
    losses = models.IntegerField(default=0)
    place_total = models.IntegerField(default=0)
    placed = models.IntegerField(default=0)
    net = models.DecimalField(default=Decimal(0), **MONEY)
    twos_beaten_made = models.IntegerField(default=0)
    twos_beaten_suffered = models.IntegerField(default=0)
    guaransheeds_won = models.IntegerField(default=0)
    guaransheeds_lost = models.IntegerField(default=0)

    TOTALS = (
        "points",
        "deals",
        "wins",
        "podiums",
        "losses",
        "place_total",
        "placed",
        "net",
        "twos_beaten_made",
        "twos_beaten_suffered",
        "guaransheeds_won",
        "guaransheeds_lost",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "player"], name="tally_once_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.session}"
