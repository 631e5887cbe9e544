"""Signing up: an account, and a circle of its own to start a table in."""

from __future__ import annotations

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from tracker import services
from tracker.views import forms


def sign_up(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = forms.SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        circle = services.circle_create(
            owner=user, name=_("%(name)s's table") % {"name": user.get_username()}
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("session_new", circle_id=circle.pk)
    return render(
        request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200
    )
