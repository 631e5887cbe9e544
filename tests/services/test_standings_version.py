"""Invariant: a write that changes a session's standings rows moves its
`standings_version` on (`Session.standings_version`, `tracker.views.live`).

A live standings page reads its rows again only when that version moved, so a write that
changes what `session_standings` shows without moving it leaves watching phones with old
standings. Every public write service (`tracker.services.__all__`) is run here on a
session with a few deals played, and the rows are compared before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import pytest

import scoring
import tracker.services
from tests.views.helpers import open_deal, play_deals
from tracker.access import Actor
from tracker.models import DealEvent, Session
from tracker.selectors.standings import session_standings
from tracker.services import (
    api_token_create,
    api_token_revoke,
    api_tokens_revoke_all,
    circle_create,
    circle_hand_over,
    circle_rename,
    deal_correct,
    deal_end,
    deal_event_record,
    deal_event_remove,
    deal_tap,
    deal_undo,
    invite_accept,
    invite_create,
    invite_revoke,
    member_remove,
    payment_cancel,
    payment_details_set,
    payment_record,
    player_claim,
    player_create,
    player_rename,
    player_unclaim,
    players_change,
    players_seat,
    session_create,
    session_end,
    session_tallies_rebuild,
    share_link_create,
    share_link_revoke,
    transfer_mark_paid,
    transfer_mark_unpaid,
)
from tracker.services.payments import settlement_of

pytestmark = pytest.mark.django_db

# Every option that records something: 2s and bombs, Guaransheed, instant wins, Got to
# Get In (trading cannot be on with instant wins).
ALL_EVENTS = scoring.Options(
    penalties=True, guaransheed=True, instant_wins=True, got_to_get_in=True
)
PER_CARD = {"format": "winner_takes_all", "stake_rule": "per_card"}


@dataclass
class Table:
    session: Session
    players: dict
    actor: Actor
    user: object
    circle: object
    make_user: Callable[[str], object]

    def id(self, name: str) -> int:
        return self.players[name].pk

    @property
    def deal(self):
        return open_deal(self.session)

    def filed(self, number: int):
        return self.session.deals.get(number=number)

    def tap(self, *names: str, deal=None, **kwargs) -> None:
        deal = deal or self.deal
        for name in names:
            deal_tap(deal_id=deal.pk, player_id=self.id(name), actor=self.actor, **kwargs)

    def event(self, record, deal=None) -> None:
        deal = deal or self.deal
        deal_event_record(deal_id=deal.pk, event=record, actor=self.actor)

    def two_beaten(self, by="Ben", owner="Cara", red=0, black=1) -> scoring.TwoBeaten:
        return scoring.TwoBeaten(
            by=self.id(by),
            owner=self.id(owner),
            beaten_with=scoring.Beater.BOMB,
            black=black,
            red=red,
        )

    def last_event(self, deal) -> DealEvent:
        return deal.dealevents.filter(undone_at__isnull=True).latest("seq")

    def pay(self, amount="1.00"):
        return payment_record(
            session_id=self.session.pk,
            payer_id=self.id("Dev"),
            payee_id=self.id("Alice"),
            amount=Decimal(amount),
            actor=self.actor,
        )


Write = Callable[[], object]
# A case: sets the table up as it needs (not measured), returns the write to measure.
Case = Callable[[Table], Write]


@dataclass(frozen=True)
class Spec:
    case: Case
    service: str  # the name in tracker.services.__all__ it exercises
    rules: dict | None = None  # session_create's rules for this case's table
    moves_rows: bool | None = None  # True: the write must change the rows (not vacuous)


def _w(fn, **kwargs) -> Write:
    return lambda: fn(**kwargs)


# --- Taps, events, undo, End match ------------------------------------------------------


def tap_first_out(t: Table) -> Write:
    return lambda: t.tap("Alice")


def tap_second_out(t: Table) -> Write:
    t.tap("Alice")
    return lambda: t.tap("Cara")


def tap_that_files(t: Table) -> Write:
    t.tap("Alice", "Cara")
    return lambda: t.tap("Ben")


def tap_that_files_with_got_to_get_in(t: Table) -> Write:
    # Dev never played a card: Got to Get In.
    t.tap("Alice", "Cara")
    return lambda: t.tap("Ben", not_played=[t.id("Dev")])


def tap_first_out_with_not_played(t: Table) -> Write:
    return lambda: t.tap("Alice", not_played=[t.id("Dev")])


def tap_loser_at_five(t: Table) -> Write:
    players_seat(
        session_id=t.session.pk,
        players=["Alice", "Ben", "Cara", "Dev", "Eve"],
        actor=t.actor,
    )
    t.players["Eve"] = t.session.seats.get(player__name="Eve").player
    t.tap("Alice", "Cara", "Ben")  # the podium's places filled
    return lambda: t.tap("Eve", loser=True)


def event_two_beaten_on_open_deal(t: Table) -> Write:
    return lambda: t.event(t.two_beaten())


def event_two_beaten_then_filing_tap(t: Table) -> Write:
    t.event(t.two_beaten(red=1, black=1))
    t.tap("Alice", "Cara")
    return lambda: t.tap("Ben")


def event_cutup_beaten_then_filing_tap(t: Table) -> Write:
    t.event(
        scoring.TwoBeaten(
            by=t.id("Ben"), owner=t.id("Cara"), beaten_with=scoring.Beater.CUTUP, red=1
        )
    )
    t.event(scoring.CutupBeaten(by=t.id("Dev"), owner=t.id("Ben")))
    t.tap("Alice", "Cara")
    return lambda: t.tap("Ben")


def event_guaransheed(t: Table) -> Write:
    return lambda: t.event(scoring.Guaransheed(player=t.id("Alice")))


def event_guaransheed_lost_then_filing_tap(t: Table) -> Write:
    t.event(scoring.Guaransheed(player=t.id("Ben")))
    t.tap("Alice", "Cara")
    return lambda: t.tap("Ben")


def event_instant_win(t: Table) -> Write:
    claim = scoring.InstantWin(player=t.id("Cara"), kind=scoring.InstantWinKind.DRAGON)
    return lambda: t.event(claim)


def event_hand_unused_twos_after_filing(t: Table) -> Write:
    deal = t.deal
    t.tap("Alice", "Cara", "Ben", deal=deal)
    hand = scoring.Hand(player=t.id("Dev"), cards=5, red_twos=1, black_twos=1)
    return lambda: t.event(hand, deal=deal)


def event_hand_unused_bomb_after_filing(t: Table) -> Write:
    deal = t.deal
    t.tap("Alice", "Cara", "Ben", deal=deal)
    hand = scoring.Hand(player=t.id("Dev"), cards=6, bombs=1)
    return lambda: t.event(hand, deal=deal)


def event_hand_on_open_deal_per_card(t: Table) -> Write:
    t.tap("Alice")
    return lambda: t.event(scoring.Hand(player=t.id("Ben"), cards=4))


def event_last_hand_files_per_card(t: Table) -> Write:
    t.tap("Alice")
    t.event(scoring.Hand(player=t.id("Ben"), cards=4))
    t.event(scoring.Hand(player=t.id("Cara"), cards=2))
    return lambda: t.event(scoring.Hand(player=t.id("Dev"), cards=7, red_twos=1))


def event_remove_on_open_deal(t: Table) -> Write:
    deal = t.deal
    t.event(t.two_beaten(), deal=deal)
    event = t.last_event(deal)
    return _w(deal_event_remove, deal_id=deal.pk, event_id=event.pk, actor=t.actor)


def event_remove_on_filed_deal(t: Table) -> Write:
    deal = t.deal
    t.event(t.two_beaten(red=1), deal=deal)
    t.tap("Alice", "Cara", "Ben", deal=deal)
    event = t.last_event(deal)
    return _w(deal_event_remove, deal_id=deal.pk, event_id=event.pk, actor=t.actor)


def event_remove_guaransheed_on_filed_deal(t: Table) -> Write:
    deal = t.deal
    t.event(scoring.Guaransheed(player=t.id("Alice")), deal=deal)
    t.tap("Alice", "Cara", "Ben", deal=deal)
    event = t.last_event(deal)
    return _w(deal_event_remove, deal_id=deal.pk, event_id=event.pk, actor=t.actor)


def undo_a_tap_on_open_deal(t: Table) -> Write:
    deal = t.deal
    t.tap("Alice", "Cara", deal=deal)
    return _w(deal_undo, deal_id=deal.pk, actor=t.actor)


def undo_an_event_on_open_deal(t: Table) -> Write:
    deal = t.deal
    t.event(t.two_beaten(), deal=deal)
    return _w(deal_undo, deal_id=deal.pk, actor=t.actor)


def undo_the_filing_tap_from_the_next_deal(t: Table) -> Write:
    # Sent to the empty deal that opened: reaches back and re-opens the filed deal.
    return _w(deal_undo, deal_id=t.deal.pk, actor=t.actor, reopen=True)


def undo_the_filing_tap_on_the_filed_deal(t: Table) -> Write:
    return _w(deal_undo, deal_id=t.filed(3).pk, actor=t.actor)


def undo_the_instant_win(t: Table) -> Write:
    deal = t.deal
    t.event(scoring.InstantWin(player=t.id("Cara"), kind=scoring.InstantWinKind.DRAGON), deal=deal)
    return _w(deal_undo, deal_id=deal.pk, actor=t.actor)


def undo_the_filing_of_a_deal_with_twos(t: Table) -> Write:
    deal = t.deal
    t.event(t.two_beaten(red=1), deal=deal)
    t.tap("Alice", "Cara", "Ben", deal=deal)
    return _w(deal_undo, deal_id=deal.pk, actor=t.actor)


def deal_end_with_a_winner(t: Table) -> Write:
    deal = t.deal
    t.tap("Alice", deal=deal)
    return _w(deal_end, deal_id=deal.pk, actor=t.actor)


def deal_end_with_two_out(t: Table) -> Write:
    deal = t.deal
    t.tap("Alice", "Ben", deal=deal)
    return _w(deal_end, deal_id=deal.pk, actor=t.actor)


def deal_end_on_an_empty_deal(t: Table) -> Write:
    return _w(deal_end, deal_id=t.deal.pk, actor=t.actor)


def session_end_with_a_winner(t: Table) -> Write:
    t.tap("Dev")
    return _w(session_end, session_id=t.session.pk, actor=t.actor)


def session_end_on_an_empty_deal(t: Table) -> Write:
    return _w(session_end, session_id=t.session.pk, actor=t.actor)


# --- Corrections ------------------------------------------------------------------------


def correct_tap_order(t: Table) -> Write:
    deal = t.filed(1)  # Alice, Cara, Ben
    order = [t.id("Ben"), t.id("Alice"), t.id("Dev")]
    return _w(deal_correct, deal_id=deal.pk, taps=order, reason="order", actor=t.actor)


def correct_add_two_beaten(t: Table) -> Write:
    deal = t.filed(2)
    add = [t.two_beaten(by="Alice", owner="Ben", red=1)]
    return _w(deal_correct, deal_id=deal.pk, add_events=add, reason="2s", actor=t.actor)


def correct_add_guaransheed(t: Table) -> Write:
    deal = t.filed(1)
    add = [scoring.Guaransheed(player=t.id("Alice"))]
    return _w(deal_correct, deal_id=deal.pk, add_events=add, reason="G", actor=t.actor)


def correct_add_hand_replacing(t: Table) -> Write:
    deal = t.filed(1)  # Dev left holding cards
    t.event(scoring.Hand(player=t.id("Dev"), cards=5, red_twos=1), deal=deal)
    add = [scoring.Hand(player=t.id("Dev"), cards=5, black_twos=1)]
    return _w(
        deal_correct,
        deal_id=deal.pk,
        add_events=add,
        replace_hands=True,
        reason="hand",
        actor=t.actor,
    )


def correct_nothing(t: Table) -> Write:
    return _w(deal_correct, deal_id=t.filed(1).pk, reason="look again", actor=t.actor)


def correct_an_ended_deal(t: Table) -> Write:
    deal = t.deal
    t.tap("Alice", deal=deal)
    deal_end(deal_id=deal.pk, actor=t.actor)
    order = [t.id("Alice"), t.id("Ben"), t.id("Cara")]
    return _w(deal_correct, deal_id=deal.pk, taps=order, reason="all out", actor=t.actor)


def correct_remove_event(t: Table) -> Write:
    deal = t.deal
    t.event(t.two_beaten(), deal=deal)
    t.tap("Alice", "Cara", "Ben", deal=deal)
    event = t.last_event(deal)
    return _w(
        deal_correct, deal_id=deal.pk, remove_event_ids=[event.pk], reason="no", actor=t.actor
    )


# --- Players and seating ----------------------------------------------------------------


def player_create_in_circle(t: Table) -> Write:
    return _w(player_create, circle=t.circle, name="Zed")


def player_rename_seated(t: Table) -> Write:
    return _w(player_rename, player=t.players["Ben"], name="Benjamin")


def player_rename_reorders(t: Table) -> Write:
    # Two players level on everything but the name: a rename reorders the rows.
    return _w(player_rename, player=t.players["Dev"], name="Aaron")


def player_rename_dropped_player_who_played(t: Table) -> Write:
    players_seat(session_id=t.session.pk, players=["Alice", "Ben", "Cara"], actor=t.actor)
    return _w(player_rename, player=t.players["Dev"], name="Devon")


def player_rename_dropped_player_who_only_paid(t: Table) -> Write:
    # Eve sat down, paid, and left before a deal: not on the rows, but on the session.
    players_seat(
        session_id=t.session.pk, players=["Alice", "Ben", "Cara", "Dev", "Eve"], actor=t.actor
    )
    eve = t.session.seats.get(player__name="Eve").player
    payment_record(
        session_id=t.session.pk,
        payer_id=eve.pk,
        payee_id=t.id("Alice"),
        amount=Decimal("1.00"),
        actor=t.actor,
    )
    players_seat(session_id=t.session.pk, players=["Alice", "Ben", "Cara", "Dev"], actor=t.actor)
    return _w(player_rename, player=eve, name="Evelyn")


def player_rename_of_another_session(t: Table) -> Write:
    other = player_create(circle=t.circle, name="Stranger")
    return _w(player_rename, player=other, name="Still a stranger")


def _seat(names):
    def case(t: Table) -> Write:
        return lambda: players_seat(session_id=t.session.pk, players=list(names), actor=t.actor)

    return case


def players_seat_new_player_joins(t: Table) -> Write:
    return _seat(["Alice", "Ben", "Cara", "Dev", "Eve"])(t)


def players_seat_same_table(t: Table) -> Write:
    return _seat(["Alice", "Ben", "Cara", "Dev"])(t)


def players_seat_reordered(t: Table) -> Write:
    return _seat(["Dev", "Cara", "Ben", "Alice"])(t)


def players_seat_drops_a_player(t: Table) -> Write:
    return _seat(["Alice", "Ben", "Cara"])(t)


def players_seat_drops_one_who_never_played(t: Table) -> Write:
    _seat(["Alice", "Ben", "Cara", "Dev", "Eve"])(t)()
    return _seat(["Alice", "Ben", "Cara", "Dev"])(t)


def players_seat_circle_player_by_id(t: Table) -> Write:
    zed = player_create(circle=t.circle, name="Zed")
    return _seat([t.id("Alice"), t.id("Ben"), zed.pk])(t)


def _change(kind, target):
    def case(t: Table) -> Write:
        deal = t.deal
        value = target(t) if callable(target) else target
        return _w(
            players_change,
            session_id=t.session.pk,
            deal_id=deal.pk,
            change=kind,
            target=value,
            actor=t.actor,
        )

    return case


def players_change_add_dropped_back(t: Table) -> Write:
    _seat(["Alice", "Ben", "Cara"])(t)()
    return _change("add", lambda t: t.id("Dev"))(t)


def players_change_add_circle_player(t: Table) -> Write:
    zed = player_create(circle=t.circle, name="Zed")
    return _change("add", zed.pk)(t)


def players_change_drop_new_player(t: Table) -> Write:
    _change("name", "Eve")(t)()
    eve = t.session.seats.get(player__name="Eve").player
    return _change("drop", eve.pk)(t)


# --- Money, links, circles, accounts, sessions ------------------------------------------


def payment_record_case(t: Table) -> Write:
    return t.pay


def payment_cancel_case(t: Table) -> Write:
    payment = t.pay()
    return _w(payment_cancel, session_id=t.session.pk, payment_id=payment.pk, actor=t.actor)


def _first_transfer(t: Table):
    return next(iter(settlement_of(t.session).transfers))


def transfer_mark_paid_case(t: Table) -> Write:
    transfer = _first_transfer(t)
    return _w(
        transfer_mark_paid,
        session_id=t.session.pk,
        payer_id=transfer.payer,
        payee_id=transfer.payee,
        amount=transfer.amount,
        actor=t.actor,
    )


def transfer_mark_unpaid_case(t: Table) -> Write:
    transfer = _first_transfer(t)
    kwargs = dict(
        session_id=t.session.pk,
        payer_id=transfer.payer,
        payee_id=transfer.payee,
        amount=transfer.amount,
        actor=t.actor,
    )
    transfer_mark_paid(**kwargs)
    return _w(transfer_mark_unpaid, **kwargs)


def payment_details_set_case(t: Table) -> Write:
    return _w(
        payment_details_set,
        player=t.players["Alice"],
        link="https://paypal.me/alice",
        actor=t.actor,
    )


def share_link_create_case(t: Table) -> Write:
    return _w(share_link_create, session_id=t.session.pk, role="scorer", actor=t.actor)


def share_link_revoke_case(t: Table) -> Write:
    link = share_link_create(session_id=t.session.pk, role="viewer", actor=t.actor)
    return _w(share_link_revoke, link_id=link.pk, actor=t.actor)


def session_tallies_rebuild_case(t: Table) -> Write:
    return _w(session_tallies_rebuild, session=t.session)


def session_create_same_players(t: Table) -> Write:
    return _w(
        session_create,
        circle=t.circle,
        name="Saturday",
        players=["Alice", "Ben", "Cara", "Dev"],
        actor=t.actor,
    )


def circle_create_case(t: Table) -> Write:
    return _w(circle_create, owner=t.user, name="Another table")


def circle_rename_case(t: Table) -> Write:
    return _w(circle_rename, circle=t.circle, name="Saturday table")


def invite_create_case(t: Table) -> Write:
    return _w(invite_create, circle=t.circle, actor=t.actor)


def invite_revoke_case(t: Table) -> Write:
    invite = invite_create(circle=t.circle, actor=t.actor)
    return _w(invite_revoke, invite_id=invite.pk, actor=t.actor)


def invite_accept_case(t: Table) -> Write:
    invite = invite_create(circle=t.circle, actor=t.actor)
    return _w(invite_accept, token=invite.token, user=t.make_user("guest"))


def _member(t: Table):
    guest = t.make_user("guest")
    invite_accept(token=invite_create(circle=t.circle, actor=t.actor).token, user=guest)
    return guest


def member_remove_case(t: Table) -> Write:
    guest = _member(t)
    player_claim(player=t.players["Ben"], actor=Actor(user=guest))
    return _w(member_remove, circle=t.circle, user_id=guest.pk, actor=t.actor)


def circle_hand_over_case(t: Table) -> Write:
    guest = _member(t)
    return _w(circle_hand_over, circle=t.circle, user_id=guest.pk, actor=t.actor)


def player_claim_case(t: Table) -> Write:
    return _w(player_claim, player=t.players["Alice"], actor=t.actor)


def player_unclaim_case(t: Table) -> Write:
    player_claim(player=t.players["Alice"], actor=t.actor)
    return _w(player_unclaim, player=t.players["Alice"], actor=t.actor)


def api_token_create_case(t: Table) -> Write:
    return _w(api_token_create, user=t.user, name="phone")


def api_token_revoke_case(t: Table) -> Write:
    issued = api_token_create(user=t.user, name="phone")
    return _w(api_token_revoke, user=t.user, token_id=issued.token.pk)


def api_tokens_revoke_all_case(t: Table) -> Write:
    api_token_create(user=t.user, name="phone")
    return _w(api_tokens_revoke_all, user=t.user)


# --- The cases --------------------------------------------------------------------------

EVENTS = {"options": ALL_EVENTS}

SPECS: dict[str, Spec] = {
    # taps
    "tap-first-out": Spec(tap_first_out, "deal_tap"),
    "tap-second-out": Spec(tap_second_out, "deal_tap"),
    "tap-that-files": Spec(tap_that_files, "deal_tap", moves_rows=True),
    "tap-first-out-not-played": Spec(tap_first_out_with_not_played, "deal_tap", EVENTS),
    "tap-files-got-to-get-in": Spec(
        tap_that_files_with_got_to_get_in, "deal_tap", EVENTS, moves_rows=True
    ),
    "tap-loser-at-five": Spec(tap_loser_at_five, "deal_tap", moves_rows=True),
    # events
    "event-two-beaten-open": Spec(event_two_beaten_on_open_deal, "deal_event_record", EVENTS),
    "event-two-beaten-then-filing": Spec(
        event_two_beaten_then_filing_tap, "deal_tap", EVENTS, moves_rows=True
    ),
    "event-cutup-beaten-then-filing": Spec(
        event_cutup_beaten_then_filing_tap, "deal_tap", EVENTS, moves_rows=True
    ),
    "event-guaransheed": Spec(event_guaransheed, "deal_event_record", EVENTS),
    "event-guaransheed-lost-then-filing": Spec(
        event_guaransheed_lost_then_filing_tap, "deal_tap", EVENTS, moves_rows=True
    ),
    "event-instant-win": Spec(event_instant_win, "deal_event_record", EVENTS, moves_rows=True),
    "event-hand-unused-twos-after-filing": Spec(
        event_hand_unused_twos_after_filing, "deal_event_record", EVENTS, moves_rows=True
    ),
    "event-hand-unused-bomb-after-filing": Spec(
        event_hand_unused_bomb_after_filing, "deal_event_record", EVENTS, moves_rows=True
    ),
    "event-hand-open-per-card": Spec(
        event_hand_on_open_deal_per_card, "deal_event_record", PER_CARD
    ),
    "event-last-hand-files-per-card": Spec(
        event_last_hand_files_per_card, "deal_event_record", PER_CARD, moves_rows=True
    ),
    "event-remove-open": Spec(event_remove_on_open_deal, "deal_event_remove", EVENTS),
    "event-remove-filed": Spec(
        event_remove_on_filed_deal, "deal_event_remove", EVENTS, moves_rows=True
    ),
    "event-remove-guaransheed-filed": Spec(
        event_remove_guaransheed_on_filed_deal, "deal_event_remove", EVENTS, moves_rows=True
    ),
    # undo
    "undo-tap-open": Spec(undo_a_tap_on_open_deal, "deal_undo"),
    "undo-event-open": Spec(undo_an_event_on_open_deal, "deal_undo", EVENTS),
    "undo-filing-from-next-deal": Spec(
        undo_the_filing_tap_from_the_next_deal, "deal_undo", moves_rows=True
    ),
    "undo-filing-on-filed-deal": Spec(
        undo_the_filing_tap_on_the_filed_deal, "deal_undo", moves_rows=True
    ),
    "undo-instant-win": Spec(undo_the_instant_win, "deal_undo", EVENTS, moves_rows=True),
    "undo-filing-with-twos": Spec(
        undo_the_filing_of_a_deal_with_twos, "deal_undo", EVENTS, moves_rows=True
    ),
    # End match
    "deal-end-winner": Spec(deal_end_with_a_winner, "deal_end", moves_rows=True),
    "deal-end-two-out": Spec(deal_end_with_two_out, "deal_end", moves_rows=True),
    "deal-end-empty": Spec(deal_end_on_an_empty_deal, "deal_end"),
    "session-end-winner": Spec(session_end_with_a_winner, "session_end", moves_rows=True),
    "session-end-empty": Spec(session_end_on_an_empty_deal, "session_end"),
    # corrections
    "correct-tap-order": Spec(correct_tap_order, "deal_correct", moves_rows=True),
    "correct-add-two-beaten": Spec(correct_add_two_beaten, "deal_correct", EVENTS, moves_rows=True),
    "correct-add-guaransheed": Spec(
        correct_add_guaransheed, "deal_correct", EVENTS, moves_rows=True
    ),
    "correct-replace-hand": Spec(
        correct_add_hand_replacing, "deal_correct", EVENTS, moves_rows=True
    ),
    "correct-nothing": Spec(correct_nothing, "deal_correct"),
    "correct-ended-deal": Spec(correct_an_ended_deal, "deal_correct", moves_rows=True),
    "correct-remove-event": Spec(correct_remove_event, "deal_correct", EVENTS, moves_rows=True),
    # players
    "player-create": Spec(player_create_in_circle, "player_create"),
    "player-rename-seated": Spec(player_rename_seated, "player_rename", moves_rows=True),
    "player-rename-reorders": Spec(player_rename_reorders, "player_rename", moves_rows=True),
    "player-rename-dropped-who-played": Spec(
        player_rename_dropped_player_who_played, "player_rename", moves_rows=True
    ),
    "player-rename-dropped-who-paid": Spec(
        player_rename_dropped_player_who_only_paid, "player_rename"
    ),
    "player-rename-elsewhere": Spec(player_rename_of_another_session, "player_rename"),
    # seating
    "seat-new-player": Spec(players_seat_new_player_joins, "players_seat", moves_rows=True),
    "seat-same-table": Spec(players_seat_same_table, "players_seat"),
    "seat-reordered": Spec(players_seat_reordered, "players_seat"),
    "seat-drop-player-who-played": Spec(players_seat_drops_a_player, "players_seat"),
    "seat-drop-player-who-never-played": Spec(
        players_seat_drops_one_who_never_played, "players_seat", moves_rows=True
    ),
    "seat-circle-player-by-id": Spec(
        players_seat_circle_player_by_id, "players_seat", moves_rows=True
    ),
    "change-up": Spec(_change("up", lambda t: t.id("Cara")), "players_change"),
    "change-up-first-seat": Spec(_change("up", lambda t: t.id("Alice")), "players_change"),
    "change-down": Spec(_change("down", lambda t: t.id("Alice")), "players_change"),
    "change-drop": Spec(_change("drop", lambda t: t.id("Dev")), "players_change"),
    "change-drop-new-player": Spec(
        players_change_drop_new_player, "players_change", moves_rows=True
    ),
    "change-add-dropped-back": Spec(players_change_add_dropped_back, "players_change"),
    "change-add-circle-player": Spec(
        players_change_add_circle_player, "players_change", moves_rows=True
    ),
    "change-add-already-seated": Spec(_change("add", lambda t: t.id("Ben")), "players_change"),
    "change-name-new-player": Spec(_change("name", "Eve"), "players_change", moves_rows=True),
    # money
    "payment-record": Spec(payment_record_case, "payment_record"),
    "payment-cancel": Spec(payment_cancel_case, "payment_cancel"),
    "transfer-mark-paid": Spec(transfer_mark_paid_case, "transfer_mark_paid"),
    "transfer-mark-unpaid": Spec(transfer_mark_unpaid_case, "transfer_mark_unpaid"),
    "payment-details-set": Spec(payment_details_set_case, "payment_details_set"),
    # links, sessions, circles, accounts
    "share-link-create": Spec(share_link_create_case, "share_link_create"),
    "share-link-revoke": Spec(share_link_revoke_case, "share_link_revoke"),
    "session-tallies-rebuild": Spec(session_tallies_rebuild_case, "session_tallies_rebuild"),
    "session-create-same-players": Spec(session_create_same_players, "session_create"),
    "circle-create": Spec(circle_create_case, "circle_create"),
    "circle-rename": Spec(circle_rename_case, "circle_rename"),
    "invite-create": Spec(invite_create_case, "invite_create"),
    "invite-revoke": Spec(invite_revoke_case, "invite_revoke"),
    "invite-accept": Spec(invite_accept_case, "invite_accept"),
    "member-remove": Spec(member_remove_case, "member_remove"),
    "circle-hand-over": Spec(circle_hand_over_case, "circle_hand_over"),
    "player-claim": Spec(player_claim_case, "player_claim"),
    "player-unclaim": Spec(player_unclaim_case, "player_unclaim"),
    "api-token-create": Spec(api_token_create_case, "api_token_create"),
    "api-token-revoke": Spec(api_token_revoke_case, "api_token_revoke"),
    "api-tokens-revoke-all": Spec(api_tokens_revoke_all_case, "api_tokens_revoke_all"),
}


def rows(session: Session) -> tuple[dict, ...]:
    return tuple(dict(vars(row)) for row in session_standings(session))


def standings_version(session: Session) -> int:
    return Session.objects.values_list("standings_version", flat=True).get(pk=session.pk)


@pytest.fixture
def start(make_session, user, circle, actor, django_user_model):
    def make_user(name):
        return django_user_model.objects.create_user(username=name, password="x-table-of-four")

    def start(rules: dict | None) -> Table:
        session, players = make_session(**(rules or {}))
        if (rules or {}).get("stake_rule") == "per_card":
            # A deal files at the first out once every other hand is in.
            for number in range(3):
                deal = open_deal(session)
                winner, *others = list(players.values())[number:] + list(players.values())[:number]
                deal_tap(deal_id=deal.pk, player_id=winner.pk, actor=actor)
                for cards, other in enumerate(others, start=1):
                    hand = scoring.Hand(player=other.pk, cards=cards)
                    deal_event_record(deal_id=deal.pk, event=hand, actor=actor)
        else:
            play_deals(session, players, 3, actor)
        return Table(session, dict(players), actor, user, circle, make_user)

    return start


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_a_write_that_changes_the_rows_moves_standings_version(start, spec: Spec):
    table = start(spec.rules)
    write = spec.case(table)
    before_rows, before_version = rows(table.session), standings_version(table.session)

    write()

    after_rows, after_version = rows(table.session), standings_version(table.session)
    if spec.moves_rows:
        assert after_rows != before_rows, "the case was meant to change the rows"
    if after_rows != before_rows:
        assert after_version > before_version, (
            f"{spec.service}: rows changed but standings_version stayed {before_version}"
        )


def test_every_public_write_service_has_a_case():
    covered = {spec.service for spec in SPECS.values()}
    assert set(tracker.services.__all__) - covered == set()
