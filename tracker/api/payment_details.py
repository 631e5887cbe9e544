"""A player's payment details in the API: how they are paid (a VietQR bank account, a
payment link); the circle's members read and set them."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.vietqr import BANKS, BANKS_BY_BIN
from tracker import selectors, services
from tracker.access import Role, access_player
from tracker.api.base import ApiView, gated
from tracker.api.fields import ClosedInput, StringField
from tracker.api.schema import reads, writes
from tracker.models import PaymentDetails


class PaymentDetailsIO(ClosedInput):
    # No lengths here: the services refuse every wrong one with their own sentence and
    # code (`invalid_link`: "at most 200 characters"), which a looser bound here answered
    # instead, with another limit and DRF's generic code, for the same mistake made longer.
    bank_bin = StringField(
        allow_blank=True,
        default="",
        help_text="The bank's NAPAS BIN: one of "
        + ", ".join(f"{bank.bin} ({bank.short_name})" for bank in BANKS)
        + "; empty for no bank account.",
    )
    account_number = StringField(
        allow_blank=True,
        default="",
        help_text="1 to 19 letters or digits; spaces, dots and dashes are taken out.",
    )
    account_name = StringField(allow_blank=True, default="", help_text="At most 50 characters.")
    link = StringField(
        allow_blank=True,
        default="",
        help_text="https:// only, no spaces, at most 200 characters; empty for none.",
    )
    # What the answer shows beside them, known here (and ignored), so the details sent
    # back as they were shown, with one field changed, are taken (docs/api.md).
    player = serializers.IntegerField(source="player_id", read_only=True)
    bank = serializers.CharField(read_only=True, help_text="The bank's short name; empty for none.")
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)


class PaymentDetailsOut(PaymentDetailsIO):
    """How a player is paid, as the API shows it."""


def details_data(details: PaymentDetails) -> Any:
    bank = BANKS_BY_BIN.get(details.bank_bin)
    row: dict[str, Any] = {
        "player_id": details.player_id,
        "bank_bin": details.bank_bin,
        "bank": bank.short_name if bank else "",
        "account_number": details.account_number,
        "account_name": details.account_name,
        "link": details.link,
        "updated_at": details.updated_at if details.pk else None,
    }
    return PaymentDetailsOut(row).data


class PaymentDetailsView(ApiView):
    need = {"GET": Role.MEMBER, "PUT": Role.MEMBER}

    @reads(PaymentDetailsOut, summary="How a player is paid")
    def get(self, request: Request, pk: int) -> Response:
        player = access_player(self.actor, pk)
        return Response(details_data(selectors.player_payment_details(player)))

    @writes(PaymentDetailsIO, 200, PaymentDetailsOut, summary="Set how a player is paid")
    @gated
    def put(self, request: Request, pk: int) -> Response:
        player = access_player(self.actor, pk)
        data = self.valid(PaymentDetailsIO).validated_data
        details = services.payment_details_set(player=player, **data, actor=self.actor)
        return Response(details_data(details))
