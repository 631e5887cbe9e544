"""How a player can be paid: a VietQR bank account and/or a payment link (SPEC 5)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tracker.models.circles import Player


class PaymentDetails(models.Model):
    """A player's payment details: a bank account on NAPAS 247 (the bank's BIN from the
    NAPAS list, the account number and the name on it) for a VietQR code, and/or a
    payment link they pasted (PayPal.me, Venmo, Revolut, MoMo...).

    Settle up shows them on transfers to the player, to the circle's members and the
    scorer link of its sessions; never to a viewer link (`access.sees_payment_details`).
    """

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="payment_details")
    bank_bin = models.CharField(max_length=6, blank=True)
    account_number = models.CharField(max_length=19, blank=True)
    account_name = models.CharField(max_length=50, blank=True)
    link = models.CharField(max_length=200, blank=True)
    # Who set them last, and when: only a member of the circle can.
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "payment details"
        constraints = [
            models.CheckConstraint(
                condition=Q(bank_bin="", account_number="")
                | (~Q(bank_bin="") & ~Q(account_number="")),
                name="payment_details_bank_with_account",
            ),
        ]

    def __str__(self) -> str:
        return f"How {self.player} is paid"

    @property
    def has_bank(self) -> bool:
        return bool(self.bank_bin and self.account_number)
