"""A circle's members page: who is in it (the owner marked, each with the player they
said is them), removing a member or leaving, handing the circle over, and invite links
with QR codes; and the page an invite link opens, to join.

Invite tokens are secrets like share tokens: the pages that show or carry one are never
cached, and the request log hides them (`/join/<token>/`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from tracker import selectors, services
from tracker.access import NO_INVITE, access_invite, access_player, check_invite, invite_by_token
from tracker.errors import NotFound, Refusal
from tracker.models import Circle, Invite
from tracker.services.members import Removed
from tracker.views import forms
from tracker.views.doors import account, first_error, member_circle, member_page, refused, write
from tracker.views.screens.qr import qr_svg
from tracker.views.screens.words import reason


@dataclass
class InviteCard:
    invite: Invite
    url: str
    qr_svg: str


def _page(
    request: HttpRequest, circle: Circle, *, message: str = "", status: int = 200
) -> HttpResponse:
    cards = []
    for invite in selectors.circle_invites(circle):
        url = request.build_absolute_uri(reverse("join", kwargs={"token": invite.token}))
        cards.append(InviteCard(invite=invite, url=url, qr_svg=qr_svg(url, _("Invite link"))))
    context = {
        "circle": circle,
        "members": selectors.circle_members(circle),
        "is_owner": circle.owner_id == request.user.pk,
        "cards": cards,
        "form": forms.InviteForm(),
        "message": message,
    }
    response = render(request, "members/page.html", context, status=status)
    add_never_cache_headers(response)  # it shows the invites' tokens
    return response


@member_page()
def members(request: HttpRequest, circle_id: int) -> HttpResponse:
    return _page(request, member_circle(request, circle_id))


def _member_write(
    request: HttpRequest,
    circle_id: int,
    form_class: type[forms.KeyedForm],
    work: Callable[[Circle, Any], object],
    *,
    then: Callable[[Circle], str] | None = None,
    said: Callable[[Any], str] = lambda _done: "",
) -> HttpResponse:
    """A write from the members page: the form, one service through the write gate, then
    the page again (or `then`); a refusal is said on the page with its status. What
    `said` makes of the write's result, if anything, is said on the page again (not
    redirected to, so that it can be said)."""
    circle = member_circle(request, circle_id)
    form = form_class(request.POST)
    if not form.is_valid():
        return _page(request, circle, message=first_error(form), status=400)
    try:
        done = write(
            request, account(request), form.cleaned_data["key"], lambda: work(circle, form)
        )
    except Refusal as refusal:
        return _page(request, circle, message=reason(refusal), status=refusal.status)
    message = "" if done is None else said(done)  # None: the same form sent again
    if message and then is None:
        return _page(request, circle, message=message)
    return redirect(then(circle) if then else reverse("circle_members", args=[circle.pk]))


def _removed(removed: Removed) -> str:
    name = removed.member.get_username()
    if removed.invites or removed.links:
        return _(
            "%(name)s was removed, and the circle's invites and share links were revoked,"
            " as %(name)s could see them: make new ones for whoever still needs one."
        ) % {"name": name}
    return _("%(name)s was removed.") % {"name": name}


@member_page(methods=("POST",))
def member_remove(request: HttpRequest, circle_id: int) -> HttpResponse:
    """The owner removes a member; a member's own id: they leave (to the home page)."""
    leaving = request.POST.get("member") == str(request.user.pk)
    return _member_write(
        request,
        circle_id,
        forms.MemberForm,
        lambda circle, form: services.member_remove(
            circle=circle, user_id=form.cleaned_data["member"], actor=account(request)
        ),
        then=(lambda circle: reverse("home")) if leaving else None,
        said=_removed,
    )


@member_page(methods=("POST",))
def hand_over(request: HttpRequest, circle_id: int) -> HttpResponse:
    return _member_write(
        request,
        circle_id,
        forms.MemberForm,
        lambda circle, form: services.circle_hand_over(
            circle=circle, user_id=form.cleaned_data["member"], actor=account(request)
        ),
    )


@member_page(methods=("POST",))
def invite_new(request: HttpRequest, circle_id: int) -> HttpResponse:
    return _member_write(
        request,
        circle_id,
        forms.InviteForm,
        lambda circle, form: services.invite_create(
            circle=circle,
            actor=account(request),
            days=form.cleaned_data["days"],
            max_uses=form.max_uses(),
        ),
    )


@member_page(methods=("POST",))
def invite_revoke(request: HttpRequest, circle_id: int) -> HttpResponse:
    def revoke(circle: Circle, form: Any) -> Invite:
        invite = access_invite(account(request), form.cleaned_data["invite"])
        if invite.circle_id != circle.pk:  # another circle's: not on this circle's page
            raise NotFound(NO_INVITE, id=invite.pk)
        return services.invite_revoke(invite_id=invite.pk, actor=account(request))

    return _member_write(request, circle_id, forms.InviteRevokeForm, revoke)


def _claim(request: HttpRequest, circle_id: int, player_id: int, *, mine: bool) -> HttpResponse:
    """ "This is me" / "Not me" on the circle page: back to the circle page."""
    circle = member_circle(request, circle_id)
    player = access_player(account(request), player_id, circle=circle)
    form = forms.KeyedForm(request.POST)
    form.is_valid()  # a key is optional
    service = services.player_claim if mine else services.player_unclaim
    write(
        request,
        account(request),
        form.cleaned_data.get("key"),
        lambda: service(player=player, actor=account(request)),
    )
    return redirect("circle", circle_id=circle.pk)


@member_page(methods=("POST",))
def player_claim(request: HttpRequest, circle_id: int, player_id: int) -> HttpResponse:
    return _claim(request, circle_id, player_id, mine=True)


@member_page(methods=("POST",))
def player_unclaim(request: HttpRequest, circle_id: int, player_id: int) -> HttpResponse:
    return _claim(request, circle_id, player_id, mine=False)


# --- Joining by an invite -----------------------------------------------------------------


def join(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: to sign in (or up) first, then a Join button; a member already is
    taken to the circle. A link that no longer works says why (404)."""
    response = _join(request, token)
    add_never_cache_headers(response)
    return response


def _member_of(request: HttpRequest, circle: Circle) -> bool:
    return request.user.is_authenticated and circle.members.filter(pk=request.user.pk).exists()


def _join(request: HttpRequest, token: str) -> HttpResponse:
    if request.method not in ("GET", "POST"):
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    try:
        invite = invite_by_token(token, working=False)
        member = _member_of(request, invite.circle)
        if not member:  # a member goes to the circle, whatever the invite's state
            check_invite(invite)
    except Refusal as refusal:
        return refused(request, refusal)
    circle = invite.circle
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        context = {"circle": circle, "next": request.get_full_path()}
        return render(request, "members/join.html", context)
    user = cast(User, request.user)
    if member:
        return redirect("circle", circle_id=circle.pk)
    if request.method == "GET":
        return render(request, "members/join.html", {"circle": circle, "invite": invite})
    form = forms.KeyedForm(request.POST)
    form.is_valid()
    try:
        write(
            request,
            account(request),
            form.cleaned_data.get("key"),
            lambda: services.invite_accept(token=token, user=user),
        )
    except Refusal as refusal:
        return refused(request, refusal)
    return redirect("circle", circle_id=circle.pk)
