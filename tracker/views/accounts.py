"""Signing up: an account, and a circle of its own to start a table in, or, reached from
an invite that still works, a place in that circle instead. Accounts made
from one address are limited (the `signup` rate, THROTTLE_SIGNUP), and so are the forms
sent from it, whatever they answer (`signup_tries`, THROTTLE_SIGNUP_TRIES). The account page: the
account's API tokens."""

from __future__ import annotations

from typing import cast
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from tracker import gate, selectors, services
from tracker.access import invite_by_token
from tracker.errors import Refusal, TooManyWrites
from tracker.models import Circle, Invite
from tracker.views import doors, forms
from tracker.views.doors import member_page, safe_next
from tracker.views.lockout import client_address
from tracker.views.screens.words import reason


def sign_up(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = forms.SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST":
        try:
            # Every form sent counts, before anything is checked: past the rate nothing
            # says whether a username is taken.
            gate.throttle_sign_up_try(client_address(request))
        except TooManyWrites as refusal:
            # The form as typed, but unchecked: nothing said of the username.
            typed = {"username": request.POST.get("username", "")[:150]}
            return _too_many(request, forms.SignUpForm(initial=typed), refusal)
    if request.method == "POST" and form.is_valid():
        try:
            gate.throttle_sign_up(client_address(request))
        except TooManyWrites as refusal:
            return _too_many(request, form, refusal)
        with transaction.atomic():
            user = form.save()
            joined = _joined(user, _invite_in(safe_next(request, "")))
            if joined is None:
                circle = services.circle_create(
                    owner=user, name=_("%(name)s's table") % {"name": user.get_username()}
                )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        if joined is not None:
            return redirect("circle", circle_id=joined.pk)
        # Sent here by another page (or an invite used up meanwhile, which says so): back.
        return redirect(safe_next(request, reverse("session_new", args=[circle.pk])))
    if form.errors:
        status = 400
    return render(request, "registration/signup.html", _context(request, form), status=status)


def _too_many(request: HttpRequest, form: forms.SignUpForm, refusal: TooManyWrites) -> HttpResponse:
    context = {**_context(request, form), "refused": reason(refusal)}
    response = render(request, "registration/signup.html", context, status=429)
    response["Retry-After"] = str(refusal.wait)
    return response


def _context(request: HttpRequest, form: forms.SignUpForm) -> dict[str, object]:
    following = safe_next(request, "")
    invite = _invite_in(following)
    return {"form": form, "next": following, "joining": invite.circle if invite else None}


def _invite_in(address: str) -> Invite | None:
    """The invite a join link names (`next`: sign-up reached from one), if it still lets
    someone join. A player invited to a table signs up to join it: they had to tap Join
    again after signing up, and one who left that page was in no circle but their own."""
    try:
        found = resolve(urlsplit(address).path)
    except Resolver404:
        return None
    if found.url_name != "join":
        return None
    try:
        return invite_by_token(str(found.kwargs["token"]))
    except Refusal:
        return None


def _joined(user: User, invite: Invite | None) -> Circle | None:
    """The invite's circle, with `user` a member of it; None when there is no invite, or
    it stopped working since the page was drawn (its last use went to another)."""
    if invite is None:
        return None
    try:
        with transaction.atomic():  # a refusal leaves the account made
            return services.invite_accept(token=invite.token, user=user)
    except Refusal:
        return None


# --- The account page: its API tokens -------------------------------------------------


@member_page(methods=("GET", "POST"))
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in account: its API tokens, each revocable, and all at once. Never
    cached: it is about credentials."""
    actor = doors.account(request)
    user = cast(User, request.user)
    status = 200
    message = ""
    if request.method == "POST":
        form = forms.TokenRevokeForm(request.POST)
        if not form.is_valid():
            message, status = doors.first_error(form), 400
        else:
            token = form.cleaned_data["token"]
            try:
                doors.write(
                    request,
                    actor,
                    form.cleaned_data["key"],
                    lambda: (
                        services.api_token_revoke(user=user, token_id=token)
                        if token
                        else services.api_tokens_revoke_all(user=user)
                    ),
                )
            except Refusal as refusal:
                message, status = reason(refusal), refusal.status
            else:
                return redirect("account")
    context = {
        "tokens": selectors.api_tokens(user),
        "message": message,
        "idle_days": settings.API_TOKEN_IDLE_DAYS,
    }
    response = render(request, "registration/account.html", context, status=status)
    add_never_cache_headers(response)
    return response
