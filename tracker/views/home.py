"""The home page, and the theme picker every page's footer carries."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from tracker import selectors
from tracker.views.doors import safe_next


def home(request: HttpRequest) -> HttpResponse:
    """Signed out: what SquareScores is. Signed in: open sessions and circles."""
    if not request.user.is_authenticated:
        return render(request, "home.html", {})
    assert isinstance(request.user, User)
    board = selectors.home(request.user)
    return render(request, "home.html", {"circles": board.circles, "playing": board.playing})


@require_POST
def set_theme(request: HttpRequest) -> HttpResponse:
    """The phone's own light or dark (`prefers-color-scheme`) until a theme is picked;
    a pick is remembered in a cookie, and "auto" forgets it."""
    response = redirect(safe_next(request, reverse("home")))
    theme = request.POST.get("theme")
    if theme in ("light", "dark"):
        response.set_cookie("theme", theme, max_age=365 * 24 * 3600, samesite="Lax")
    elif theme == "auto":
        response.delete_cookie("theme", samesite="Lax")
    return response
