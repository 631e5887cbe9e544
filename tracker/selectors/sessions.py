"""Sessions and circles as lists: what the API's session detail, the home page and the
circle page read."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth.models import User
from django.db.models import Count, Prefetch, QuerySet

from tracker.access import Actor, circles_of, sessions_of
from tracker.models import Circle, Deal, DealPlayer, Player, Seat, Session, ShareLink, counted
from tracker.money import settlements_of


def session_list(actor: Actor, *, circle: int | None = None) -> QuerySet[Session]:
    """The sessions the caller reaches (optionally one circle's), newest first, with what
    their detail shows (see `session_queryset`)."""
    sessions = sessions_of(actor, session_queryset())
    if circle is not None:
        sessions = sessions.filter(circle_id=circle)
    return sessions.order_by("-started_at", "-id")


def session_detail(session: Session) -> Session:
    """The session read again with what its detail shows (three queries)."""
    return session_queryset().get(pk=session.pk)


def circle_list(actor: Actor) -> QuerySet[Circle]:
    """The caller's circles by name."""
    return circles_of(actor).order_by("name", "id")


def circle_players(circle: Circle) -> QuerySet[Player]:
    """A circle's players by name, with the member each is linked to."""
    return circle.players.select_related("user").order_by("name", "id")


def share_links(session: Session) -> QuerySet[ShareLink]:
    """Every link the session had, newest first, revoked ones too."""
    return session.share_links.order_by("-created_at", "-id")


def session_queryset() -> QuerySet[Session]:
    """Sessions with what their detail shows: circle, seats with players in seat order,
    and the open deal as `open_deals` — three queries for any number of sessions."""
    return Session.objects.select_related("circle").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")),
        Prefetch(
            "deals", queryset=Deal.objects.filter(status=Deal.Status.OPEN), to_attr="open_deals"
        ),
    )


@dataclass
class Home:
    circles: Sequence[Circle]  # with `session_count`
    playing: list[Session]  # open sessions, newest first, with their circles


def home(user: User) -> Home:
    """A member's circles and the sessions still being played in them (two queries)."""
    circles = list(
        Circle.objects.filter(members=user).annotate(session_count=Count("sessions", distinct=True))
    )
    playing = list(
        Session.objects.filter(circle__members=user, ended_at__isnull=True)
        .select_related("circle")
        .order_by("-started_at")[:5]
    )
    return Home(circles=circles, playing=playing)


@dataclass
class CirclePage:
    circle: Circle
    players: list[Player]
    # The latest, with `deal_count` (deals counted in the standings) and `money` (its
    # settlement: whether it is settled, how much is open).
    sessions: Sequence[Session]
    # Money still to move over all the circle's sessions, per currency: (code, amount).
    open_by_currency: list[tuple[str, Decimal]] = field(default_factory=list)


def circle_page(circle: Circle) -> CirclePage:
    """A circle's players, its latest sessions with how many deals count in each and the
    money still open in each, and what is open over all its sessions per currency.

    Queries: players, sessions, every session's currency, money in, money out,
    payments — six, however many sessions and deals."""
    sessions = list(
        circle.sessions.annotate(deal_count=Count("deals", filter=counted("deals__")))[:20]
    )
    currencies = dict(circle.sessions.values_list("pk", "currency"))
    money = settlements_of(currencies)
    open_by_currency: dict[str, Decimal] = defaultdict(Decimal)
    for session_id, settlement in money.items():
        if not settlement.settled:
            open_by_currency[currencies[session_id]] += settlement.open_amount
    for session in sessions:
        session.money = money[session.pk]  # type: ignore[attr-defined]
    return CirclePage(
        circle=circle,
        players=list(circle.players.select_related("user")),
        sessions=sessions,
        open_by_currency=sorted(open_by_currency.items()),
    )


@dataclass
class NewSession:
    players: list[Player]  # the circle's, by name
    last: Session | None  # the circle's latest session, its seats loaded


def new_session(circle: Circle) -> NewSession:
    """What a new session starts from: the circle's players and its last session's table
    and rules (two queries, three with a last session)."""
    return NewSession(
        players=list(circle.players.all()), last=circle.sessions.prefetch_related("seats").first()
    )


@dataclass
class PlayersPage:
    """The players page: who sits at the open deal, in seat order (players loaded),
    whether anything is recorded on it yet, and the circle's other players."""

    deal: Deal | None
    seated: list[DealPlayer]
    started: bool
    bench: list[Player]


def players_page(session: Session) -> PlayersPage:
    """The players page's data (five queries; two once the session has ended)."""
    deal = session.deals.filter(status=Deal.Status.OPEN).first()
    seated: list[DealPlayer] = []
    started = False
    if deal is not None:
        seated = list(deal.deal_players.select_related("player").order_by("seat"))
        started = (
            deal.taps.filter(undone_at__isnull=True).exists()
            or deal.dealevents.filter(undone_at__isnull=True).exists()
        )
    bench = list(
        session.circle.players.exclude(pk__in=[dp.player_id for dp in seated]).order_by("name")
    )
    return PlayersPage(deal=deal, seated=seated, started=started, bench=bench)


def active_share_links(session: Session) -> list[ShareLink]:
    """The session's links that work, scorer first (one query)."""
    return list(session.share_links.filter(revoked_at__isnull=True).order_by("role", "-created_at"))
