"""The players page: who sits at the table for the next deal, changed between deals
(SPEC 3.5), one change a tap, applied at once."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from tracker import selectors, services
from tracker.access import Role
from tracker.views.doors import SessionPage, first_error, session_page, write_and_show
from tracker.views.forms import MOST_SEATS
from tracker.views.table_forms import SeatingForm


@dataclass
class SeatLine:
    id: int
    name: str
    roles: list[str]


def _page(
    request: HttpRequest, page: SessionPage, *, message: str = "", status: int = 200
) -> HttpResponse:
    """Who sits at the table for the open deal, and the circle's other players. Changes
    are allowed only while that deal has nothing recorded (`services.players_change`)."""
    table = selectors.players_page(page.session)
    deal = table.deal
    seated = [
        SeatLine(
            id=dp.player_id,
            name=dp.player.name,
            roles=[
                role
                for role, holds in (
                    (_("deals"), deal is not None and dp.player_id == deal.dealer_id),
                    (_("leads"), deal is not None and dp.player_id == deal.leader_id),
                )
                if holds
            ],
        )
        for dp in table.seated
    ]
    context = page.context(
        deal=deal,
        seated=seated,
        bench=table.bench,
        started=table.started,
        message=message,
        most_seats=MOST_SEATS,
    )
    if request.htmx:
        return render(request, "players/_players.html", context)
    return render(request, "players/page.html", context, status=status)


@session_page(need=Role.SCORER, methods=("GET", "POST"))
def players(request: HttpRequest, page: SessionPage) -> HttpResponse:
    if request.method == "GET":
        return _page(request, page)
    form = SeatingForm(request.POST)
    if not form.is_valid():
        return _page(request, page, message=first_error(form), status=400)
    data = form.cleaned_data
    return write_and_show(
        request,
        page,
        data["key"],
        lambda: services.players_change(
            session_id=page.session.pk,
            deal_id=data["deal"],
            change=data["action"],
            target=data["target"],
            actor=page.actor,
        ),
        screen=_page,
        then="players",
    )
