"""What the API reads and writes, noun by noun.

Input serializers check shapes and types only; the rules and their sentences live in the
services and `scoring`. Output serializers turn models and selector results into JSON:
player fields are player ids, money is a decimal string ("2.50", "0.375").
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NoReturn

from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import scoring
from tracker.api.events import EventField, event_data
from tracker.api.fields import (
    MOST_PLAYERS,
    ClosedInput,
    DecimalStringField,
    IdField,
    MoneyField,
    NameField,
    PlayersField,
    StringField,
    renamed,
)
from tracker.models import Deal, Session, ShareLink, Tap
from tracker.money import money_text
from tracker.records import DealState

# --- Circles and players ------------------------------------------------------------------


class NameInput(ClosedInput):
    name = NameField(help_text="A circle's name has at most 80 characters, a player's 40.")


class CircleOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class PlayerOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    circle = serializers.IntegerField(source="circle_id")
    account = serializers.SerializerMethodField(
        help_text='The member who said "this is me" (a username), or null.'
    )

    def get_account(self, player: Any) -> str | None:
        return player.user.get_username() if player.user_id is not None else None


# --- Sessions -----------------------------------------------------------------------------


class OptionsIO(ClosedInput):
    """The session options; a key that is none of them is refused, naming the ones there
    are (a misspelt option quietly off would change the money)."""

    guaransheed = serializers.BooleanField(default=False)
    got_to_get_in = serializers.BooleanField(default=False)
    instant_wins = serializers.BooleanField(
        default=False,
        help_text="Played with one pack only (2 to 4 players): refused for a session that "
        "starts with 5 to 8, and a claim at a deal of 5 to 8 is refused.",
    )
    trading = serializers.BooleanField(default=False)
    penalties = serializers.BooleanField(default=False)
    five_consecutive_pairs = serializers.BooleanField(
        default=False,
        help_text="Seed 000's alternate instant-win hand, 5 consecutive pairs (not including "
        "2s), as the kind `five_consecutive_pairs`; needs `instant_wins`.",
    )

    def refuse(self, unknown: list[str]) -> NoReturn:
        raise serializers.ValidationError(
            gettext("%(unknown)s: no such option; the options are %(known)s.")
            % {"unknown": ", ".join(unknown), "known": ", ".join(self.fields)}
        )


class SessionInput(ClosedInput):
    circle = IdField()
    name = NameField(help_text="At most 80 characters.")
    players = PlayersField(help_text="Player ids or names, in seat order.")
    format = serializers.ChoiceField(choices=Session.Format.values, default="podium")
    stake_rule = serializers.ChoiceField(choices=Session.StakeRule.values, default="loser_pays")
    stake = DecimalStringField(what=gettext_lazy("stake"), default="1.00")
    currency = StringField(default="USD", help_text="A 3-letter ISO code.")
    hand_size = serializers.IntegerField(default=13)
    options = OptionsIO(required=False)


class SessionFilter(serializers.Serializer):
    circle = IdField(required=False, help_text="Only this circle's sessions.")


class SeatingInput(ClosedInput):
    players = PlayersField(help_text="Player ids or names, in seat order.")


class SeatOut(serializers.Serializer):
    id = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name")
    seat = serializers.IntegerField(source="position")


class CurrentDealOut(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()


class SessionOut(serializers.Serializer):
    """A session from `selectors.session_queryset()` (seats and open deal prefetched);
    the context's `money` maps its id to its settlement (`selectors.session_settlements`)."""

    id = serializers.IntegerField()
    circle = serializers.IntegerField(source="circle_id")
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=Session.Format.values)
    stake_rule = serializers.ChoiceField(choices=Session.StakeRule.values)
    stake = MoneyField()
    currency = serializers.CharField()
    hand_size = serializers.IntegerField()
    options = serializers.SerializerMethodField()
    players = SeatOut(many=True, source="seats.all")
    current_deal = serializers.SerializerMethodField()
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    settled = serializers.SerializerMethodField(help_text="Nothing is owed by anyone.")
    open = serializers.SerializerMethodField(
        help_text="How much money still has to move to settle up, in `currency`."
    )

    def get_settled(self, session: Session) -> bool:
        return bool(self.context["money"][session.pk].settled)

    @extend_schema_field(MoneyField())
    def get_open(self, session: Session) -> str:
        return money_text(self.context["money"][session.pk].open_amount)

    @extend_schema_field(OptionsIO)
    def get_options(self, session: Session) -> dict[str, bool]:
        return OptionsIO(session.options).data

    @extend_schema_field(CurrentDealOut(allow_null=True))
    def get_current_deal(self, session: Session) -> dict[str, int] | None:
        open_deals = session.open_deals  # type: ignore[attr-defined]
        return CurrentDealOut(open_deals[0]).data if open_deals else None


# --- Deals --------------------------------------------------------------------------------


class TapInput(ClosedInput):
    player = IdField()
    not_played = serializers.ListField(
        child=IdField(),
        default=list,
        max_length=MOST_PLAYERS,
        help_text="Got to Get In: players who had not played a card yet.",
    )
    loser = serializers.BooleanField(
        default=False, help_text="Tap the loser directly (5 to 8 players)."
    )
    out_before = serializers.ListField(
        child=IdField(),
        required=False,
        allow_null=True,
        default=None,
        max_length=MOST_PLAYERS,
        help_text=(
            "Who was out on the deal as your screen showed it, in order ([] for nobody): "
            "the tap is refused (409 deal_moved_on) if the deal has moved on since. "
            "Leave out not to check."
        ),
    )


class CorrectionInput(ClosedInput):
    taps = serializers.ListField(
        child=IdField(),
        required=False,
        max_length=MOST_PLAYERS,
        help_text="The right tap order; leave out to keep the taps as they are.",
    )
    loser = IdField(required=False, allow_null=True, default=None)
    add_events = serializers.ListField(child=EventField(), default=list, max_length=20)
    reason = StringField(allow_blank=True, default="", max_length=200)


class TapOut(serializers.Serializer):
    id = serializers.IntegerField()
    seq = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    place = serializers.IntegerField()
    loser = serializers.BooleanField()
    not_played = serializers.SerializerMethodField()

    def get_not_played(self, tap: Tap) -> list[int]:
        return sorted(player.pk for player in tap.not_played.all())


class DealPlayerOut(serializers.Serializer):
    player = serializers.IntegerField(source="player_id")
    seat = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField()


class LedgerLineOut(serializers.Serializer):
    payer = serializers.IntegerField()
    payee = serializers.IntegerField()
    amount = MoneyField()
    reason = serializers.ChoiceField(choices=[reason.value for reason in scoring.Reason])

    def get_fields(self) -> dict[str, Any]:
        return renamed(super().get_fields(), payer="from", payee="to")


class TradingOut(serializers.Serializer):
    giver = serializers.IntegerField()
    receiver = serializers.IntegerField()
    cards = serializers.IntegerField()
    returns = serializers.IntegerField()


class DealSummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Deal.Status.values)
    dealer = serializers.IntegerField(source="dealer_id", allow_null=True)
    leader = serializers.IntegerField(source="leader_id", allow_null=True)
    winner = serializers.IntegerField(source="winner_id", allow_null=True)
    loser = serializers.IntegerField(source="loser_id", allow_null=True)
    players = DealPlayerOut(many=True, source="deal_players.all")
    opened_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)


class DealOut(serializers.Serializer):
    """A deal as it stands (`records.DealState`): an open deal shows provisional points
    and the ledger lines already certain."""

    id = serializers.IntegerField(source="deal.id")
    session = serializers.IntegerField(source="deal.session_id")
    number = serializers.IntegerField(source="deal.number")
    status = serializers.ChoiceField(choices=Deal.Status.values, source="deal.status")
    why = serializers.SerializerMethodField()
    dealer = serializers.IntegerField(source="deal.dealer_id", allow_null=True)
    leader = serializers.IntegerField(source="deal.leader_id", allow_null=True)
    winner = serializers.IntegerField(source="deal.winner_id", allow_null=True)
    loser = serializers.IntegerField(source="deal.loser_id", allow_null=True)
    next_deal = serializers.IntegerField(allow_null=True)
    players = DealPlayerOut(many=True)
    taps = TapOut(many=True)
    events = serializers.ListField(child=EventField())
    points = serializers.DictField(
        child=serializers.IntegerField(), source="result.points", help_text="Player id -> points."
    )
    ledger = serializers.SerializerMethodField()
    trading = TradingOut(many=True, source="deal.trading")
    opened_at = serializers.DateTimeField(source="deal.opened_at")
    closed_at = serializers.DateTimeField(source="deal.closed_at", allow_null=True)

    def get_why(self, state: DealState) -> str:
        """Why the deal is open, filed or ended, in the reader's language."""
        return state.result.why.render(gettext)

    @extend_schema_field(LedgerLineOut(many=True))
    def get_ledger(self, state: DealState) -> list[dict[str, Any]]:
        return LedgerLineOut(state.result.ledger, many=True).data


_WHEN = serializers.DateTimeField()  # DRF's own format, and time zone, for each instant
_TRADING = tuple(TradingOut._declared_fields)


def deal_data(state: DealState) -> dict[str, Any]:
    """`DealOut(state).data`, built directly: it is the answer of every tap, and DRF's
    serializer made some 45 field objects for it, a tenth of a tap's time. `DealOut`
    stays its schema; tests/api/test_deal_data.py holds the two to one answer."""
    deal, result = state.deal, state.result
    return {
        "id": deal.id,
        "session": deal.session_id,
        "number": deal.number,
        "status": deal.status,
        "why": result.why.render(gettext),
        "dealer": deal.dealer_id,
        "leader": deal.leader_id,
        "winner": deal.winner_id,
        "loser": deal.loser_id,
        "next_deal": state.next_deal,
        "players": [
            {
                "player": seat.player_id,
                "seat": seat.seat,
                "place": seat.place,
                "points": seat.points,
            }
            for seat in state.players
        ],
        "taps": [
            {
                "id": tap.id,
                "seq": tap.seq,
                "player": tap.player_id,
                "place": tap.place,
                "loser": tap.loser,
                "not_played": sorted(player.pk for player in tap.not_played.all()),
            }
            for tap in state.taps
        ],
        "events": [event_data(event) for event in state.events],
        "points": {str(player): points for player, points in result.points.items()},
        "ledger": [
            {
                "from": line.payer,
                "to": line.payee,
                "amount": money_text(Decimal(line.amount)),
                "reason": line.reason.value,
            }
            for line in result.ledger
        ],
        "trading": [{name: reminder[name] for name in _TRADING} for reminder in deal.trading],
        "opened_at": _WHEN.to_representation(deal.opened_at),
        "closed_at": None if deal.closed_at is None else _WHEN.to_representation(deal.closed_at),
    }


# --- Share links and sign-in --------------------------------------------------------------


class ShareLinkInput(ClosedInput):
    role = serializers.ChoiceField(choices=ShareLink.Role.values)


class ShareLinkOut(serializers.Serializer):
    id = serializers.IntegerField()
    session = serializers.IntegerField(source="session_id")
    role = serializers.ChoiceField(choices=ShareLink.Role.values)
    token = serializers.CharField(help_text='Send as "Authorization: Share <token>".')
    active = serializers.BooleanField(source="is_active")
    created_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)


class ErrorOut(serializers.Serializer):
    detail = serializers.CharField(help_text="A sentence saying what went wrong.")
    code = serializers.CharField(
        help_text="What went wrong, for programs: a stable word such as `not_found`, "
        "`deal_filed` or `throttled`."
    )
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="For invalid input: the messages per field.",
    )
