"""Settle up (SPEC 5): balances, the fewest transfers that clear them, each marked paid
with one tap."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tracker import selectors, services
from tracker.access import Role
from tracker.views.doors import SessionPage, first_error, session_page, write_and_show
from tracker.views.table_forms import TransferForm


@dataclass
class TransferLine:
    payer: int
    payee: int
    payer_name: str
    payee_name: str
    amount: Decimal
    paid: bool


def _page(
    request: HttpRequest, page: SessionPage, *, message: str = "", status: int = 200
) -> HttpResponse:
    session = page.session
    settlement = selectors.session_settlement(session)
    names = selectors.session_player_names(session, set(settlement.balances))
    balances = sorted(
        ((names.get(player, "?"), net) for player, net in settlement.balances.items()),
        key=lambda item: (-item[1], item[0].lower()),
    )
    transfers = [
        TransferLine(
            payer=transfer.payer,
            payee=transfer.payee,
            payer_name=names.get(transfer.payer, "?"),
            payee_name=names.get(transfer.payee, "?"),
            amount=transfer.amount,
            paid=transfer.paid,
        )
        for transfer in settlement.transfers
    ]
    context = page.context(
        balances=balances,
        transfers=transfers,
        open_count=sum(1 for transfer in transfers if not transfer.paid),
        message=message,
    )
    template = "settle/_transfers.html" if request.htmx else "settle/page.html"
    return render(request, template, context, status=status)


@session_page()
def settle(request: HttpRequest, page: SessionPage) -> HttpResponse:
    return _page(request, page)


@session_page(need=Role.SCORER, methods=("POST",))
def paid(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """Mark one transfer paid, or paid no more; the others stay as they are (SPEC 5)."""
    form = TransferForm(request.POST)
    if not form.is_valid():
        return _page(request, page, message=first_error(form), status=400)
    data = form.cleaned_data
    mark = services.transfer_mark_unpaid if data["undo"] else services.transfer_mark_paid
    return write_and_show(
        request,
        page,
        data["key"],
        lambda: mark(
            session_id=page.session.pk,
            payer_id=data["payer"],
            payee_id=data["payee"],
            amount=data["amount"],
            actor=page.actor,
        ),
        screen=_page,
        then="settle",
    )
