"""Signing up: an account, and a circle of its own to start a table in. Accounts made
from one address are limited (the `signup` rate, THROTTLE_SIGNUP)."""

from __future__ import annotations

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from tracker import gate, services
from tracker.errors import TooManyWrites
from tracker.views import forms
from tracker.views.doors import safe_next
from tracker.views.lockout import client_address
from tracker.views.screens.words import reason


def sign_up(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = forms.SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            gate.throttle_sign_up(client_address(request))
        except TooManyWrites as refusal:
            form.add_error(None, reason(refusal))
            context = _context(request, form)
            response = render(request, "registration/signup.html", context, status=429)
            response["Retry-After"] = str(refusal.wait)
            return response
        user = form.save()
        circle = services.circle_create(
            owner=user, name=_("%(name)s's table") % {"name": user.get_username()}
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        # Signed up from an invite (or another page that sent them here): back to it.
        return redirect(safe_next(request, reverse("session_new", args=[circle.pk])))
    if form.errors:
        status = 400
    return render(request, "registration/signup.html", _context(request, form), status=status)


def _context(request: HttpRequest, form: forms.SignUpForm) -> dict[str, object]:
    return {"form": form, "next": safe_next(request, "")}
