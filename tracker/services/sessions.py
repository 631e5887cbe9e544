"""Sessions: start one (players seated, rules checked, the first deal open), end one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.utils.translation import gettext_noop

import scoring
from tracker.access import Actor
from tracker.errors import Conflict, Invalid, refused_by_rules
from tracker.models import Circle, Deal, Session
from tracker.money import ISO_CURRENCIES
from tracker.services.circles import clean_name
from tracker.services.deals import deal_end
from tracker.services.locks import locked_session
from tracker.services.players import resolve_players, seat
from tracker.services.results import open_deal

OPTION_FIELDS = (
    "guaransheed",
    "got_to_get_in",
    "instant_wins",
    "trading",
    "penalties",
    "five_consecutive_pairs",
)
ALREADY_ENDED = gettext_noop("This session has already ended.")


def clean_currency(currency: str) -> str:
    currency = str(currency).strip().upper()
    if len(currency) != 3 or not currency.isascii() or not currency.isalpha():
        raise Invalid(gettext_noop("The currency is a 3-letter code such as USD, EUR or VND."))
    if currency not in ISO_CURRENCIES:
        raise Invalid(
            gettext_noop("%(typed)s is no currency's code: use one such as USD, EUR or VND."),
            code="unknown_currency",
            typed=currency,
        )
    return currency


# What a stake is written as (the API schema's pattern): ASCII digits, and a fraction after
# a dot. Python's Decimal reads more ("1_000", "١", "1e6", "NaN", " 1"); none of it is a
# stake here.
STAKE_TEXT = re.compile(r"[0-9]+(\.[0-9]+)?")
NOT_A_STAKE = gettext_noop("The stake must be a number such as 1.00.")


def clean_stake(stake: Decimal | str | int) -> Decimal:
    if isinstance(stake, float):
        raise Invalid(
            gettext_noop('The stake is sent as a decimal string such as "1.00", not a float.')
        )
    text = str(stake)
    # "-1" is a number, just not a stake: the rules say why ("more than 0").
    if isinstance(stake, str) and not STAKE_TEXT.fullmatch(text.removeprefix("-")):
        raise Invalid(NOT_A_STAKE)
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise Invalid(NOT_A_STAKE) from None
    try:
        scoring.check_stake(value)
    except scoring.ScoringError as error:
        raise refused_by_rules(error) from None
    return value


@transaction.atomic
def session_create(
    *,
    circle: Circle,
    name: str,
    players: Sequence[int | str],
    format: str = scoring.Format.PODIUM,
    stake_rule: str = scoring.StakeRule.LOSER_PAYS,
    stake: Decimal | str = Decimal("1.00"),
    currency: str = "USD",
    hand_size: int = 13,
    options: scoring.Options | None = None,
    actor: Actor,
) -> Session:
    """Seat the players in order, check the rule set, and open the first deal."""
    cleaned_stake = clean_stake(stake)
    try:
        rules = scoring.Rules(
            format=scoring.Format(format),
            stake_rule=scoring.StakeRule(stake_rule),
            stake=cleaned_stake,
            options=options or scoring.Options(),
            hand_size=hand_size,
        )
    except ValueError:
        raise Invalid(gettext_noop("Unknown format or stake rule.")) from None
    currency = clean_currency(currency)
    seated = resolve_players(circle, players)
    try:
        scoring.check_start(rules, len(seated))
    except scoring.ScoringError as error:
        raise refused_by_rules(error) from None
    session = Session.objects.create(
        circle=circle,
        name=clean_name(name, what="session"),
        format=rules.format.value,
        stake_rule=rules.stake_rule.value,
        stake=rules.stake,
        currency=currency,
        hand_size=rules.hand_size,
        created_by=actor.user,
        **{field: getattr(rules.options, field) for field in OPTION_FIELDS},
    )
    seat(session, seated, actor)
    open_deal(session=session, number=1, players=seated, opening=scoring.Opening(None, None))
    return session


@transaction.atomic
def session_end(*, session_id: int, actor: Actor) -> Session:
    """End the session: End match on its open deal (which names who ended it)."""
    session = locked_session(session_id)
    deal = session.deals.filter(status=Deal.Status.OPEN).first()
    if deal is None:
        raise Conflict(ALREADY_ENDED, code="session_ended")
    deal_end(deal_id=deal.pk, actor=actor)
    session.refresh_from_db()
    return session
