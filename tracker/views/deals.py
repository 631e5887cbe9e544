"""The deals of a session: the history, and one deal in full with its corrections — a new
finishing order and events taken out (the correction form), or something added that was
missed (the same sheets as the tap screen, `deal_add`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

import scoring
from tracker import selectors, services
from tracker.access import Role, access_deal_numbered, require
from tracker.errors import NotFound, Refusal
from tracker.models import Deal, DealEvent, Tap
from tracker.views import forms, table_forms
from tracker.views.doors import SessionPage, first_error, kept_offline, session_page, write
from tracker.views.screens.sheets import sheets
from tracker.views.screens.words import (
    STATUSES,
    MoneyLine,
    describe_event,
    finish_line,
    money_lines,
    not_saved,
    reason,
    record_label,
    told_apart,
)


@dataclass
class DealCard:
    deal: Deal
    url: str
    status: str
    finish: list[str]
    events: list[str]
    money: list[MoneyLine]


NO_SUCH_PAGE = gettext_noop("There is no page %(page)s of deals.")


@session_page()
def deals(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """The session's deals, newest first, 50 a page (`?page=2` for older ones): a long
    night stays quick to show."""
    wanted = forms.PageForm(request.GET)
    if not wanted.is_valid():
        raise NotFound(NO_SUCH_PAGE, page=request.GET.get("page", ""))
    history = selectors.session_deal_history_page(page.session, wanted.cleaned_data["page"] or 1)
    if history is None:
        raise NotFound(NO_SUCH_PAGE, page=wanted.cleaned_data["page"])
    cards = []
    cards_pay = page.session.rules.needs_hands
    for deal in history.deals:
        names = {dp.player_id: dp.player.name for dp in deal.deal_players.all()}
        cards.append(
            DealCard(
                deal=deal,
                url=page.url("deal", number=deal.number),
                status=str(STATUSES.get(deal.status, deal.status)),
                finish=finish_line(deal.deal_players.all(), names),
                events=[
                    describe_event(event, names, cards_pay=cards_pay)
                    for event in deal.live_events  # type: ignore[attr-defined]
                ],
                money=money_lines(deal.ledger_lines.all(), names),
            )
        )
    pages = {
        "newer": history.number - 1 if history.number > 1 else None,
        "older": history.number + 1 if history.number < history.pages else None,
    }
    context = page.context(cards=cards, history=history, pages=pages)
    return kept_offline(render(request, "deals/history.html", context))


def _correction_form(deal_page: selectors.DealPage, data: Any = None) -> table_forms.CorrectionForm:
    """The finishing order again (prefilled with the taps that stand), the loser where
    the rules ask for one, the events to take out, and why."""
    rules = deal_page.deal.session.rules
    size = len(deal_page.players)
    podium = scoring.podium_size(rules, size)
    placed = [tap for tap in deal_page.live_taps if not tap.loser]
    loser_tap = next((tap for tap in deal_page.live_taps if tap.loser), None)
    initial: dict[str, Any] = {
        f"place_{index}": tap.player_id for index, tap in enumerate(placed, start=1)
    }
    if loser_tap:
        initial["loser"] = loser_tap.player_id
    names = deal_page.names
    return table_forms.CorrectionForm(
        data,
        # As Undo says them ("Nguyễn … Lan Vy"): a select shows the start of its choice,
        # and at 320 px the places read "Nguyễn Thị Minh K" three times (session 25).
        players=list(told_apart(names).items()),
        places=min(max(podium, len(placed)), size),
        ask_loser=rules.stake_rule == scoring.StakeRule.LOSER_PAYS and size > podium + 1,
        events=[
            (event.pk, describe_event(event, names, cards_pay=rules.needs_hands))
            for event in deal_page.live_events
        ],
        initial=initial,
    )


def _page(
    request: HttpRequest,
    page: SessionPage,
    deal_page: selectors.DealPage,
    *,
    form: table_forms.CorrectionForm | None = None,
    message: str = "",
    status: int = 200,
) -> HttpResponse:
    deal, names = deal_page.deal, deal_page.names
    correctable = not deal.is_open and page.can_score
    if correctable and form is None:
        form = _correction_form(deal_page)
    records: list[Tap | DealEvent] = sorted(
        [*deal_page.taps, *deal_page.events], key=lambda record: record.seq
    )
    history = [
        {
            "text": (
                record_label(record, names)
                if isinstance(record, Tap)
                else describe_event(record, names, cards_pay=page.session.rules.needs_hands)
            ),
            "live": record.undone_at is None,
            # Replaced by a correction, not taken back by Undo: said so.
            "corrected": record.correction_id is not None,
            "at": record.recorded_at,
        }
        for record in records
    ]
    hands = [event for event in deal_page.live_events if event.type == DealEvent.Type.HAND]
    context = page.context(
        deal=deal,
        status=STATUSES.get(deal.status, deal.status),
        finish=finish_line(deal_page.players, names),
        history=history,
        money=money_lines(deal_page.ledger, names),
        corrections=deal_page.corrections,
        form=form if correctable else None,
        sheets=sheets(
            deal_page.allowed,
            deal=deal.pk,
            names=names,
            action=page.url("deal_add", number=deal.number),
            preview=page.url("event_preview"),
            live=False,
            known_hands=[
                describe_event(event, names, cards_pay=page.session.rules.needs_hands)
                for event in hands
            ],
        )
        if correctable
        else None,
        message=message,
    )
    return render(request, "deals/detail.html", context, status=status)


@session_page(methods=("GET", "POST"))
def deal(request: HttpRequest, page: SessionPage, number: int) -> HttpResponse:
    """One deal in full — taps and events, undone ones struck through — and, for a filed
    deal, the correction form (`services.deal_correct`)."""
    deal = access_deal_numbered(page.actor, page.session, number)
    deal_page = selectors.deal_page(deal)
    if request.method == "GET":
        return _page(request, page, deal_page)
    require(page.actor, Role.SCORER)
    form = _correction_form(deal_page, request.POST)
    if not form.is_valid():
        return _page(request, page, deal_page, form=form, status=400)
    data = form.cleaned_data
    try:
        write(
            request,
            page.actor,
            data["key"],
            lambda: services.deal_correct(
                deal_id=deal.pk,
                taps=data["order"],
                loser=data.get("loser"),
                remove_event_ids=data.get("remove") or [],
                reason=data["reason"],
                actor=page.actor,
            ),
        )
    except Refusal as refusal:
        return _page(
            request, page, deal_page, form=form, message=reason(refusal), status=refusal.status
        )
    return redirect(page.url("deal", number=number))


@session_page(need=Role.SCORER, methods=("POST",))
def deal_add(request: HttpRequest, page: SessionPage, number: int) -> HttpResponse:
    """Correct a filed deal by adding one event: a 2 chopped, a cutup beaten, a
    Guaransheed, an instant win, or a hand (which replaces the one recorded for that
    player, if any, in the same correction)."""
    deal = access_deal_numbered(page.actor, page.session, number, need=Role.SCORER)

    def refuse(message: str, status: int) -> HttpResponse:
        return _page(request, page, selectors.deal_page(deal), message=message, status=status)

    form_class = table_forms.EVENT_FORMS.get(request.POST.get("type", ""))
    if form_class is None:
        return refuse(_("Unknown kind of event."), 400)
    form = form_class(request.POST, rules=page.session.rules)
    why = table_forms.CorrectionAddForm(request.POST)
    if not form.is_valid():
        return refuse(first_error(form), 400)
    if not why.is_valid():
        return refuse(first_error(why), 400)
    if form.cleaned_data["deal"] != deal.pk:
        return refuse(_("That form was for another deal; look again."), 400)
    try:
        write(
            request,
            page.actor,
            form.cleaned_data["key"],
            lambda: services.deal_correct(
                deal_id=deal.pk,
                add_events=[form.record()],  # type: ignore[attr-defined]
                replace_hands=True,
                reason=why.cleaned_data["reason"],
                actor=page.actor,
            ),
        )
    except Refusal as refusal:
        return refuse(not_saved(refusal), refusal.status)
    return redirect(page.url("deal", number=number))
