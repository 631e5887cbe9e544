"""Deals and what happened in them: who played, taps, events, corrections."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

import scoring
from scoring.text import ordinal
from tracker.models.circles import Player
from tracker.models.sessions import Session, ShareLink


class Deal(models.Model):
    """One hand of Tien Len: its record is its taps and events."""

    class Status(models.TextChoices):
        OPEN = scoring.DealStatus.OPEN.value, "Open"
        FILED = scoring.DealStatus.FILED.value, "Filed"
        ENDED = scoring.DealStatus.ENDED.value, "Ended"

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    dealer = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    leader = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    winner = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    loser = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Trading reminders owed from the last deal, shown when this one opens.
    trading = models.JSONField(default=list, blank=True)
    # Taps and events share one running number per deal: their order is the deal's story.
    # The last number given, as of the deal row's last save: a tap that changes nothing
    # else of the deal does not save it, so its records may hold higher numbers.
    # `tracker.records.live_records` reads both and brings it up to date in memory.
    last_seq = models.PositiveIntegerField(default=0)
    opened_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="deal_number_once"),
            models.UniqueConstraint(
                fields=["session"], condition=Q(status="open"), name="one_open_deal_per_session"
            ),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number} of {self.session}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


def counted(prefix: str = "") -> Q:
    """The deals that count in the standings, as a filter: `scoring.counts` said in SQL
    (a test holds the two equal). `prefix` reaches them through a relation
    (`counted("deals__")` on sessions)."""
    return Q(
        **{
            f"{prefix}status__in": [status.value for status in scoring.COUNTED_STATUSES],
            f"{prefix}winner__isnull": False,
        }
    )


class DealPlayer(models.Model):
    """A player of a deal, with the place and points the deal gives them so far."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="deal_players")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="deal_players")
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["deal", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["deal", "player"], name="deal_player_once"),
            models.UniqueConstraint(fields=["deal", "seat"], name="deal_seat_once"),
            models.UniqueConstraint(fields=["deal", "place"], name="deal_place_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.deal}"


class Correction(models.Model):
    """A filed deal corrected: who, when, why, and what it was before and after."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="corrections")
    reason = models.CharField(max_length=200, blank=True)
    before = models.JSONField()
    after = models.JSONField()
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    made_via = models.ForeignKey(
        ShareLink, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    made_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-made_at", "-id"]

    def __str__(self) -> str:
        return f"Correction of {self.deal}"


class DealRecord(models.Model):
    """What taps and events share: their place in the deal's story and who wrote them.

    A record is never deleted: undo and corrections set `undone_at` and keep it as history.
    """

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="%(class)ss")
    seq = models.PositiveIntegerField()
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    recorded_via = models.ForeignKey(
        ShareLink, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    recorded_at = models.DateTimeField(default=timezone.now)
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    undone_via = models.ForeignKey(
        ShareLink, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    correction = models.ForeignKey(
        Correction, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        abstract = True


LIVE = Q(undone_at__isnull=True)


class Tap(DealRecord):
    """A player went out; the place is the order of taps (or last, for the loser tap)."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="taps")
    place = models.PositiveSmallIntegerField()
    loser = models.BooleanField(default=False)
    # Got to Get In: players who had not played a card when this one went out.
    not_played = models.ManyToManyField(Player, blank=True, related_name="+")

    class Meta:
        ordering = ["deal", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["deal", "place"], condition=LIVE, name="tap_one_place_per_deal"
            ),
            models.UniqueConstraint(
                fields=["deal", "player"], condition=LIVE, name="tap_one_per_player_per_deal"
            ),
            models.UniqueConstraint(fields=["deal", "seq"], name="tap_seq_once"),
            models.CheckConstraint(condition=Q(place__gte=1), name="tap_place_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {ordinal(self.place)} in {self.deal}"


class DealEvent(DealRecord):
    """Something that costs money, recorded on a deal (SPEC 9, deal events)."""

    class Type(models.TextChoices):
        TWO_BEATEN = "two_beaten", "2 cut or bombed"
        CUTUP_BEATEN = "cutup_beaten", "Cutup beaten"
        HAND = "hand", "Hand at the end"
        GUARANSHEED = "guaransheed", "Guaransheed"
        INSTANT_WIN = "instant_win", "Instant win"

    class Beater(models.TextChoices):
        CUTUP = scoring.Beater.CUTUP.value, "Cutup"
        BOMB = scoring.Beater.BOMB.value, "Bomb"

    class Kind(models.TextChoices):
        SIX_PAIRS = scoring.InstantWinKind.SIX_PAIRS.value, "Six pairs"
        FIVE_CONSECUTIVE_PAIRS = (
            scoring.InstantWinKind.FIVE_CONSECUTIVE_PAIRS.value,
            "5 consecutive pairs",
        )
        THREE_TRIPLES = scoring.InstantWinKind.THREE_TRIPLES.value, "Three consecutive triples"
        DRAGON = scoring.InstantWinKind.DRAGON.value, "Dragon"
        FOUR_TWOS = scoring.InstantWinKind.FOUR_TWOS.value, "Four 2s"

    type = models.CharField(max_length=20, choices=Type.choices)
    # hand, guaransheed, instant_win: whose it is
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # two_beaten, cutup_beaten: `by` beat `owner`'s cards, `beaten_with` a cutup or a bomb
    by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    owner = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    beaten_with = models.CharField(max_length=10, choices=Beater.choices, blank=True)
    black = models.PositiveSmallIntegerField(default=0)
    red = models.PositiveSmallIntegerField(default=0)
    cards = models.PositiveSmallIntegerField(default=0)
    black_twos = models.PositiveSmallIntegerField(default=0)
    red_twos = models.PositiveSmallIntegerField(default=0)
    cutups = models.PositiveSmallIntegerField(default=0)
    bombs = models.PositiveSmallIntegerField(default=0)
    blind = models.BooleanField(default=False)
    kind = models.CharField(max_length=30, choices=Kind.choices, blank=True)

    class Meta:
        ordering = ["deal", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["deal", "seq"], name="event_seq_once"),
            models.UniqueConstraint(
                fields=["deal", "player"],
                condition=LIVE & Q(type="hand"),
                name="event_one_hand_per_player",
            ),
            models.UniqueConstraint(
                fields=["deal"],
                condition=LIVE & Q(type="guaransheed"),
                name="event_one_guaransheed_per_deal",
            ),
            models.UniqueConstraint(
                fields=["deal"],
                condition=LIVE & Q(type="instant_win"),
                name="event_one_instant_win_per_deal",
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        type__in=["two_beaten", "cutup_beaten"],
                        by__isnull=False,
                        owner__isnull=False,
                        player__isnull=True,
                    )
                    & ~Q(by=F("owner"))
                )
                | Q(
                    type__in=["hand", "guaransheed", "instant_win"],
                    player__isnull=False,
                    by__isnull=True,
                    owner__isnull=True,
                ),
                name="event_players_match_type",
            ),
            models.CheckConstraint(
                condition=~Q(type="two_beaten") | Q(black__gt=0) | Q(red__gt=0),
                name="event_two_beaten_counts_something",
            ),
            # What beat the 2s or the cutup decides what it earns (SPEC 4.1).
            models.CheckConstraint(
                condition=~Q(type__in=["two_beaten", "cutup_beaten"])
                | Q(beaten_with__in=["cutup", "bomb"]),
                name="event_beaten_names_what_beat_it",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_type_display()} in {self.deal}"
