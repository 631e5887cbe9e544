"""A circle's page: its players (add, rename) and its sessions; and starting a circle."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from tracker import selectors, services
from tracker.access import access_player
from tracker.errors import Refusal
from tracker.models import Circle
from tracker.views import forms
from tracker.views.doors import account, member_circle, member_page, write
from tracker.views.screens.words import reason


@member_page(methods=("GET", "POST"))
def circle_new(request: HttpRequest) -> HttpResponse:
    form = forms.CircleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        actor = account(request)
        try:
            circle = write(
                request,
                actor,
                form.cleaned_data["key"],
                lambda: services.circle_create(owner=actor.user, name=form.cleaned_data["name"]),
            )
        except Refusal as refusal:
            form.add_error("name", reason(refusal))
        else:
            return redirect("home") if circle is None else redirect("circle", circle_id=circle.pk)
    return render(request, "circles/new.html", {"form": form}, status=400 if form.errors else 200)


def _circle_page(
    request: HttpRequest,
    circle: Circle,
    *,
    form: forms.PlayerForm | None = None,
    status: int = 200,
) -> HttpResponse:
    page = selectors.circle_page(circle)
    context = {
        "circle": circle,
        "players": page.players,
        "sessions": page.sessions,
        "open_by_currency": page.open_by_currency,
        "form": form or forms.PlayerForm(),
    }
    return render(request, "circles/detail.html", context, status=status)


@member_page()
def circle_detail(request: HttpRequest, circle_id: int) -> HttpResponse:
    return _circle_page(request, member_circle(request, circle_id))


def _player_write(
    request: HttpRequest, circle: Circle, write_player: Callable[[str], object]
) -> HttpResponse:
    """Add or rename a player from the circle page: the name form, then the circle page."""
    form = forms.PlayerForm(request.POST)
    if not form.is_valid():
        return _circle_page(request, circle, form=form, status=400)
    name = form.cleaned_data["name"]
    try:
        write(request, account(request), form.cleaned_data["key"], lambda: write_player(name))
    except Refusal as refusal:
        form.add_error("name", reason(refusal))
        return _circle_page(request, circle, form=form, status=refusal.status)
    return redirect("circle", circle_id=circle.pk)


@member_page(methods=("POST",))
def player_add(request: HttpRequest, circle_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    return _player_write(
        request, circle, lambda name: services.player_create(circle=circle, name=name)
    )


@member_page(methods=("POST",))
def player_rename(request: HttpRequest, circle_id: int, player_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    player = access_player(account(request), player_id, circle=circle)
    return _player_write(
        request, circle, lambda name: services.player_rename(player=player, name=name)
    )
