"""Sessions: who sits where, under which rules, and the links that reach them."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

import scoring
from tracker.models.circles import Circle, Player


class Session(models.Model):
    """One sitting: seated players, a rule set, a stake and many deals."""

    class Format(models.TextChoices):
        PODIUM = scoring.Format.PODIUM.value, "Podium (3/2/1)"
        WINNER_TAKES_ALL = scoring.Format.WINNER_TAKES_ALL.value, "Winner takes all"

    class StakeRule(models.TextChoices):
        NONE = scoring.StakeRule.NONE.value, "No stakes"
        LOSER_PAYS = scoring.StakeRule.LOSER_PAYS.value, "Loser pays"
        PER_CARD = scoring.StakeRule.PER_CARD.value, "Pay by the card"
        PRO_PLAY = scoring.StakeRule.PRO_PLAY.value, "Pro-Play"

    circle = models.ForeignKey(Circle, on_delete=models.PROTECT, related_name="sessions")
    name = models.CharField(max_length=80)
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.PODIUM)
    stake_rule = models.CharField(
        max_length=20, choices=StakeRule.choices, default=StakeRule.LOSER_PAYS
    )
    stake = models.DecimalField(max_digits=9, decimal_places=2, default=Decimal("1.00"))
    currency = models.CharField(max_length=3, default="USD")
    hand_size = models.PositiveSmallIntegerField(default=13)
    guaransheed = models.BooleanField(default=False)
    got_to_get_in = models.BooleanField(default=False)
    instant_wins = models.BooleanField(default=False)
    trading = models.BooleanField(default=False)
    penalties = models.BooleanField(default=False)
    # Seed 000's alternate instant-win hand: 5 consecutive pairs, not including 2s.
    five_consecutive_pairs = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Moves on with every change a screen shows (in the change's own transaction), so a
    # phone that saw version N knows it is stale once N+1 commits (tracker.services.locks).
    version = models.PositiveBigIntegerField(default=0)
    # Moves on (with `version`) only when what the standings' rows show may have changed:
    # the running totals, who sits at the table, a player's name. A live standings page
    # reads its rows again only then, not at each of the taps between filings
    # (tracker.views.live).
    standings_version = models.PositiveBigIntegerField(default=0)
    # Moves on (with `version`) only when who may reach the session may have narrowed: a
    # share link revoked or replaced, a member removed, an account deleted, deactivated or
    # its password changed, an edit in the admin. A live page reads its link or membership
    # again only then, not at every tap (tracker.views.live).
    access_version = models.PositiveBigIntegerField(default=0)
    # Who ended it (End match): an account, or the scorer link passed round the table.
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    ended_via = models.ForeignKey(
        "ShareLink", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(stake__gt=0), name="session_stake_positive"),
            models.CheckConstraint(
                condition=Q(stake__lte=1_000_000), name="session_stake_at_most_a_million"
            ),
            models.CheckConstraint(
                condition=Q(hand_size__gte=13, hand_size__lte=20), name="session_hand_size_range"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def options(self) -> scoring.Options:
        return scoring.Options(
            guaransheed=self.guaransheed,
            got_to_get_in=self.got_to_get_in,
            instant_wins=self.instant_wins,
            trading=self.trading,
            penalties=self.penalties,
            five_consecutive_pairs=self.five_consecutive_pairs,
        )

    @property
    def rules(self) -> scoring.Rules:
        return scoring.Rules(
            format=scoring.Format(self.format),
            stake_rule=scoring.StakeRule(self.stake_rule),
            stake=self.stake,
            options=self.options,
            hand_size=self.hand_size,
        )


class Seat(models.Model):
    """A player at the session's table; `position` is the seat order."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    # Who sat the table this way, and when: the seating is replaced on every change.
    seated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    seated_via = models.ForeignKey(
        "ShareLink", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    seated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "player"], name="seat_player_once"),
            models.UniqueConstraint(fields=["session", "position"], name="seat_position_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in seat {self.position}"


class ShareLink(models.Model):
    """A session's link for a phone without a login: scorer (may tap) or viewer."""

    class Role(models.TextChoices):
        SCORER = "scorer", "Scorer"
        VIEWER = "viewer", "Viewer"

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="share_links")
    role = models.CharField(max_length=10, choices=Role.choices)
    token = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    revoked_via = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_role_display()} link for {self.session}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
