"""What the API reads and writes.

Input serializers check shapes and types only; the rules and their sentences live in the
services and `scoring`. Output serializers turn models and selector results into JSON:
player fields are player ids, money is a decimal string ("2.50", "0.375").
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.functional import Promise, lazy
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

import scoring
from tracker.models import Deal, DealEvent, Session, ShareLink, Tap
from tracker.selectors import DealDetail, Settlement, StandingRow, TransferView, money_text

MAX_ID = 2**63 - 1
LARGEST_AMOUNT = Decimal(10) ** 17  # what a money column (20 digits, 3 places) holds
FEWEST_PLAYERS = scoring.deal.MIN_PLAYERS
MOST_PLAYERS = scoring.deal.MAX_PLAYERS


def _table_size() -> str:
    return _("A table has %(fewest)s to %(most)s players.") % {
        "fewest": FEWEST_PLAYERS,
        "most": MOST_PLAYERS,
    }


TABLE_SIZE = lazy(_table_size, str)()  # said in the language of the request that reads it

# Patterns for the schema (ECMA regular expressions), so that a request the schema allows
# passes the serializers: DRF refuses a null character in any text.
NAME_PATTERN = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"  # something besides spaces
# A positive amount below 10**17 with at most 3 decimals: what AmountField accepts.
AMOUNT_PATTERN = r"^0*([1-9][0-9]{0,16}(\.[0-9]{1,3})?|\.([1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9]))$"


money = money_text  # the API, the CSV export and the pages agree on amounts


# --- Fields -----------------------------------------------------------------------------


class IdField(serializers.IntegerField):
    """An object id: a whole number from 1."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)


class MoneyField(serializers.DecimalField):
    """Money out, as a decimal string."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_digits=20, decimal_places=3, read_only=True, **kwargs)

    def to_representation(self, value: Decimal) -> str:
        return money(Decimal(value))


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": r"^[0-9]+(\.[0-9]+)?$", "example": "1.00"},
            {"type": "integer", "minimum": 1},
        ]
    }
)
class DecimalStringField(serializers.Field):
    """Money in: a decimal string such as "1.50" (a whole JSON number is fine too).

    A JSON number with a fraction is refused: it arrives as a binary float, which cannot
    hold most amounts of money exactly.
    """

    def __init__(self, *, what: str | Promise, **kwargs: Any) -> None:
        self.what = what  # a noun marked with gettext_lazy: "stake", "amount"
        super().__init__(**kwargs)

    def refusal(self, template: str) -> serializers.ValidationError:
        """A translated template naming the field's noun, as a sentence: Vietnamese puts
        the noun first ("Số tiền phải lớn hơn 0."), so the first letter is raised."""
        return serializers.ValidationError(capfirst(template % {"what": self.what}))

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, float):
            raise self.refusal(
                _(
                    'Send the %(what)s as a decimal string such as "1.50", not a JSON '
                    "number with a fraction: that is a float, and floats cannot hold money "
                    "exactly."
                )
            )
        if isinstance(data, bool) or not isinstance(data, str | int):
            raise self.refusal(_('The %(what)s is a decimal string such as "1.50".'))
        return str(data)

    def to_representation(self, value: Any) -> str:
        return money(Decimal(value))


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": AMOUNT_PATTERN, "example": "2.50"},
            {"type": "integer", "minimum": 1, "maximum": int(LARGEST_AMOUNT) - 1},
        ]
    }
)
class AmountField(DecimalStringField):
    """An amount in: a decimal string, parsed."""

    def to_internal_value(self, data: Any) -> Decimal:  # type: ignore[override]
        text = super().to_internal_value(data)
        try:
            amount = Decimal(text.strip())
        except InvalidOperation:
            raise self.refusal(_('The %(what)s must be a number such as "1.50".')) from None
        if not amount.is_finite() or amount <= 0:
            raise self.refusal(_("The %(what)s must be more than 0."))
        if amount >= LARGEST_AMOUNT:
            raise self.refusal(_("The %(what)s is too large."))
        if amount != amount.quantize(Decimal("0.001")):
            raise self.refusal(_("The %(what)s can have at most 3 decimal places."))
        return amount


SEAT_SCHEMA = {
    "oneOf": [
        {"type": "integer", "minimum": 1, "maximum": MAX_ID},
        {"type": "string", "pattern": NAME_PATTERN},
    ]
}


@extend_schema_field(SEAT_SCHEMA)
class SeatField(serializers.Field):
    """A player at the table: an id of a player of the circle, or a name (new names are
    added to the circle)."""

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, int) and not isinstance(data, bool):
            if not 1 <= data <= MAX_ID:
                raise serializers.ValidationError(_("There is no player %(id)s.") % {"id": data})
            return data
        if isinstance(data, str):
            if "\x00" in data:
                raise serializers.ValidationError(_("A name cannot hold a null character."))
            return data
        raise serializers.ValidationError(
            _("Each player is an id (a whole number) or a name (text).")
        )

    def to_representation(self, value: Any) -> Any:
        return value


class StringField(serializers.CharField):
    """Text in: a JSON string. DRF's CharField would quietly turn 5 into "5", which the
    schema (type string) does not allow."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "pattern": NAME_PATTERN})
class NameField(StringField):
    """A name as typed: spaces are tidied and a blank name refused by the services, with
    their own sentences; the schema says it needs something besides spaces."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)


@extend_schema_field(
    {"type": "array", "items": SEAT_SCHEMA, "minItems": FEWEST_PLAYERS, "maxItems": MOST_PLAYERS}
)
class PlayersField(serializers.ListField):
    """The players at the table, in seat order: ids or names (SeatField). A table of the
    wrong size is refused by the rules (TABLE_SIZE), as the schema's bounds say."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            child=SeatField(),
            max_length=MOST_PLAYERS,
            error_messages={"max_length": TABLE_SIZE},
            **kwargs,
        )


def _rename(fields: dict[str, serializers.Field], **names: str) -> dict[str, Any]:
    """Fields whose JSON names are Python keywords (`from`, `to`, `with`): declared under
    another name, exposed under the JSON name, in declaration order."""
    renamed = {}
    for name, field in fields.items():
        if name in names and field.source is None:
            field.source = name  # read from / write to the Python name
        renamed[names.get(name, name)] = field
    return renamed


# --- Circles and players ------------------------------------------------------------------


class NameInput(serializers.Serializer):
    name = NameField(help_text="A circle's name has at most 80 characters, a player's 40.")


class CircleOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class PlayerOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    circle = serializers.IntegerField(source="circle_id")


# --- Sessions -----------------------------------------------------------------------------


class OptionsIO(serializers.Serializer):
    guaransheed = serializers.BooleanField(default=False)
    got_to_get_in = serializers.BooleanField(default=False)
    instant_wins = serializers.BooleanField(default=False)
    trading = serializers.BooleanField(default=False)
    penalties = serializers.BooleanField(default=False)


class SessionInput(serializers.Serializer):
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


class SeatingInput(serializers.Serializer):
    players = PlayersField(help_text="Player ids or names, in seat order.")


class SeatOut(serializers.Serializer):
    id = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name")
    seat = serializers.IntegerField(source="position")


class CurrentDealOut(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()


class SessionOut(serializers.Serializer):
    """A session from `selectors.session_queryset()` (seats and open deal prefetched)."""

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

    @extend_schema_field(OptionsIO)
    def get_options(self, session: Session) -> dict[str, bool]:
        return OptionsIO(session.options).data

    @extend_schema_field(CurrentDealOut(allow_null=True))
    def get_current_deal(self, session: Session) -> dict[str, int] | None:
        open_deals = session.open_deals  # type: ignore[attr-defined]
        return CurrentDealOut(open_deals[0]).data if open_deals else None


# --- Deal events --------------------------------------------------------------------------


class EventBase(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    seq = serializers.IntegerField(read_only=True, help_text="Order on the deal.")
    type = serializers.CharField()

    def to_record(self) -> scoring.Record:
        raise NotImplementedError


COUNT = {"min_value": 0, "max_value": 1000}


class TwoBeatenEvent(EventBase):
    by = IdField(source="by_id", help_text="The player who beat the 2s.")
    owner = IdField(source="owner_id", help_text="The player whose 2s were beaten.")
    beaten_with = serializers.ChoiceField(choices=DealEvent.Beater.values)
    black = serializers.IntegerField(default=0, **COUNT)
    red = serializers.IntegerField(default=0, **COUNT)

    def get_fields(self) -> dict[str, Any]:
        return _rename(super().get_fields(), beaten_with="with")

    def to_record(self) -> scoring.Record:
        data = self.validated_data
        return scoring.TwoBeaten(
            by=data["by_id"],
            owner=data["owner_id"],
            beaten_with=scoring.Beater(data["beaten_with"]),
            black=data["black"],
            red=data["red"],
        )


class CutupBeatenEvent(EventBase):
    by = IdField(source="by_id", help_text="The player whose cutup or bomb beat it.")
    owner = IdField(source="owner_id", help_text="The player whose cutup was beaten.")

    def to_record(self) -> scoring.Record:
        return scoring.CutupBeaten(
            by=self.validated_data["by_id"], owner=self.validated_data["owner_id"]
        )


class HandEvent(EventBase):
    player = IdField(source="player_id")
    cards = serializers.IntegerField(help_text="Cards left in hand.", **COUNT)
    black_twos = serializers.IntegerField(default=0, **COUNT)
    red_twos = serializers.IntegerField(default=0, **COUNT)
    cutups = serializers.IntegerField(default=0, **COUNT)
    bombs = serializers.IntegerField(default=0, **COUNT)

    def to_record(self) -> scoring.Record:
        data = self.validated_data
        return scoring.Hand(
            player=data["player_id"],
            cards=data["cards"],
            black_twos=data["black_twos"],
            red_twos=data["red_twos"],
            cutups=data["cutups"],
            bombs=data["bombs"],
        )


@extend_schema_field({"type": "boolean", "enum": [True]})
class ApprovalField(serializers.BooleanField):
    """Everyone at the table approved: only `true` is accepted (see `validate_approved`)."""


class GuaransheedEvent(EventBase):
    player = IdField(source="player_id")
    blind = serializers.BooleanField(default=False)
    approved = ApprovalField(
        write_only=True, help_text="Everyone at the table approved it: must be true."
    )

    def validate_approved(self, approved: bool) -> bool:
        if not approved:
            raise serializers.ValidationError(
                _(
                    "A Guaransheed needs everyone at the table to approve it: ask them, "
                    "then send approved: true."
                )
            )
        return approved

    def to_record(self) -> scoring.Record:
        return scoring.Guaransheed(
            player=self.validated_data["player_id"], blind=self.validated_data["blind"]
        )


class InstantWinEvent(EventBase):
    player = IdField(source="player_id")
    kind = serializers.ChoiceField(choices=DealEvent.Kind.values)

    def to_record(self) -> scoring.Record:
        return scoring.InstantWin(
            player=self.validated_data["player_id"],
            kind=scoring.InstantWinKind(self.validated_data["kind"]),
        )


EVENTS: dict[str, type[EventBase]] = {
    DealEvent.Type.TWO_BEATEN: TwoBeatenEvent,
    DealEvent.Type.CUTUP_BEATEN: CutupBeatenEvent,
    DealEvent.Type.HAND: HandEvent,
    DealEvent.Type.GUARANSHEED: GuaransheedEvent,
    DealEvent.Type.INSTANT_WIN: InstantWinEvent,
}
EVENT_TYPES = ", ".join(EVENTS)

EventSchema = PolymorphicProxySerializer(
    component_name="DealEvent",
    serializers={str(kind): serializer for kind, serializer in EVENTS.items()},
    resource_type_field_name="type",
)
EventListSchema = PolymorphicProxySerializer(
    component_name="DealEvent",
    serializers={str(kind): serializer for kind, serializer in EVENTS.items()},
    resource_type_field_name="type",
    many=True,
)


def parse_event(data: Any) -> scoring.Record:
    """One event from a request body, as a scoring record; ValidationError if malformed."""
    if not isinstance(data, dict):
        raise serializers.ValidationError(_("An event is a JSON object with a type."))
    kind = data.get("type")
    if not isinstance(kind, str):
        raise serializers.ValidationError(
            _("The event type is missing; it must be one of %(types)s.") % {"types": EVENT_TYPES}
        )
    serializer_class = EVENTS.get(kind)
    if serializer_class is None:
        raise serializers.ValidationError(
            _("The event type is %(type)s; it must be one of %(types)s.")
            % {"type": f'"{kind}"'[:60], "types": EVENT_TYPES}
        )
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.to_record()


@extend_schema_field(EventSchema)
class EventField(serializers.Field):
    def to_internal_value(self, data: Any) -> scoring.Record:
        return parse_event(data)

    def to_representation(self, event: DealEvent) -> dict[str, Any]:
        return event_data(event)


def event_data(event: DealEvent) -> dict[str, Any]:
    return EVENTS[event.type](event).data


# --- Deals --------------------------------------------------------------------------------


class TapInput(serializers.Serializer):
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


class CorrectionInput(serializers.Serializer):
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
        return _rename(super().get_fields(), payer="from", payee="to")


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
    """A deal from `selectors.deal_detail`: an open deal shows provisional points and the
    ledger lines already certain."""

    id = serializers.IntegerField(source="view.deal.id")
    session = serializers.IntegerField(source="view.deal.session_id")
    number = serializers.IntegerField(source="view.deal.number")
    status = serializers.ChoiceField(choices=Deal.Status.values, source="view.deal.status")
    why = serializers.CharField(source="view.why")
    dealer = serializers.IntegerField(source="view.deal.dealer_id", allow_null=True)
    leader = serializers.IntegerField(source="view.deal.leader_id", allow_null=True)
    winner = serializers.IntegerField(source="view.deal.winner_id", allow_null=True)
    loser = serializers.IntegerField(source="view.deal.loser_id", allow_null=True)
    next_deal = serializers.IntegerField(source="view.next_deal", allow_null=True)
    players = DealPlayerOut(many=True)
    taps = TapOut(many=True, source="view.taps")
    events = serializers.ListField(child=EventField(), source="view.events")
    points = serializers.DictField(
        child=serializers.IntegerField(), source="view.points", help_text="Player id -> points."
    )
    ledger = serializers.SerializerMethodField()
    trading = TradingOut(many=True, source="view.deal.trading")
    opened_at = serializers.DateTimeField(source="view.deal.opened_at")
    closed_at = serializers.DateTimeField(source="view.deal.closed_at", allow_null=True)

    @extend_schema_field(LedgerLineOut(many=True))
    def get_ledger(self, detail: DealDetail) -> list[dict[str, Any]]:
        return LedgerLineOut(detail.view.ledger, many=True).data


# --- Standings and settlement -------------------------------------------------------------


class StandingRowOut(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.IntegerField()
    deals = serializers.IntegerField()
    wins = serializers.IntegerField()
    podiums = serializers.IntegerField()
    losses = serializers.IntegerField()
    average_place = serializers.DecimalField(
        max_digits=6, decimal_places=2, allow_null=True, read_only=True
    )
    net = MoneyField()
    twos_beaten_made = serializers.IntegerField()
    twos_beaten_suffered = serializers.IntegerField()
    guaransheeds_won = serializers.IntegerField()
    guaransheeds_lost = serializers.IntegerField()


class StandingsOut(serializers.Serializer):
    rows = StandingRowOut(many=True)


class BalanceOut(serializers.Serializer):
    player = serializers.IntegerField()
    net = MoneyField()


class TransferOut(serializers.Serializer):
    payer = serializers.IntegerField()
    payee = serializers.IntegerField()
    amount = MoneyField()
    paid = serializers.BooleanField()
    payment = serializers.IntegerField(allow_null=True, help_text="The payment marking it paid.")

    def get_fields(self) -> dict[str, Any]:
        return _rename(super().get_fields(), payer="from", payee="to")


class SettlementOut(serializers.Serializer):
    currency = serializers.CharField()
    balances = BalanceOut(many=True)
    transfers = TransferOut(many=True)


def settlement_data(session: Session, settlement: Settlement) -> dict[str, Any]:
    balances = [
        {"player": player, "net": net} for player, net in sorted(settlement.balances.items())
    ]
    return SettlementOut(
        {"currency": session.currency, "balances": balances, "transfers": settlement.transfers}
    ).data


def standings_data(rows: list[StandingRow]) -> dict[str, Any]:
    return StandingsOut({"rows": rows}).data


class TransferInput(serializers.Serializer):
    payer = IdField()
    payee = IdField()
    amount = AmountField(what=gettext_lazy("amount"))

    def get_fields(self) -> dict[str, Any]:
        return _rename(super().get_fields(), payer="from", payee="to")

    def transfer(self) -> TransferView:
        data = self.validated_data
        return TransferView(payer=data["payer"], payee=data["payee"], amount=data["amount"])


# --- Share links and sign-in --------------------------------------------------------------


class ShareLinkInput(serializers.Serializer):
    role = serializers.ChoiceField(choices=ShareLink.Role.values)


class ShareLinkOut(serializers.Serializer):
    id = serializers.IntegerField()
    session = serializers.IntegerField(source="session_id")
    role = serializers.ChoiceField(choices=ShareLink.Role.values)
    token = serializers.CharField(help_text='Send as "Authorization: Share <token>".')
    active = serializers.BooleanField(source="is_active")
    created_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)


class TokenInput(serializers.Serializer):
    username = StringField()
    password = StringField(trim_whitespace=False, style={"input_type": "password"})


class TokenOut(serializers.Serializer):
    token = serializers.CharField()


class ErrorOut(serializers.Serializer):
    detail = serializers.CharField(help_text="A sentence saying what went wrong.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="For invalid input: the messages per field.",
    )
