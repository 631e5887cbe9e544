"""A player's payment details page: how they are paid (a VietQR bank account, a payment
link), for the circle's members; settle up then shows a "Pay" button on transfers to them.
Reached from settle up (`next`), it goes back there once saved, where the Pay button now is.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from tracker import selectors, services
from tracker.access import access_player
from tracker.errors import Refusal
from tracker.models import Circle, Player
from tracker.views.doors import account, member_circle, member_page, safe_next, write
from tracker.views.screens.words import not_saved
from tracker.views.table_forms import PaymentDetailsForm


def _page(
    request: HttpRequest,
    circle: Circle,
    player: Player,
    form: PaymentDetailsForm,
    *,
    message: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {
        "circle": circle,
        "player": player,
        "form": form,
        "message": message,
        "next": safe_next(request, ""),
    }
    return render(request, "payment_details/page.html", context, status=status)


@member_page(methods=("GET", "POST"))
def payment_details(request: HttpRequest, circle_id: int, player_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    actor = account(request)
    player = access_player(actor, player_id, circle=circle)
    if request.method == "GET":
        details = selectors.player_payment_details(player)
        initial = {
            "bank_bin": details.bank_bin,
            "account_number": details.account_number,
            "account_name": details.account_name,
            "link": details.link,
        }
        return _page(request, circle, player, PaymentDetailsForm(initial=initial))
    form = PaymentDetailsForm(request.POST)
    if not form.is_valid():
        return _page(request, circle, player, form, status=400)
    data = form.cleaned_data
    try:
        write(
            request,
            actor,
            data["key"],
            lambda: services.payment_details_set(
                player=player,
                bank_bin=data["bank_bin"],
                account_number=data["account_number"],
                account_name=data["account_name"],
                link=data["link"],
                actor=actor,
            ),
        )
    except Refusal as refusal:
        return _page(
            request, circle, player, form, message=not_saved(refusal), status=refusal.status
        )
    return redirect(safe_next(request, reverse("circle", kwargs={"circle_id": circle.pk})))
