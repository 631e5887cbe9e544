"""A player's payment details, as the page and the API that set them show them."""

from __future__ import annotations

from tracker.models import PaymentDetails, Player


def player_payment_details(player: Player) -> PaymentDetails:
    """The player's payment details; blank ones when none were set (one query)."""
    return PaymentDetails.objects.filter(player=player).first() or PaymentDetails(player=player)
