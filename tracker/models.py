"""What SquareScores stores: circles, players, sessions, deals and what happened in them.

Models hold fields, constraints and tiny properties. Every write goes through
`tracker.services`; the rules live in `scoring`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypedDict, cast

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone

import scoring
from scoring.text import ordinal


class _DecimalKwargs(TypedDict):
    max_digits: int
    decimal_places: int


# Typed so `DecimalField(**MONEY)` type-checks against django-stubs' keyword arguments.
MONEY: _DecimalKwargs = {"max_digits": 20, "decimal_places": 3}


class Circle(models.Model):
    """People who play together: owns players, sessions and a leaderboard."""

    name = models.CharField(max_length=80)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_circles"
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="circles")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A person in a circle: a name, who need not have a login."""

    circle = models.ForeignKey(Circle, on_delete=models.PROTECT, related_name="players")
    name = models.CharField(max_length=40)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "circle", name="player_name_unique_in_circle"),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name


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
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)

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

    @property
    def is_ended(self) -> bool:
        return self.ended_at is not None


class Seat(models.Model):
    """A player at the session's table; `position` is the seat order."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()

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

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_role_display()} link for {self.session}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


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
    last_seq = models.PositiveIntegerField(default=0)
    opened_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)

    # Not stored: set by a service that has just recorded on this deal
    # (`services.DealWrite`), so that the answer is built from what the write already
    # read and derived instead of reading the deal back (`selectors.deal_detail`).
    written: Any = None

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

    @property
    def counts(self) -> bool:
        """Filed deals count; an ended deal counts once someone went out (SPEC 3.3)."""
        return self.status != self.Status.OPEN and self.winner_id is not None


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

    @property
    def is_live(self) -> bool:
        return self.undone_at is None


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
        THREE_TRIPLES = scoring.InstantWinKind.THREE_TRIPLES.value, "Three consecutive triples"
        DRAGON = scoring.InstantWinKind.DRAGON.value, "Dragon"
        FOUR_TWOS = scoring.InstantWinKind.FOUR_TWOS.value, "Four 2s"

    type = models.CharField(max_length=20, choices=Type.choices)
    # hand, guaransheed, instant_win: whose it is
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # two_beaten, cutup_beaten: `by` beat `owner`'s cards
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
    kind = models.CharField(max_length=20, choices=Kind.choices, blank=True)

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
        ]

    def __str__(self) -> str:
        return f"{self.get_type_display()} in {self.deal}"

    def to_record(self) -> scoring.Record:
        """The scoring fact this row stands for."""
        # The columns are nullable, but `event_players_match_type` makes the ones each
        # type uses non-null; the casts say so to the type checker (no runtime effect).
        if self.type == self.Type.TWO_BEATEN:
            return scoring.TwoBeaten(
                by=cast(int, self.by_id),
                owner=cast(int, self.owner_id),
                beaten_with=scoring.Beater(self.beaten_with),
                black=self.black,
                red=self.red,
            )
        if self.type == self.Type.CUTUP_BEATEN:
            return scoring.CutupBeaten(by=cast(int, self.by_id), owner=cast(int, self.owner_id))
        if self.type == self.Type.HAND:
            return scoring.Hand(
                player=cast(int, self.player_id),
                cards=self.cards,
                black_twos=self.black_twos,
                red_twos=self.red_twos,
                cutups=self.cutups,
                bombs=self.bombs,
            )
        if self.type == self.Type.GUARANSHEED:
            return scoring.Guaransheed(player=cast(int, self.player_id), blind=self.blind)
        return scoring.InstantWin(
            player=cast(int, self.player_id), kind=scoring.InstantWinKind(self.kind)
        )

    @classmethod
    def fields_for(cls, record: scoring.Record) -> dict[str, object]:
        """Model fields for a scoring fact (the inverse of `to_record`)."""
        if isinstance(record, scoring.TwoBeaten):
            return {
                "type": cls.Type.TWO_BEATEN,
                "by_id": record.by,
                "owner_id": record.owner,
                "beaten_with": record.beaten_with.value,
                "black": record.black,
                "red": record.red,
            }
        if isinstance(record, scoring.CutupBeaten):
            return {"type": cls.Type.CUTUP_BEATEN, "by_id": record.by, "owner_id": record.owner}
        if isinstance(record, scoring.Hand):
            return {
                "type": cls.Type.HAND,
                "player_id": record.player,
                "cards": record.cards,
                "black_twos": record.black_twos,
                "red_twos": record.red_twos,
                "cutups": record.cutups,
                "bombs": record.bombs,
            }
        if isinstance(record, scoring.Guaransheed):
            return {"type": cls.Type.GUARANSHEED, "player_id": record.player, "blind": record.blind}
        if isinstance(record, scoring.InstantWin):
            return {
                "type": cls.Type.INSTANT_WIN,
                "player_id": record.player,
                "kind": record.kind.value,
            }
        raise TypeError(f"Not an event: {record!r}")


class LedgerLine(models.Model):
    """One money movement of a closed deal; recomputed when the deal is corrected."""

    class Reason(models.TextChoices):
        LOSER_PAYS = "loser_pays", "Loser pays"
        CARDS_LEFT = "cards_left", "Cards left"
        PRO_PLAY_WIN = "pro_play_win", "Pro-Play win"
        TWO_BEATEN = "two_beaten", "2 cut or bombed"
        CUTUP_BEATEN = "cutup_beaten", "Cutup beaten"
        UNUSED_BLACK_TWO = "unused_black_two", "Unused black 2"
        UNUSED_RED_TWO = "unused_red_two", "Unused red 2"
        UNUSED_CUTUP = "unused_cutup", "Unused cutup"
        UNUSED_BOMB = "unused_bomb", "Unused bomb"
        GUARANSHEED_WON = "guaransheed_won", "Guaransheed won"
        GUARANSHEED_LOST = "guaransheed_lost", "Guaransheed lost"
        GOT_TO_GET_IN = "got_to_get_in", "Got to Get In"
        INSTANT_WIN = "instant_win", "Instant win"

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="ledger_lines")
    # The session is the deal's, kept here so a session's money sums without a join.
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="ledger_lines")
    position = models.PositiveSmallIntegerField()
    payer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    amount = models.DecimalField(**MONEY)
    reason = models.CharField(max_length=20, choices=Reason.choices)

    class Meta:
        ordering = ["deal", "position"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_amount_positive"),
            models.CheckConstraint(condition=~Q(payer=F("payee")), name="ledger_no_self_payment"),
            models.UniqueConstraint(fields=["deal", "position"], name="ledger_position_once"),
        ]

    def __str__(self) -> str:
        return f"{self.payer} → {self.payee} {self.amount} ({self.reason})"


class Payment(models.Model):
    """A settlement transfer marked paid. Marking it unpaid again keeps the row.

    Both marks name who made them: an account, or the scorer link passed round the table.
    """

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="payments")
    payer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    amount = models.DecimalField(**MONEY)
    paid_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    recorded_via = models.ForeignKey(
        ShareLink, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    cancelled_at = models.DateTimeField(null=True, blank=True)
    cancelled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    cancelled_via = models.ForeignKey(
        ShareLink, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["session", "paid_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="payment_amount_positive"),
            models.CheckConstraint(condition=~Q(payer=F("payee")), name="payment_no_self_payment"),
        ]

    def __str__(self) -> str:
        return f"{self.payer} paid {self.payee} {self.amount}"


class IdempotencyKey(models.Model):
    """A write sent with an `Idempotency-Key` header (SPEC 8): answered once, then replayed.

    `scope` is the caller (`user:<id>` or `link:<id>`), so two callers never share a key.
    `fingerprint` hashes the method, path and body: the same key with another request is
    refused. A key is `running` while its first request is in progress and `done` once
    its response is stored; keys are kept at least 24 hours (see `tracker.api.idempotency`).
    """

    class State(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    scope = models.CharField(max_length=40)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RUNNING)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    # When the current attempt started: a request that died leaves a stale `running` key.
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "key"], name="idempotency_key_once_per_caller"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.scope}, {self.state})"


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
