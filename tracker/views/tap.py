"""The tap screen and its writes: taps, undo, the sheets' events, End match.

Each write reads the form, passes the one write gate with one service call, and answers
with the screen: for htmx its fragment (a refusal is part of the screen, so htmx gets it
with 200 and swaps it in), for a plain form post a redirect, or the real status when
refused.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from tracker import selectors, services
from tracker.access import DealInReach, Role, access_deal, access_deal_numbered, deal_in_reach
from tracker.errors import Refusal
from tracker.views import table_forms
from tracker.views.doors import (
    SessionPage,
    first_error,
    kept_offline,
    session_page,
    wants_json,
    write,
    write_and_show,
)
from tracker.views.screens.tap import tap_screen
from tracker.views.screens.words import not_saved, reason, save_label


def _screen(
    request: HttpRequest, page: SessionPage, *, message: str = "", status: int = 200
) -> HttpResponse:
    """The tap screen as it stands now. A page loaded again after a refusal it could not
    show (`doors.csrf_failure`) says it in the screen's own line, and is not kept for
    offline use with it."""
    said = "" if request.htmx else " ".join(str(line) for line in get_messages(request))
    screen = tap_screen(_table(request, page), page, message=message or said)
    context = page.context(screen=screen)
    if request.htmx:
        return render(request, "tap/_screen.html", context)
    response = render(request, "tap/page.html", context, status=status)
    return response if said else kept_offline(response)


def _table(request: HttpRequest, page: SessionPage) -> selectors.Table:
    """The screen's data: drawn from what a write just did to the open deal (nothing read
    again: `selectors.table_after`), else read."""
    written = getattr(request, "written", None)
    if isinstance(written, selectors.DealState):
        table = selectors.table_after(written)
        if table is not None:
            return table
    return selectors.table(page.session)


def _table_write(
    request: HttpRequest,
    page: SessionPage,
    form: table_forms.TableForm,
    service: Callable[[DealInReach], object],
    number: int | None = None,
) -> HttpResponse:
    """One write from the tap screen, through the gate; then the screen.

    The deal is the one the form was drawn for (which must be this session's), or, on the
    numbered routes a phone's offline queue sends to, deal `number` of the session: the
    phone may have queued it before the server opened it. The queue asks for JSON
    (`wants_json`): the session's version, or the refusal's code and sentence."""
    if number is not None:
        form.fields["deal"].required = False
    if not form.is_valid():
        if wants_json(request):
            return JsonResponse({"code": "invalid", "detail": first_error(form)}, status=400)
        return _screen(request, page, message=first_error(form), status=400)
    data = form.cleaned_data

    def work() -> object:
        if number is not None:
            deal = DealInReach.by_id(
                access_deal_numbered(
                    page.actor, page.session, number, need=Role.SCORER, ahead=True
                ).pk
            )
        else:
            # Found in the statement that locks it, by the service.
            deal = deal_in_reach(page.actor, data["deal"], need=Role.SCORER, session=page.session)
        return service(deal)

    screen = _answered if wants_json(request) else _screen
    return write_and_show(request, page, data["key"], work, screen=screen, then="tap")


def _answered(
    request: HttpRequest, page: SessionPage, *, message: str = "", status: int = 200
) -> HttpResponse:
    """A write's answer to the offline queue: done (the version the session is at now), or
    refused (see `write_and_show`: the refusal travels in `request.refusal`)."""
    refusal = getattr(request, "refusal", None)
    if refusal is not None:
        return JsonResponse({"code": refusal.code, "detail": reason(refusal)}, status=status)
    written = getattr(request, "written", None)
    if isinstance(written, selectors.DealState):  # the version the write moved the session on to
        return JsonResponse({"version": written.deal.session.version})
    page.session.refresh_from_db(fields=["version"])
    return JsonResponse({"version": page.session.version})


@session_page()
def tap_screen_page(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """The tap screen. A phone following the table sends the session version it shows
    (`seen`): while nothing changed the answer is 204, and nothing is read."""
    if page.is_viewer:
        return redirect(page.url("standings"))
    if request.htmx and request.GET.get("seen") == str(page.session.version):
        return HttpResponse(status=204)
    return _screen(request, page)


@session_page(need=Role.SCORER, methods=("POST",))
def tap(request: HttpRequest, page: SessionPage, number: int | None = None) -> HttpResponse:
    """A player out: on the deal the form names, or (`deals/<number>/tap/`) on deal
    `number`."""
    form = table_forms.TapForm(request.POST)
    return _table_write(
        request,
        page,
        form,
        lambda deal: services.deal_tap(
            deal_id=deal.id,
            reach=deal,
            player_id=form.cleaned_data["tapped"],
            not_played=form.cleaned_data["not_played"],
            loser=form.cleaned_data["loser"] is not None,
            actor=page.actor,
            after=form.cleaned_data["out_before"],
        ),
        number,
    )


@session_page(need=Role.SCORER, methods=("POST",))
def undo(request: HttpRequest, page: SessionPage, number: int | None = None) -> HttpResponse:
    form = table_forms.UndoForm(request.POST)
    return _table_write(
        request,
        page,
        form,
        lambda deal: services.deal_undo(
            deal_id=deal.id,
            actor=page.actor,
            reopen=form.cleaned_data["reopen"],
            reach=deal,
            undoes=form.cleaned_data["undoes"],
        ),
        number,
    )


@session_page(need=Role.SCORER, methods=("POST",))
def event(request: HttpRequest, page: SessionPage, number: int | None = None) -> HttpResponse:
    form_class = table_forms.EVENT_FORMS.get(request.POST.get("type", ""))
    if form_class is None:
        message = _("Unknown kind of event.")
        if wants_json(request):
            return JsonResponse({"code": "invalid", "detail": message}, status=400)
        return _screen(request, page, message=message, status=400)
    form = form_class(request.POST, rules=page.session.rules)
    return _table_write(
        request,
        page,
        form,
        lambda deal: services.deal_event_record(
            deal_id=deal.id,
            reach=deal,
            event=form.record(),  # type: ignore[attr-defined]
            actor=page.actor,
            seen=form.cleaned_data["seen"],
        ),
        number,
    )


@session_page(need=Role.SCORER)
def event_preview(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """A sheet's Save button, naming what it would record and the money it would move;
    asked (htmx) each time the sheet changes. Nothing is written."""
    label = _("Save")
    form_class = table_forms.EVENT_FORMS.get(request.GET.get("type", ""))
    if form_class is not None:
        form = form_class(request.GET, rules=page.session.rules)
        if form.is_valid():
            deal = access_deal(page.actor, form.cleaned_data["deal"], session=page.session)
            seen = selectors.record_preview(deal, form.record())
            if seen.preview.refused is not None:
                context = page.context(refused=seen.preview.refused.render(gettext), label=label)
                return render(request, "deals/_save_button.html", context)
            label = save_label(seen.preview, names=seen.names, currency=page.session.currency)
    return render(request, "deals/_save_button.html", page.context(label=label))


@session_page(need=Role.SCORER, methods=("GET", "POST"))
def end(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """End match, with a confirm step: GET asks, POST ends the deal the question was
    asked about (not whichever deal is open by then) and the session."""
    deal = selectors.open_deal(page.session)
    message, status = "", 200
    if request.method == "POST":
        form = table_forms.TableForm(request.POST)
        if not form.is_valid():
            message, status = first_error(form), 400
        else:
            try:
                write(
                    request,
                    page.actor,
                    form.cleaned_data["key"],
                    lambda: services.deal_end(
                        deal_id=access_deal(
                            page.actor,
                            form.cleaned_data["deal"],
                            need=Role.SCORER,
                            session=page.session,
                        ).pk,
                        actor=page.actor,
                    ),
                )
            except Refusal as refusal:
                message, status = not_saved(refusal), refusal.status
            else:
                return redirect(page.url("standings"))
    return render(request, "tap/end.html", page.context(deal=deal, message=message), status=status)
