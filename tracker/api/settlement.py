"""Settle up in the API: balances and transfers, and marking a transfer paid or not."""

from __future__ import annotations

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import selectors, services
from tracker.access import Role, access_session
from tracker.api import serializers as io
from tracker.api.base import ApiView, gated
from tracker.api.schema import reads, writes


class SettlementView(ApiView):
    need = {"GET": Role.VIEWER}

    @reads(io.SettlementOut, summary="Balances and the fewest transfers that clear them")
    def get(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk)
        return Response(io.settlement_data(session, selectors.session_settlement(session)))


class SettlementPaidView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(io.TransferInput, 201, io.SettlementOut, summary="Mark a transfer paid")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        transfer = self.valid(io.TransferInput).transfer()
        services.transfer_mark_paid(
            session_id=session.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=self.actor,
        )
        settlement = selectors.session_settlement(session)
        return Response(io.settlement_data(session, settlement), status=status.HTTP_201_CREATED)


class SettlementUnpaidView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(io.TransferInput, 200, io.SettlementOut, summary="Mark a paid transfer unpaid")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        transfer = self.valid(io.TransferInput).transfer()
        services.transfer_mark_unpaid(
            session_id=session.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=self.actor,
        )
        return Response(io.settlement_data(session, selectors.session_settlement(session)))
