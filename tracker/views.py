"""The pages: server-rendered, htmx for the live parts, the same services and selectors
as the API.

One view serves a page and, for an htmx request, just its fragment
(`templates/<page>/_*.html`, included by the page). Writes are POSTs with CSRF; a refusal
from a service is shown on the page with its message. Templates only render: every
sentence about the game (who deals, what a deal came to) is put together in
`tracker.pages.words`, the tap screen's state in `tracker.pages.tap`, the leaderboard's in
`tracker.pages.leaderboard`.

A session's pages are reached two ways (see `tracker.page_urls`): by a member of its
circle, or through a share link — a scorer link may tap, a viewer link may only look
(`tracker.pages.access`).
"""

from __future__ import annotations

import contextlib
import secrets
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import segno
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

import scoring
from tracker import forms, selectors, services
from tracker.models import (
    Circle,
    Deal,
    DealEvent,
    Player,
    Session,
    ShareLink,
    Tap,
)
from tracker.pages import leaderboard
from tracker.pages.access import (
    Access,
    apply_once,
    first_error,
    member_circle,
    safe_next,
    session_page,
)
from tracker.pages.tap import tap_screen_state
from tracker.pages.words import (
    FORMAT_NAMES,
    RULE_NAMES,
    STATUSES,
    MoneyLine,
    describe_event,
    finish_line,
    money_lines,
    not_saved,
    record_label,
)
from tracker.services import Actor, ServiceError

# --- Home, accounts, language and theme -------------------------------------------------


def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "home.html", {})
    circles = list(
        Circle.objects.filter(members=request.user).annotate(
            session_count=Count("sessions", distinct=True)
        )
    )
    playing = list(
        Session.objects.filter(circle__members=request.user, ended_at__isnull=True)
        .select_related("circle")
        .order_by("-started_at")[:5]
    )
    return render(request, "home.html", {"circles": circles, "playing": playing})


def sign_up(request: HttpRequest) -> HttpResponse:
    """An account, and a circle of its own to start a table in."""
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


@require_POST
def set_theme(request: HttpRequest) -> HttpResponse:
    """Dark by default; light on request, remembered in a cookie."""
    response = redirect(safe_next(request, reverse("home")))
    theme = request.POST.get("theme")
    if theme in ("light", "dark"):
        response.set_cookie("theme", theme, max_age=365 * 24 * 3600, samesite="Lax")
    return response


# --- Circles and players ----------------------------------------------------------------


@login_required
def circle_new(request: HttpRequest) -> HttpResponse:
    form = forms.CircleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            circle = services.circle_create(owner=request.user, name=form.cleaned_data["name"])
        except ServiceError as error:
            form.add_error("name", error.message)
        else:
            return redirect("circle", circle_id=circle.pk)
    return render(request, "circles/new.html", {"form": form}, status=400 if form.errors else 200)


def _circle_page(
    request: HttpRequest, circle: Circle, *, form: forms.PlayerForm | None = None, status: int = 200
) -> HttpResponse:
    sessions = list(
        circle.sessions.annotate(
            deal_count=Count("deals", filter=Q(deals__status__in=["filed", "ended"]))
        )[:20]
    )
    return render(
        request,
        "circles/detail.html",
        {
            "circle": circle,
            "players": list(circle.players.all()),
            "sessions": sessions,
            "form": form or forms.PlayerForm(),
        },
        status=status,
    )


@login_required
def circle_detail(request: HttpRequest, circle_id: int) -> HttpResponse:
    return _circle_page(request, member_circle(request, circle_id))


@login_required
@require_POST
def player_add(request: HttpRequest, circle_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    form = forms.PlayerForm(request.POST)
    if form.is_valid():
        try:
            services.player_create(circle=circle, name=form.cleaned_data["name"])
        except ServiceError as error:
            form.add_error("name", error.message)
            return _circle_page(request, circle, form=form, status=error.status)
        return redirect("circle", circle_id=circle.pk)
    return _circle_page(request, circle, form=form, status=400)


@login_required
@require_POST
def player_rename(request: HttpRequest, circle_id: int, player_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    player = circle.players.filter(pk=player_id).first()
    if player is None:
        raise Http404("No such player")
    form = forms.PlayerForm(request.POST)
    if form.is_valid():
        try:
            services.player_rename(player=player, name=form.cleaned_data["name"])
        except ServiceError as error:
            form.add_error("name", error.message)
            return _circle_page(request, circle, form=form, status=error.status)
        return redirect("circle", circle_id=circle.pk)
    return _circle_page(request, circle, form=form, status=400)


# --- A new session ----------------------------------------------------------------------


def _session_defaults(circle: Circle, players: Sequence[Player]) -> dict[str, Any]:
    """The last session's table and rules, so the same friends start again in one tap."""
    last = circle.sessions.prefetch_related("seats").first()
    today = formats.date_format(timezone.localdate(), "D j M")
    initial: dict[str, Any] = {
        "name": today,
        "format": scoring.Format.PODIUM.value,
        "stake_rule": scoring.StakeRule.LOSER_PAYS.value,
        "stake": "1.00",
        "currency": "USD",
        "hand_size": 13,
    }
    if last is None:
        for position, player in enumerate(players[: forms.MOST_SEATS], start=1):
            initial[f"seat_{player.pk}"] = position
        return initial
    initial.update(
        format=last.format,
        stake_rule=last.stake_rule,
        stake=f"{last.stake:.2f}",
        currency=last.currency,
        hand_size=last.hand_size,
        **{name: getattr(last, name) for name, _label, _help in forms.OPTION_FIELDS},
    )
    for seat in last.seats.all():
        initial[f"seat_{seat.player_id}"] = seat.position
    return initial


@login_required
def session_new(request: HttpRequest, circle_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    players = list(circle.players.all())
    form = forms.NewSessionForm(
        request.POST or None,
        players=players,
        new_slots=4 if len(players) < 2 else 2,
        initial=_session_defaults(circle, players),
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            session = services.session_create(
                circle=circle,
                name=data["name"],
                players=data["players"],
                format=data["format"],
                stake_rule=data["stake_rule"],
                stake=data["stake"],
                currency=data["currency"],
                hand_size=data["hand_size"],
                options=data["options"],
                actor=Actor(user=request.user),
            )
        except ServiceError as error:
            form.add_error(None, error.message)
        else:
            return redirect("member:tap", session_id=session.pk)
    return render(
        request,
        "sessions/new.html",
        {"circle": circle, "form": form},
        status=400 if form.errors else 200,
    )


# --- The tap screen ---------------------------------------------------------------------


def _tap_response(
    request: HttpRequest, access: Access, *, message: str = "", status: int = 200
) -> HttpResponse:
    """The tap screen; for htmx just its fragment (a refusal is part of the screen, so
    htmx gets it with 200 and swaps it in; a plain form post gets the real status)."""
    screen = tap_screen_state(access, message=message)
    context = {"screen": screen, "access": access, "urls": access.urls, "session": access.session}
    if request.htmx:
        return render(request, "tap/_screen.html", context)
    return render(request, "tap/page.html", context, status=status)


@session_page()
def tap_screen(request: HttpRequest, access: Access) -> HttpResponse:
    if access.is_viewer:
        return redirect(access.url("standings"))
    return _tap_response(request, access)


def _table_write(
    request: HttpRequest,
    access: Access,
    *,
    deal_id: int,
    key: str,
    fingerprint: str,
    write: Callable[[], object],
) -> HttpResponse:
    """Apply one write from the tap screen, once per key, and answer with the screen.

    The posted deal must be one of this session's: the services take a deal id, and the
    way in (membership or a link) was checked for this session only.
    """
    if not access.session.deals.filter(pk=deal_id).exists():
        return _tap_response(
            request,
            access,
            message=_("There is no deal %(id)s in this session.") % {"id": deal_id},
            status=404,
        )
    try:
        apply_once(access, key, fingerprint, write)
    except ServiceError as error:
        return _tap_response(
            request,
            access,
            message=not_saved(error),
            status=error.status,
        )
    if request.htmx:
        return _tap_response(request, access)
    return redirect(access.url("tap"))


@session_page(score=True, methods=("POST",))
def tap(request: HttpRequest, access: Access) -> HttpResponse:
    form = forms.TapForm(request.POST)
    if not form.is_valid():
        return _tap_response(request, access, message=first_error(form), status=400)
    data = form.cleaned_data
    loser = data["loser"] is not None
    player = data["loser"] if loser else data["player"]
    not_played = sorted(data["not_played"])

    def write() -> object:
        return services.deal_tap(
            deal_id=data["deal"],
            player_id=player,
            not_played=not_played,
            loser=loser,
            actor=access.actor,
        )

    return _table_write(
        request,
        access,
        deal_id=data["deal"],
        key=data["key"],
        fingerprint=f"tap:{data['deal']}:{player}:{loser}:{not_played}",
        write=write,
    )


@session_page(score=True, methods=("POST",))
def undo(request: HttpRequest, access: Access) -> HttpResponse:
    form = forms.TableForm(request.POST)
    if not form.is_valid():
        return _tap_response(request, access, message=first_error(form), status=400)
    data = form.cleaned_data
    return _table_write(
        request,
        access,
        deal_id=data["deal"],
        key=data["key"],
        fingerprint=f"undo:{data['deal']}",
        write=lambda: services.deal_undo(deal_id=data["deal"], actor=access.actor),
    )


@session_page(score=True, methods=("POST",))
def record_event(request: HttpRequest, access: Access) -> HttpResponse:
    form_class = forms.EVENT_FORMS.get(request.POST.get("type", ""))
    if form_class is None:
        return _tap_response(request, access, message=_("Unknown kind of event."), status=400)
    form = form_class(request.POST)
    if not form.is_valid():
        return _tap_response(request, access, message=first_error(form), status=400)
    record = form.record()  # type: ignore[attr-defined]
    data = form.cleaned_data
    return _table_write(
        request,
        access,
        deal_id=data["deal"],
        key=data["key"],
        fingerprint=f"event:{data['deal']}:{record!r}",
        write=lambda: services.deal_event_record(
            deal_id=data["deal"], event=record, actor=access.actor
        ),
    )


@session_page(score=True, methods=("GET", "POST"))
def end_match(request: HttpRequest, access: Access) -> HttpResponse:
    """End match, with a confirm step: GET asks, POST ends."""
    deal = access.session.deals.filter(status=Deal.Status.OPEN).first()
    message = ""
    if request.method == "POST" and deal is not None:
        try:
            services.deal_end(deal_id=deal.pk, actor=access.actor)
        except ServiceError as error:
            message = error.message
        else:
            return redirect(access.url("standings"))
    return render(
        request,
        "tap/end.html",
        {
            "access": access,
            "urls": access.urls,
            "session": access.session,
            "deal": deal,
            "message": message,
        },
        status=409 if message else 200,
    )


# --- Players between deals -------------------------------------------------------------


@dataclass
class SeatLine:
    id: int
    name: str
    roles: list[str]


def _seating_response(
    request: HttpRequest, access: Access, *, message: str = "", status: int = 200
) -> HttpResponse:
    """Who sits at the table for the open deal, and the circle's other players. Changes
    are allowed only while that deal has nothing recorded (`services.session_seat`)."""
    session = access.session
    deal = session.deals.filter(status=Deal.Status.OPEN).first()
    seated: list[SeatLine] = []
    started = False
    if deal is not None:
        for dp in deal.deal_players.select_related("player").order_by("seat"):
            roles = []
            if dp.player_id == deal.dealer_id:
                roles.append(_("deals"))
            if dp.player_id == deal.leader_id:
                roles.append(_("leads"))
            seated.append(SeatLine(id=dp.player_id, name=dp.player.name, roles=roles))
        started = (
            deal.taps.filter(undone_at__isnull=True).exists()
            or deal.dealevents.filter(undone_at__isnull=True).exists()
        )
    bench = list(
        session.circle.players.exclude(pk__in=[line.id for line in seated]).order_by("name")
    )
    context = {
        "access": access,
        "urls": access.urls,
        "session": session,
        "deal": deal,
        "seated": seated,
        "bench": bench,
        "started": started,
        "key": secrets.token_hex(16),
        "message": message,
        "most_seats": forms.MOST_SEATS,
    }
    if request.htmx:
        return render(request, "seats/_seating.html", context)
    return render(request, "seats/page.html", context, status=status)


def _seat_order(deal: Deal) -> list[int]:
    return list(deal.deal_players.order_by("seat").values_list("player_id", flat=True))


@session_page(score=True, methods=("GET", "POST"))
def seating(request: HttpRequest, access: Access) -> HttpResponse:
    """Change the players between deals (SPEC 3.5): one change a tap, applied at once."""
    if request.method == "GET":
        return _seating_response(request, access)
    form = forms.SeatingForm(request.POST)
    if not form.is_valid():
        return _seating_response(request, access, message=first_error(form), status=400)
    data = form.cleaned_data
    try:
        with transaction.atomic():
            # The session row is locked first (as session_seat locks it), so two phones
            # changing seats at once apply one change after the other, each to the order
            # the other left, instead of one overwriting the other.
            session = Session.objects.select_for_update().get(pk=access.session.pk)
            deal = session.deals.filter(status=Deal.Status.OPEN).first()
            if deal is not None and deal.pk != data["deal"]:
                return _seating_response(
                    request,
                    access,
                    message=_("That form was for another deal; look again."),
                    status=409,
                )
            # With no open deal the session has ended: the service says so.
            players = form.seating(_seat_order(deal)) if deal is not None else []
            apply_once(
                access,
                data["key"],
                f"seat:{data['deal']}:{data['action']}:{data[data['action']]}",
                lambda: services.session_seat(
                    session_id=session.pk, players=players, actor=access.actor
                ),
            )
    except ValidationError as error:
        return _seating_response(request, access, message=error.messages[0], status=400)
    except ServiceError as error:
        return _seating_response(
            request,
            access,
            message=not_saved(error),
            status=error.status,
        )
    if request.htmx:
        return _seating_response(request, access)
    return redirect(access.url("seating"))


# --- Standings --------------------------------------------------------------------------

SPARK_WIDTH, SPARK_HEIGHT = 64, 18


def _sparkline(values: Sequence[int], top: int) -> str:
    """SVG polyline points for cumulative points over the deals."""
    if len(values) < 2 or top <= 0:
        return ""
    step = SPARK_WIDTH / (len(values) - 1)
    return " ".join(
        f"{index * step:.1f},{SPARK_HEIGHT - 1 - value * (SPARK_HEIGHT - 2) / top:.1f}"
        for index, value in enumerate(values)
    )


@dataclass
class StandingLine:
    rank: int
    row: selectors.StandingRow
    spark: str
    signature: str
    changed: bool = False


def _signature(row: selectors.StandingRow) -> str:
    text = "|".join(str(value) for value in vars(row).values())
    return f"{zlib.crc32(text.encode()):08x}"


@session_page()
def standings(request: HttpRequest, access: Access) -> HttpResponse:
    """SPEC 6 standings. Open pages poll the fragment every 1.5 s; the request says which
    rows it shows (`seen`), so an unchanged table answers 204 (nothing to swap) and a
    changed row comes back marked to flash once."""
    session = access.session
    rows = selectors.session_standings(session)
    by_deal = selectors.session_points_by_deal(session)
    totals: dict[int, list[int]] = {row.player: [0] for row in rows}
    for _number, points in by_deal:
        for player, line in totals.items():
            line.append(line[-1] + points.get(player, 0))
    top = max((line[-1] for line in totals.values()), default=0)
    lines = [
        StandingLine(
            rank=rank,
            row=row,
            spark=_sparkline(totals[row.player], top),
            signature=_signature(row),
        )
        for rank, row in enumerate(rows, start=1)
    ]
    seen = dict(
        part.split(":", 1) for part in request.GET.get("seen", "").split(";") if ":" in part
    )
    current = ";".join(f"{line.row.player}:{line.signature}" for line in lines)
    if request.htmx and request.GET.get("seen") == current:
        return HttpResponse(status=204)
    if seen:
        for line in lines:
            line.changed = seen.get(str(line.row.player)) != line.signature
    context = {
        "access": access,
        "urls": access.urls,
        "session": session,
        "lines": lines,
        "seen": current,
        "deal_count": len(by_deal),
        "rule_name": RULE_NAMES.get(session.stake_rule, session.stake_rule),
        "format_name": FORMAT_NAMES.get(session.format, session.format),
    }
    if request.htmx:
        return render(request, "standings/_table.html", context)
    return render(request, "standings/page.html", context)


# --- Deal history and corrections -------------------------------------------------------


@dataclass
class DealCard:
    deal: Deal
    url: str
    status: str
    finish: list[str]
    events: list[str]
    money: list[MoneyLine]


@session_page()
def deal_history(request: HttpRequest, access: Access) -> HttpResponse:
    deals = selectors.session_deal_history(access.session)
    cards = []
    for deal in deals:
        names = {dp.player_id: dp.player.name for dp in deal.deal_players.all()}
        cards.append(
            DealCard(
                deal=deal,
                url=access.url("deal", number=deal.number),
                status=str(STATUSES.get(deal.status, deal.status)),
                finish=finish_line(deal.deal_players.all(), names),
                events=[describe_event(event, names) for event in deal.live_events],
                money=money_lines(deal.ledger_lines.all(), names),
            )
        )
    return render(
        request,
        "deals/history.html",
        {"access": access, "urls": access.urls, "session": access.session, "cards": cards},
    )


@dataclass
class DealRecords:
    """A deal as its page reads it: players in seat order, every tap and event."""

    deal: Deal
    deal_players: list[Any]
    names: dict[int, str]
    taps: list[Tap]
    events: list[DealEvent]

    @property
    def live_taps(self) -> list[Tap]:
        return [tap for tap in self.taps if tap.undone_at is None]

    @property
    def live_events(self) -> list[DealEvent]:
        return [event for event in self.events if event.undone_at is None]


def _deal_records(access: Access, number: int) -> DealRecords:
    deal = access.session.deals.filter(number=number).first()
    if deal is None:
        raise Http404("No such deal")
    deal.session = access.session
    deal_players = list(deal.deal_players.select_related("player").order_by("seat"))
    return DealRecords(
        deal=deal,
        deal_players=deal_players,
        names={dp.player_id: dp.player.name for dp in deal_players},
        taps=list(deal.taps.order_by("seq")),
        events=list(deal.dealevents.order_by("seq")),
    )


@dataclass
class AddSheets:
    """What a correction may add to a filed deal, by the session's rules: the same
    bottom sheets as the tap screen, each its own form."""

    deal: int
    key: str
    players: list[tuple[int, str]]
    holding: list[tuple[int, str]]
    hands: list[str]
    card_counts: list[int]
    cutup_beaten: bool
    guaransheed: bool
    instant_win: bool
    hand: bool
    penalties_on: bool
    twos_counts: list[int] = field(default_factory=lambda: [0, 1, 2, 3])
    unused_counts: list[int] = field(default_factory=lambda: [0, 1, 2])
    beaters: list[tuple[str, str]] = field(default_factory=lambda: list(forms.BEATER_CHOICES))
    instant_wins: list[tuple[str, str]] = field(
        default_factory=lambda: list(forms.INSTANT_WIN_CHOICES)
    )


def _add_sheets(records: DealRecords) -> AddSheets:
    deal, deal_players, live_events = records.deal, records.deal_players, records.live_events
    rules = deal.session.rules
    placed = {tap.player_id for tap in records.live_taps if not tap.loser}
    # Who holds cards at the end: everyone not placed, and the loser (SPEC 3.1).
    holding = [
        (dp.player_id, dp.player.name)
        for dp in deal_players
        if dp.player_id not in placed or dp.player_id == deal.loser_id
    ]
    hands = [event for event in live_events if event.type == DealEvent.Type.HAND]
    return AddSheets(
        deal=deal.pk,
        key=secrets.token_hex(16),
        players=[(dp.player_id, dp.player.name) for dp in deal_players],
        holding=holding,
        hands=[describe_event(event, records.names) for event in hands],
        card_counts=list(
            range(0, min(rules.hand_size, scoring.max_hand_size(len(deal_players))) + 1)
        ),
        cutup_beaten=rules.penalties_on,
        guaransheed=rules.options.guaransheed
        and not any(event.type == DealEvent.Type.GUARANSHEED for event in live_events),
        # A claim stands only on a deal with nothing else recorded (SPEC 4.4).
        instant_win=rules.options.instant_wins and not live_events,
        hand=rules.needs_hands or rules.penalties_on,
        penalties_on=rules.penalties_on,
    )


def _correction_form(records: DealRecords, data: Any = None) -> forms.CorrectionForm:
    """The finishing order again (prefilled with the taps that stand), the loser where
    the rules ask for one, the events to take out, and why."""
    rules = records.deal.session.rules
    size = len(records.deal_players)
    podium = scoring.podium_size(rules, size)
    placed = [tap for tap in records.live_taps if not tap.loser]
    loser_tap = next((tap for tap in records.live_taps if tap.loser), None)
    initial: dict[str, Any] = {
        f"place_{index}": tap.player_id for index, tap in enumerate(placed, start=1)
    }
    if loser_tap:
        initial["loser"] = loser_tap.player_id
    return forms.CorrectionForm(
        data,
        players=[(dp.player_id, dp.player.name) for dp in records.deal_players],
        places=min(max(podium, len(placed)), size),
        ask_loser=rules.stake_rule == scoring.StakeRule.LOSER_PAYS and size > podium + 1,
        events=[(event.pk, describe_event(event, records.names)) for event in records.live_events],
        initial=initial,
    )


def _deal_page(
    request: HttpRequest,
    access: Access,
    records: DealRecords,
    *,
    form: forms.CorrectionForm | None = None,
    message: str = "",
    status: int = 200,
) -> HttpResponse:
    deal, names = records.deal, records.names
    correctable = not deal.is_open and access.can_score
    if correctable and form is None:
        form = _correction_form(records)
    history = [
        {
            "text": (
                record_label(record, names)
                if isinstance(record, Tap)
                else describe_event(record, names)
            ),
            "live": record.undone_at is None,
            "at": record.recorded_at,
        }
        for record in sorted([*records.taps, *records.events], key=lambda record: record.seq)
    ]
    return render(
        request,
        "deals/detail.html",
        {
            "access": access,
            "urls": access.urls,
            "session": access.session,
            "deal": deal,
            "status": STATUSES.get(deal.status, deal.status),
            "finish": finish_line(records.deal_players, names),
            "history": history,
            "money": money_lines(deal.ledger_lines.order_by("position"), names),
            "corrections": list(deal.corrections.select_related("made_by")),
            "form": form if correctable else None,
            "sheets": _add_sheets(records) if correctable else None,
            "add_url": access.url("deal_add", number=deal.number),
            "message": message,
        },
        status=status,
    )


@session_page(methods=("GET", "POST"))
def deal_detail(request: HttpRequest, access: Access, number: int) -> HttpResponse:
    """One deal in full — taps and events, undone ones struck through — and, for a filed
    deal, a correction form that calls `services.deal_correct`, with bottom sheets that
    add an event or a hand (`deal_add`)."""
    records = _deal_records(access, number)
    if request.method == "GET":
        return _deal_page(request, access, records)
    if records.deal.is_open or not access.can_score:
        raise PermissionDenied("This deal cannot be corrected from here.")
    form = _correction_form(records, request.POST)
    if not form.is_valid():
        return _deal_page(request, access, records, form=form, status=400)
    data = form.cleaned_data
    try:
        services.deal_correct(
            deal_id=records.deal.pk,
            taps=data["order"],
            loser=data.get("loser"),
            remove_event_ids=data.get("remove") or [],
            reason=data["reason"],
            actor=access.actor,
        )
    except ServiceError as error:
        return _deal_page(
            request, access, records, form=form, message=error.message, status=error.status
        )
    return redirect(access.url("deal", number=number))


@session_page(score=True, methods=("POST",))
def deal_add(request: HttpRequest, access: Access, number: int) -> HttpResponse:
    """Correct a filed deal by adding one event: a 2 chopped, a cutup beaten, a
    Guaransheed, an instant win, or a hand. A hand replaces the one recorded for that
    player, if any, in the same correction. Applied once per key, like the tap screen."""
    records = _deal_records(access, number)
    deal = records.deal

    def refuse(message: str, status: int) -> HttpResponse:
        return _deal_page(request, access, records, message=message, status=status)

    form_class = forms.EVENT_FORMS.get(request.POST.get("type", ""))
    if form_class is None:
        return refuse(_("Unknown kind of event."), 400)
    form = form_class(request.POST)
    extras = forms.CorrectionAddForm(request.POST)
    if not form.is_valid():
        return refuse(first_error(form), 400)
    if not extras.is_valid():
        return refuse(first_error(extras), 400)
    data = form.cleaned_data
    if data["deal"] != deal.pk:
        return refuse(_("That form was for another deal; look again."), 400)
    record = form.record()  # type: ignore[attr-defined]
    replace = [
        event.pk
        for event in records.live_events
        if isinstance(record, scoring.Hand)
        and event.type == DealEvent.Type.HAND
        and event.player_id == record.player
    ]
    reason = extras.cleaned_data["reason"]

    def write() -> object:
        return services.deal_correct(
            deal_id=deal.pk,
            add_events=[record],
            remove_event_ids=replace,
            reason=reason,
            actor=access.actor,
        )

    try:
        apply_once(access, data["key"], f"correct:{deal.pk}:{record!r}:{replace}:{reason}", write)
    except ServiceError as error:
        return refuse(not_saved(error), error.status)
    return redirect(access.url("deal", number=number))


# --- Settle up --------------------------------------------------------------------------


@dataclass
class TransferLine:
    payer: int
    payee: int
    payer_name: str
    payee_name: str
    amount: Decimal
    paid: bool


def _settle_response(
    request: HttpRequest, access: Access, *, message: str = "", status: int = 200
) -> HttpResponse:
    session = access.session
    settlement = selectors.session_settlement(session)
    names = dict(
        Player.objects.filter(Q(pk__in=settlement.balances) | Q(seats__session=session))
        .values_list("pk", "name")
        .distinct()
    )
    balances = sorted(
        ((names.get(player, "?"), net) for player, net in settlement.balances.items()),
        key=lambda item: (-item[1], item[0].lower()),
    )
    transfers = [
        TransferLine(
            payer=transfer.payer,
            payee=transfer.payee,
            payer_name=names.get(transfer.payer, "?"),
            payee_name=names.get(transfer.payee, "?"),
            amount=transfer.amount,
            paid=transfer.paid,
        )
        for transfer in settlement.transfers
    ]
    context = {
        "access": access,
        "urls": access.urls,
        "session": session,
        "balances": balances,
        "transfers": transfers,
        "open_count": sum(1 for transfer in transfers if not transfer.paid),
        "message": message,
    }
    if request.htmx:
        return render(request, "settle/_transfers.html", context, status=status)
    return render(request, "settle/page.html", context, status=status)


@session_page()
def settle_up(request: HttpRequest, access: Access) -> HttpResponse:
    return _settle_response(request, access)


@session_page(score=True, methods=("POST",))
def transfer_paid(request: HttpRequest, access: Access) -> HttpResponse:
    """Mark one transfer paid, or paid no more; the others stay as they are (SPEC 5)."""
    try:
        payer, payee = int(request.POST["payer"]), int(request.POST["payee"])
        amount = Decimal(request.POST["amount"])
    except (KeyError, ValueError, InvalidOperation):
        amount = Decimal("NaN")
    if not amount.is_finite():  # unreadable, or "NaN" / "Infinity", which no transfer is
        message = _("That payment is not in the list.")
        return _settle_response(request, access, message=message, status=400)
    mark = (
        services.transfer_mark_unpaid if request.POST.get("undo") else services.transfer_mark_paid
    )
    try:
        mark(
            session_id=access.session.pk,
            payer_id=payer,
            payee_id=payee,
            amount=amount,
            actor=access.actor,
        )
    except ServiceError as error:
        return _settle_response(request, access, message=error.message, status=error.status)
    if request.htmx:
        return _settle_response(request, access)
    return redirect(access.url("settle"))


# --- Share links ------------------------------------------------------------------------


@dataclass
class ShareCard:
    link: ShareLink
    url: str
    qr_svg: str
    title: str
    explain: str


def _qr_svg(url: str, title: str) -> str:
    """The QR code as inline SVG markup: no script, no style attribute."""
    return segno.make(url, error="m").svg_inline(
        scale=4, border=2, dark="#000000", light="#ffffff", omitsize=True, title=title
    )


@session_page(member=True, methods=("GET", "POST"))
def share(request: HttpRequest, access: Access) -> HttpResponse:
    session = access.session
    if request.method == "POST":
        try:
            services.share_link_create(
                session_id=session.pk, role=request.POST.get("role", ""), actor=access.actor
            )
        except ServiceError as error:
            return HttpResponse(error.message, status=error.status)
        return redirect(access.url("share"))
    cards = []
    for link in session.share_links.filter(revoked_at__isnull=True).order_by("role", "-created_at"):
        is_scorer = link.role == ShareLink.Role.SCORER
        path = reverse("link:tap" if is_scorer else "link:standings", kwargs={"token": link.token})
        url = request.build_absolute_uri(path)
        title = _("Scorer link") if is_scorer else _("Viewer link")
        cards.append(
            ShareCard(
                link=link,
                url=url,
                qr_svg=_qr_svg(url, title),
                title=title,
                explain=(
                    _("Opens the tap screen without a login: for the phone passed round the table.")
                    if is_scorer
                    else _(
                        "Shows the live standings only: for anyone watching, "
                        "at the table or at home."
                    )
                ),
            )
        )
    roles = {card.link.role for card in cards}
    return render(
        request,
        "share/page.html",
        {
            "access": access,
            "urls": access.urls,
            "session": session,
            "cards": cards,
            "missing": [role for role in ShareLink.Role.values if role not in roles],
        },
    )


@session_page(member=True, methods=("POST",))
def share_revoke(request: HttpRequest, access: Access) -> HttpResponse:
    link = access.session.share_links.filter(pk=request.POST.get("link") or 0).first()
    if link is None:
        raise Http404("No such link")
    with contextlib.suppress(ServiceError):  # already revoked: gone from the page either way
        services.share_link_revoke(link_id=link.pk, actor=access.actor)
    return redirect(access.url("share"))


# --- The circle leaderboard -------------------------------------------------------------


def _leaderboard_range(
    request: HttpRequest, circle_id: int
) -> tuple[Circle, forms.LeaderboardRangeForm, selectors.Leaderboard]:
    circle = member_circle(request, circle_id)
    form = forms.LeaderboardRangeForm(request.GET)
    since, until = leaderboard.range_bounds(form)
    return circle, form, selectors.circle_leaderboard(circle, since=since, until=until)


@login_required
def circle_leaderboard(request: HttpRequest, circle_id: int) -> HttpResponse:
    """SPEC 6 circle leaderboard over a range of days: the standings columns summed, skill,
    head-to-head for one player, charts of points and money over the deals
    (`tracker.pages.leaderboard`). Bad dates say so and show all time, with status 400.

    Queries: the session and the account, the circle, the selector's eleven (players, six
    for the standings, deal finishes, ledger lines, money in and out per currency): 14,
    however many sessions and deals.
    """
    circle, form, board = _leaderboard_range(request, circle_id)
    context = leaderboard.leaderboard_context(circle, form, board, request.GET.get("player"))
    status = 200 if form.is_valid() else 400
    if request.htmx and not request.htmx.history_restore_request:
        # The head-to-head picker asks for its own section only.
        return render(request, "circles/_rivals.html", context, status=status)
    return render(request, "circles/leaderboard.html", context, status=status)


@login_required
def circle_leaderboard_csv(request: HttpRequest, circle_id: int) -> HttpResponse:
    """The leaderboard of the same range as CSV (`selectors.leaderboard_csv`), to keep."""
    circle, form, board = _leaderboard_range(request, circle_id)
    if not form.is_valid():
        return HttpResponse(first_error(form), status=400, content_type="text/plain; charset=utf-8")
    # `friday-table-leaderboard-from-2025-02-01-to-2025-02-28.csv`: the API's name, and the days.
    since_day, until_day = form.cleaned_data["since"], form.cleaned_data["until"]
    days = ""
    if since_day:
        days += f"-from-{since_day.isoformat()}"
    if until_day:
        days += f"-to-{until_day.isoformat()}"
    filename = f"{slugify(circle.name) or f'circle-{circle.pk}'}-leaderboard{days}.csv"
    response = HttpResponse(
        selectors.leaderboard_csv(board), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
