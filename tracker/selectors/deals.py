"""Deals as the screens and the API read them, each in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

import scoring
from tracker.models import Deal, DealEvent, DealPlayer, LedgerLine, Session, Tap
from tracker.records import DealState, Row, deal_facts, read_deal_state, seated_players


def deal_state(deal: Deal) -> DealState:
    """A deal as its screens and the API show it (three queries; see `read_deal_state`)."""
    return read_deal_state(deal)


def deal_events(deal: Deal) -> list[DealEvent]:
    """The events that stand on a deal, in the order they were recorded."""
    return list(deal.dealevents.filter(undone_at__isnull=True).order_by("seq"))


def session_deals(session: Session) -> QuerySet[Deal]:
    """The session's deals newest first, each with its players in seat order: a page of
    them costs two queries."""
    return session.deals.order_by("-number").prefetch_related(
        Prefetch("deal_players", queryset=DealPlayer.objects.order_by("seat"))
    )


def session_deal_history(session: Session) -> list[Deal]:
    """The session's deals newest first, with what the history page shows of each:
    players (with names), the taps and events that stand, and the ledger.

    Queries: deals, players, taps, events, ledger lines — five, whatever the number of
    deals. Live taps and events are on `live_taps` and `live_events`.
    """
    return list(_with_records(session.deals.order_by("-number")))


DEALS_PER_PAGE = 50


@dataclass
class DealHistoryPage:
    """One page of a session's deals, newest first: `number` of `pages` (at least 1)."""

    deals: list[Deal]
    number: int
    pages: int


def session_deal_history_page(
    session: Session, number: int, *, per_page: int = DEALS_PER_PAGE
) -> DealHistoryPage | None:
    """Page `number` (from 1) of the session's deals, as `session_deal_history` reads
    them; None for a page past the last. Queries: the count, then the five."""
    total = session.deals.count()
    pages = max(1, -(-total // per_page))
    if not 1 <= number <= pages:
        return None
    start = (number - 1) * per_page
    deals = _with_records(session.deals.order_by("-number")[start : start + per_page])
    return DealHistoryPage(deals=list(deals), number=number, pages=pages)


def open_deal(session: Session) -> Deal | None:
    """The session's open deal (one query); None once the session has ended."""
    return session.deals.filter(status=Deal.Status.OPEN).first()


@dataclass
class Table:
    """What the tap screen shows: the open deal as it stands and what may be recorded on
    it next; while it is still empty, the deal before it (what it came to, and what Undo
    would reach back to). No open deal: the session has ended."""

    state: DealState | None
    allowed: scoring.Allowed | None
    previous: Deal | None  # prefetched like `session_deal_history`
    version: int  # the session's, as read with the open deal: what a watcher compares


def table(session: Session) -> Table:
    """The tap screen's data. Queries, whatever the session's length: the open deal with
    its dealer, leader and the session's version, then its state (four); while it is
    empty, the deal before it with its players, taps, events and ledger (five)."""
    deal = (
        session.deals.filter(status=Deal.Status.OPEN)
        .select_related("dealer", "leader", "session")
        .first()
    )
    if deal is None:
        return Table(state=None, allowed=None, previous=None, version=session.version)
    version = deal.session.version
    deal.session = session
    state = read_deal_state(deal)
    previous = None
    if not state.facts.records and deal.number > 1:
        previous = _with_records(session.deals.filter(number=deal.number - 1)).first()
    return Table(
        state=state, allowed=scoring.allowed(state.facts), previous=previous, version=version
    )


def table_after(state: DealState) -> Table | None:
    """The tap screen's data from what a write on the open deal knew, nothing read: the
    deal as the write left it, its session's version as the write moved it on. None when
    the screen must be read (`table`): the write filed or ended the deal (the screen
    shows the next one), or left it empty (it shows the deal before)."""
    deal = state.deal
    if not deal.is_open or not state.facts.records:
        return None
    return Table(
        state=state,
        allowed=scoring.allowed(state.facts),
        previous=None,
        version=deal.session.version,
    )


def _with_records(deals: QuerySet[Deal]) -> QuerySet[Deal]:
    return deals.prefetch_related(
        Prefetch(
            "deal_players",
            queryset=DealPlayer.objects.select_related("player").order_by("seat"),
        ),
        Prefetch(
            "taps",
            queryset=Tap.objects.filter(undone_at__isnull=True).order_by("seq"),
            to_attr="live_taps",
        ),
        Prefetch(
            "dealevents",
            queryset=DealEvent.objects.filter(undone_at__isnull=True).order_by("seq"),
            to_attr="live_events",
        ),
        Prefetch("ledger_lines", queryset=LedgerLine.objects.order_by("position")),
    )


@dataclass
class DealPage:
    """One deal in full, as its page shows it: every tap and event (undone ones too), the
    facts that stand, the ledger, the corrections, and what a correction may add."""

    deal: Deal
    players: list[DealPlayer]
    taps: list[Tap]  # all, in order
    events: list[DealEvent]  # all, in order
    ledger: list[LedgerLine]
    corrections: list[object]
    allowed: scoring.Allowed

    @property
    def names(self) -> dict[int, str]:
        return {dp.player_id: dp.player.name for dp in self.players}

    @property
    def live_taps(self) -> list[Tap]:
        return [tap for tap in self.taps if tap.undone_at is None]

    @property
    def live_events(self) -> list[DealEvent]:
        return [event for event in self.events if event.undone_at is None]


def deal_page(deal: Deal) -> DealPage:
    """Deal `deal` (its session loaded) as its page shows it.

    Queries: players, taps and their not-played marks, events, ledger, corrections with
    who made them: six, whatever the session's length.
    """
    players = seated_players(deal)
    taps = list(deal.taps.order_by("seq").prefetch_related("not_played"))
    events = list(deal.dealevents.order_by("seq"))
    rows: list[Row] = [*taps, *events]
    live = sorted((row for row in rows if row.undone_at is None), key=lambda row: row.seq)
    return DealPage(
        deal=deal,
        players=players,
        taps=taps,
        events=events,
        ledger=list(deal.ledger_lines.order_by("position")),
        corrections=list(deal.corrections.select_related("made_by")),
        allowed=scoring.allowed(deal_facts(deal, live, players)),
    )


@dataclass
class RecordPreview:
    preview: scoring.Preview
    names: dict[int, str]  # the deal's players


def record_preview(deal: Deal, record: scoring.Record) -> RecordPreview:
    """What saving `record` on `deal` (its session loaded) would move: four queries."""
    facts = deal_facts(deal)
    return RecordPreview(preview=scoring.preview(facts, record), names=dict(facts.names))
