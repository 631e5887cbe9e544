"""What the tap screen shows for a session's open deal, put together from the selectors."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import scoring
from tracker import forms, selectors
from tracker.models import Deal, DealEvent, Session, Tap
from tracker.pages.access import Access
from tracker.pages.words import (
    MoneyLine,
    deal_summary,
    describe_event,
    money_lines,
    undo_label,
)
from tracker.templatetags.pages import place_label


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
    points: int = 0

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

    access: Access
    session: Session
    deal: Deal | None
    key: str
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
    show_guaransheed: bool = False
    show_instant_win: bool = False
    show_cutup_beaten: bool = False
    show_hands_sheet: bool = False
    show_not_played: bool = False
    penalties_on: bool = False
    card_counts: list[int] = field(default_factory=list)
    twos_counts: list[int] = field(default_factory=lambda: [0, 1, 2, 3])
    unused_counts: list[int] = field(default_factory=lambda: [0, 1, 2])
    beaters: list[tuple[str, str]] = field(default_factory=lambda: list(forms.BEATER_CHOICES))
    instant_wins: list[tuple[str, str]] = field(
        default_factory=lambda: list(forms.INSTANT_WIN_CHOICES)
    )

    @property
    def holding(self) -> list[PlayerCard]:
        """Players still holding cards (for 2s beaten, hands, not-yet-played marks)."""
        return [card for card in self.players if not card.out]

    @property
    def hands_due(self) -> list[PlayerCard]:
        return [card for card in self.players if card.needs_hand]


def _last_record(taps: Sequence[Tap], events: Sequence[DealEvent]) -> Tap | DealEvent | None:
    records: list[Tap | DealEvent] = [*taps, *events]
    return max(records, key=lambda record: record.seq) if records else None


def tap_screen_state(access: Access, *, message: str = "") -> TapScreen:
    """The tap screen for the session's open deal (or the ended session).

    Queries, whatever the session's length: the open deal; its players; its taps (and
    their not-played marks), events and next-deal id (deal_view); when the deal is still
    empty, the last deal with its players, ledger, taps and events.
    """
    session = access.session
    deal = session.deals.filter(status=Deal.Status.OPEN).select_related("dealer", "leader").first()
    screen = TapScreen(access=access, session=session, deal=deal, key=secrets.token_hex(16))
    screen.message = message
    if deal is None:
        screen.mode = "ended"
        return screen
    deal.session = session
    deal_players = list(deal.deal_players.select_related("player").order_by("seat"))
    view = selectors.deal_view(deal, deal_players)
    rules = session.rules
    names = {dp.player_id: dp.player.name for dp in deal_players}
    places = {tap.player_id: tap for tap in view.taps}
    hands = {event.player_id: event for event in view.events if event.type == "hand"}
    podium = scoring.podium_size(rules, len(deal_players))
    placed = [tap for tap in view.taps if not tap.loser]
    places_filled = len(placed) >= podium
    if places_filled:
        screen.mode = "hands" if rules.needs_hands else "loser"
    next_place = place_label(len(view.taps) + 1)
    winner = view.taps[0].player_id if view.taps else None
    for dp in deal_players:
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
                needs_hand=(screen.mode == "hands" and dp.player_id != winner and hand is None),
                points=view.points.get(dp.player_id, 0),
            )
        )
    screen.dealer_line = (
        _("%(name)s deals") % {"name": deal.dealer.name}
        if deal.dealer
        else _("The table picks the dealer")
    )
    screen.leader_line = (
        _("%(name)s leads") % {"name": deal.leader.name} if deal.leader else _("3♠ leads")
    )
    if screen.mode == "loser":
        screen.status_line = _(
            "Who lost? Tap the last player holding cards — or keep tapping who goes out."
        )
    elif screen.mode == "hands":
        screen.status_line = _("Play is over: tap how many cards each player has left.")
    screen.events = [describe_event(event, names) for event in view.events]
    screen.money = money_lines(view.ledger, names)
    screen.penalties_on = rules.penalties_on
    screen.show_guaransheed = (
        rules.options.guaransheed
        and not view.taps
        and not any(event.type == "guaransheed" for event in view.events)
    )
    screen.show_instant_win = rules.options.instant_wins and not view.taps and not view.events
    screen.show_cutup_beaten = rules.penalties_on
    screen.show_not_played = rules.options.got_to_get_in and screen.mode == "tap"
    screen.show_hands_sheet = rules.penalties_on and not rules.needs_hands
    screen.card_counts = list(
        range(0, min(rules.hand_size, scoring.max_hand_size(len(deal_players))) + 1)
    )
    screen.trading = [
        _(
            "%(giver)s gives %(receiver)s their %(cards)s highest cards; "
            "%(receiver)s returns any %(returns)s"
        )
        % {
            "giver": names.get(reminder["giver"], "?"),
            "receiver": names.get(reminder["receiver"], "?"),
            "cards": reminder["cards"],
            "returns": reminder["returns"],
        }
        for reminder in deal.trading
    ]

    last = _last_record(view.taps, view.events)
    undo_names = names
    if last is None and deal.number > 1:
        previous = selectors.session_deal_numbered(session, deal.number - 1)
        if previous is not None:
            previous_names = {dp.player_id: dp.player.name for dp in previous.deal_players.all()}
            screen.last_deal = deal_summary(
                number=previous.number,
                deal_players=list(previous.deal_players.all()),
                ledger=list(previous.ledger_lines.all()),
                names=previous_names,
                currency=session.currency,
            )
            if previous.status == Deal.Status.FILED:
                last = _last_record(previous.live_taps, previous.live_events)
                undo_names = previous_names
    screen.can_undo = last is not None
    screen.undo = undo_label(last, undo_names)
    return screen
