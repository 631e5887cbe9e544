"""The circle leaderboard page (SPEC 6) over a range of days, and the same as CSV."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tracker import selectors
from tracker.views.doors import account, first_error, member_circle, member_page
from tracker.views.forms import LeaderboardRangeForm
from tracker.views.screens.leaderboard import leaderboard_context


@member_page()
def leaderboard(request: HttpRequest, circle_id: int) -> HttpResponse:
    """The standings columns summed, skill, head-to-head for one player, charts of points
    and money over the deals. Bad dates say so and show all time, with status 400.

    Queries: the session and the account, the circle, the selector's eleven (players, six
    for the standings, deal finishes, ledger lines, money in and out per currency), the
    player that is you: 15, however many sessions and deals.
    """
    circle = member_circle(request, circle_id)
    form = LeaderboardRangeForm(request.GET)
    board = selectors.circle_leaderboard(circle, form.days())
    context = leaderboard_context(circle, form, board, request.GET.get("player"))
    you = selectors.my_player(circle, account(request).user)  # type: ignore[arg-type]
    context["you"] = you.pk if you else None
    status = 200 if form.is_valid() else 400
    if request.htmx and not request.htmx.history_restore_request:
        # The head-to-head picker asks for its own section only.
        return render(request, "leaderboard/_rivals.html", context, status=status)
    return render(request, "leaderboard/page.html", context, status=status)


@member_page()
def leaderboard_csv(request: HttpRequest, circle_id: int) -> HttpResponse:
    """The leaderboard of the same range as CSV, named as the API names it."""
    circle = member_circle(request, circle_id)
    form = LeaderboardRangeForm(request.GET)
    if not form.is_valid():
        return HttpResponse(first_error(form), status=400, content_type="text/plain; charset=utf-8")
    days = form.days()
    response = HttpResponse(
        selectors.leaderboard_csv(selectors.circle_leaderboard(circle, days)),
        content_type="text/csv; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{days.csv_filename(circle)}"'
    return response
