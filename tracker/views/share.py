"""Sharing a session: a scorer link (taps, no login) and a viewer link (standings only),
each with a QR code; making and revoking them is for the circle's members."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from tracker import selectors, services
from tracker.access import Role, access_share_link
from tracker.errors import Refusal
from tracker.models import ShareLink
from tracker.views.doors import SessionPage, first_error, session_page, write, write_and_show
from tracker.views.screens.qr import qr_svg
from tracker.views.screens.words import not_saved
from tracker.views.table_forms import ShareLinkForm


@dataclass
class ShareCard:
    link: ShareLink
    url: str
    qr_svg: str
    title: str
    explain: str


def _card(request: HttpRequest, link: ShareLink) -> ShareCard:
    is_scorer = link.role == ShareLink.Role.SCORER
    path = reverse("link:tap" if is_scorer else "link:standings", kwargs={"token": link.token})
    url = request.build_absolute_uri(path)
    title = _("Scorer link") if is_scorer else _("Viewer link")
    return ShareCard(
        link=link,
        url=url,
        qr_svg=qr_svg(url, title),
        title=title,
        explain=(
            _("Opens the tap screen without a login: for the phone passed round the table.")
            if is_scorer
            else _("Shows the live standings only: for anyone watching, at the table or at home.")
        ),
    )


def _page(
    request: HttpRequest, page: SessionPage, *, message: str = "", status: int = 200
) -> HttpResponse:
    cards = [_card(request, link) for link in selectors.active_share_links(page.session)]
    roles = {card.link.role for card in cards}
    context = page.context(
        cards=cards,
        missing=[role for role in ShareLink.Role.values if role not in roles],
        message=message,
    )
    return render(request, "share/page.html", context, status=status)


@session_page(need=Role.MEMBER, methods=("GET", "POST"))
def share(request: HttpRequest, page: SessionPage) -> HttpResponse:
    if request.method == "GET":
        return _page(request, page)
    form = ShareLinkForm(request.POST)
    if not form.is_valid():
        return _page(request, page, message=first_error(form), status=400)
    return write_and_show(
        request,
        page,
        form.cleaned_data["key"],
        lambda: services.share_link_create(
            session_id=page.session.pk, role=form.cleaned_data["role"], actor=page.actor
        ),
        screen=_page,
        then="share",
    )


@session_page(need=Role.MEMBER, methods=("POST",))
def share_revoke(request: HttpRequest, page: SessionPage) -> HttpResponse:
    form = ShareLinkForm(request.POST)
    if not form.is_valid() or form.cleaned_data["link"] is None:
        return _page(request, page, message=first_error(form), status=400)
    link_id = form.cleaned_data["link"]

    def revoke() -> ShareLink:
        link = access_share_link(page.actor, link_id, session=page.session)
        return services.share_link_revoke(link_id=link.pk, actor=page.actor)

    try:
        write(request, page.actor, form.cleaned_data["key"], revoke)
    except Refusal as refusal:
        if refusal.code != "link_revoked":  # already revoked: gone from the page either way
            return _page(request, page, message=not_saved(refusal), status=refusal.status)
    return redirect(page.url("share"))
