"""Money: what each deal moved, and payments made to settle up."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from tracker.models.circles import Player
from tracker.models.deals import Deal
from tracker.models.fields import MONEY
from tracker.models.sessions import Session, ShareLink


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
    """Money paid from one player to another in the session to settle up: a transfer of
    the settlement in full, part of one, or any amount. It stays paid whatever a later
    correction does to the ledger (`scoring.payments`). Cancelling one keeps the row.

    Both name who did it: an account, or the scorer link passed round the table.
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
