"""What the tap screen shows for a session's open deal, in words: the player buttons, who
deals and leads, what the deal holds so far, what Undo takes back, and the sheets.

The data is `selectors.table`; what may be recorded is `scoring.allowed`; this only says
it for people.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import scoring
from scoring import ahead
from tracker.models import Deal, DealEvent, Tap
from tracker.selectors import Table
from tracker.templatetags.pages import place_label
from tracker.views.doors import SessionPage
from tracker.views.screens.sheets import Sheets, sheets
from tracker.views.screens.words import (
    MoneyLine,
    deal_summary,
    describe_event,
    money_lines,
    told_apart,
    trading_lines,
    undo_label,
)

LONG_NAME = 14  # characters: drawn smaller
# Drawn smaller still: at 320 px a half-width button holds one long word a line at the
# long size, and a name of six such words took six lines and pushed the lower row of
# players under the Undo bar (tests/browser/test_fold.py).
LONGER_NAME = 24


@dataclass
class PlayerCard:
    """One player's button on the tap screen."""

    id: int
    name: str
    place: int | None = None
    loser: bool = False
    next_place: str = ""
    is_dealer: bool = False
    is_leader: bool = False
    hand: str = ""
    needs_hand: bool = False
    may_tap: bool = False  # may be tapped out now
    may_lose: bool = False  # may be tapped as the loser now
    points: int = 0

    @property
    def long_name(self) -> bool:
        """Drawn smaller, so that its words fit the button whole."""
        return len(self.name) > LONG_NAME

    @property
    def longer_name(self) -> bool:
        """Drawn smaller still, two words a line."""
        return len(self.name) > LONGER_NAME

    @property
    def out(self) -> bool:
        return self.place is not None

    @property
    def badge(self) -> str:
        if self.loser:
            return _("lost")
        return place_label(self.place)


@dataclass
class TapScreen:
    """Everything the tap screen shows; the template only lays it out."""

    deal: Deal | None
    version: int = 0  # the session's, which the screen asks about to follow other phones
    message: str = ""
    players: list[PlayerCard] = field(default_factory=list)
    mode: str = "tap"  # tap | loser | hands | ended
    dealer_line: str = ""
    leader_line: str = ""
    status_line: str = ""
    last_deal: str = ""
    trading: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    money: list[MoneyLine] = field(default_factory=list)
    undo: str = ""
    can_undo: bool = False
    undo_reopens: bool = False  # Undo would take back the record that filed deal `undo_deal`
    undo_deal: int | None = None
    # The record Undo names, "3:2" (deal 3's second record): undo is refused if the deal
    # moved on meanwhile (`services.deal_undo`); "" when there is nothing to undo.
    undoes: str = ""
    not_played: list[PlayerCard] = field(default_factory=list)
    unused_cards: bool = False
    cards_pay: bool = True
    card_counts: list[int] = field(default_factory=list)
    unused_counts: list[int] = field(default_factory=lambda: [0, 1, 2])
    sheets: Sheets | None = None
    # What the phone needs to score on offline (`offline_plan`), as JSON for the page.
    offline: dict[str, object] | None = None
    # Who is out on the deal, in order, as the screen shows it ("12,9"): a tap sends it
    # back, and is refused if the deal moved on meanwhile (`services.deal_tap`).
    out_before: str = ""

    @property
    def hands_due(self) -> list[PlayerCard]:
        return [card for card in self.players if card.needs_hand]

    @property
    def losers(self) -> list[PlayerCard]:
        """Who may be tapped as the loser: the answers to "Who lost?"."""
        return [card for card in self.players if card.may_lose]


def _last_record(taps: Sequence[Tap], events: Sequence[DealEvent]) -> Tap | DealEvent | None:
    records: list[Tap | DealEvent] = [*taps, *events]
    return max(records, key=lambda record: record.seq) if records else None


def tap_screen(table: Table, page: SessionPage, *, message: str = "") -> TapScreen:
    """The tap screen for the session's open deal (or the ended session)."""
    state, allowed = table.state, table.allowed
    if state is None or allowed is None:
        return TapScreen(deal=None, version=table.version, message=message, mode="ended")
    deal, names = state.deal, state.names
    screen = TapScreen(deal=deal, version=table.version, message=message)
    if allowed.hands_due:
        screen.mode = "hands"
    elif allowed.loser:
        screen.mode = "loser"
    places = {tap.player_id: tap for tap in state.taps}
    screen.out_before = ",".join(str(tap.player_id) for tap in state.taps)
    hands = {event.player_id: event for event in state.events if event.type == "hand"}
    next_place = place_label(len(state.taps) + 1)
    for dp in state.players:
        tap = places.get(dp.player_id)
        hand = hands.get(dp.player_id)
        screen.players.append(
            PlayerCard(
                id=dp.player_id,
                name=dp.player.name,
                place=tap.place if tap else None,
                loser=bool(tap and tap.loser),
                next_place=next_place,
                is_dealer=dp.player_id == deal.dealer_id,
                is_leader=dp.player_id == deal.leader_id,
                hand=(
                    ngettext("%(count)s card left", "%(count)s cards left", hand.cards)
                    % {"count": hand.cards}
                    if hand
                    else ""
                ),
                needs_hand=dp.player_id in allowed.hands_due,
                may_tap=dp.player_id in allowed.tap,
                may_lose=dp.player_id in allowed.loser,
                points=state.result.points.get(dp.player_id, 0),
            )
        )
    screen.not_played = [card for card in screen.players if card.id in allowed.not_played]
    screen.dealer_line = (
        _("%(name)s deals") % {"name": deal.dealer.name}
        if deal.dealer
        else _("The table picks the dealer")
    )
    screen.leader_line = (
        _("%(name)s leads") % {"name": deal.leader.name} if deal.leader else _("3♠ leads")
    )
    # In "loser" mode the question on screen says it all.
    if screen.mode == "hands":
        screen.status_line = _("Play is over: tap how many cards each player has left.")
    screen.events = [
        describe_event(event, names, cards_pay=allowed.cards_pay) for event in state.events
    ]
    screen.money = money_lines(state.result.ledger, names)
    screen.unused_cards = allowed.unused_cards
    screen.cards_pay = allowed.cards_pay
    screen.card_counts = list(range(0, allowed.most_cards + 1))
    screen.trading = trading_lines(deal.trading, names)
    held = len(state.taps) + len(state.events)  # records on the deal as drawn
    screen.sheets = sheets(
        allowed,
        deal=deal.pk,
        names=names,
        action=page.url("event"),
        preview=page.url("event_preview"),
        live=True,
        seen=held,
    )

    last = _last_record(state.taps, state.events)
    undoes = (deal.number, held)
    undo_names = names
    previous = table.previous
    if previous is not None:
        previous_names = {dp.player_id: dp.player.name for dp in previous.deal_players.all()}
        screen.last_deal = deal_summary(
            number=previous.number,
            deal_players=list(previous.deal_players.all()),
            ledger=list(previous.ledger_lines.all()),
            # Four long names alike filled its three lines before the second place.
            names=told_apart(previous_names),
            currency=page.session.currency,
        )
        if previous.status == Deal.Status.FILED:
            last = _last_record(previous.live_taps, previous.live_events)  # type: ignore[attr-defined]
            undoes = (previous.number, len(previous.live_taps) + len(previous.live_events))  # type: ignore[attr-defined]
            undo_names = previous_names
            screen.undo_reopens, screen.undo_deal = last is not None, previous.number
    screen.can_undo = last is not None
    screen.undoes = f"{undoes[0]}:{undoes[1]}" if last is not None else ""
    screen.undo = undo_label(last, undo_names, deal=screen.undo_deal)
    screen.offline = offline_plan(table, page)
    return screen


def offline_plan(table: Table, page: SessionPage) -> dict[str, object] | None:
    """The open deal as a phone scores on from it while offline (static/js/offline.js):
    its number and players, the taps and events it holds, and every order in which it may
    still be tapped out (`scoring.ahead`) — for it and for the deals after it, which the
    same players open. The phone looks these up; the rules stay here."""
    state = table.state
    if state is None:
        return None
    names = state.names
    said = told_apart(names)
    records: list[Tap | DealEvent] = sorted([*state.taps, *state.events], key=lambda r: r.seq)
    described = []
    for record in records:
        if isinstance(record, Tap):
            tap = scoring.Tap(record.player_id, loser=record.loser)
            described.append({"tap": ahead.tap_key(tap)})
        else:
            described.append({"event": describe_event(record, names)})
    return {
        "scope": page.url("tap"),
        "deals": page.url("deals"),
        "deal": state.deal.number,
        "version": table.version,
        # Each with the name Undo says (`told_apart`).
        "players": [[dp.player_id, dp.player.name, said[dp.player_id]] for dp in state.players],
        "records": described,
        "places": [place_label(place) for place in range(1, len(state.players) + 1)],
        "ahead": ahead.taps_ahead(state.facts).as_json(),
        "next": ahead.next_deals_ahead(state.facts).as_json(),
    }
