"""The end-of-night summary (SPEC 5, 6): podium, points, who pays whom, shared as text
through the Web Share API (a copy button where a phone has none), and the session's
downloads."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from tracker import selectors
from tracker.access import Role
from tracker.models import ShareLink
from tracker.views.doors import SessionPage, session_page
from tracker.views.screens.summary import Transfer, headline, podium, share_text


def _shared_url(request: HttpRequest, page: SessionPage) -> str:
    """The link the shared text ends with: the viewer link, never a scorer link (whoever
    holds it could score). A member shares the session's viewer link if it has one; a
    viewer link shares itself; the scorer link shares none."""
    if page.actor.role is Role.VIEWER:
        return request.build_absolute_uri(page.url("summary"))
    if page.actor.role is Role.MEMBER:
        for link in selectors.active_share_links(page.session):
            if link.role == ShareLink.Role.VIEWER:
                path = reverse("link:summary", kwargs={"token": link.token})
                return request.build_absolute_uri(path)
    return ""


@session_page()
def summary(request: HttpRequest, page: SessionPage) -> HttpResponse:
    session = page.session
    night = selectors.session_summary(session)
    names = night.names
    transfers = [
        Transfer(payer=names.get(t.payer, "?"), payee=names.get(t.payee, "?"), amount=t.amount)
        for t in night.settlement.open_transfers
    ]
    url = _shared_url(request, page)
    context = page.context(
        podium=podium(night.rows) if night.deal_count else [],
        rows=night.rows,
        deal_count=night.deal_count,
        transfers=transfers,
        settled=night.settlement.settled,
        has_money=bool(night.settlement.balances),
        headline=headline(session, night.rows, night.deal_count),
        share_text=share_text(session, night, transfers, url),
        share_url=url,
    )
    return render(request, "summary/page.html", context)
