"""Starting a session: who sits where, and the rules."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from tracker import selectors, services
from tracker.errors import Refusal
from tracker.views import forms
from tracker.views.doors import account, member_circle, member_page, write
from tracker.views.screens.words import reason


@member_page(methods=("GET", "POST"))
def session_new(request: HttpRequest, circle_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    start = selectors.new_session(circle)
    form = forms.NewSessionForm(
        request.POST or None,
        players=start.players,
        new_slots=4 if len(start.players) < 2 else 2,
        initial=forms.NewSessionForm.defaults(start),
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        actor = account(request)
        try:
            session = write(
                request,
                actor,
                data["key"],
                lambda: services.session_create(
                    circle=circle,
                    name=data["name"],
                    players=data["players"],
                    format=data["format"],
                    stake_rule=data["stake_rule"],
                    stake=data["stake"],
                    currency=data["currency"],
                    hand_size=data["hand_size"],
                    options=data["options"],
                    actor=actor,
                ),
            )
        except Refusal as refusal:
            form.add_error(None, reason(refusal))
        else:
            if session is None:  # sent twice: the first one started it
                return redirect("circle", circle_id=circle.pk)
            return redirect("member:tap", session_id=session.pk)
    return render(
        request,
        "sessions/new.html",
        {"circle": circle, "form": form},
        status=400 if form.errors else 200,
    )
