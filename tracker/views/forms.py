"""The pages' forms: they read what a person sent; the services decide whether it stands.

Forms check shape only (a number is a number, a box that must be ticked is ticked). The
rules of the game — who may be tapped, what a deal holds — are refused by the services,
whose message the page shows. Every form that writes carries a `key` (see `KeyedForm`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

import scoring
from tracker.models import Player
from tracker.selectors import DayRange, NewSession

MOST_SEATS = 8

FORMAT_CHOICES = [
    (scoring.Format.PODIUM.value, _("Podium: 3, 2 and 1 points")),
    (scoring.Format.WINNER_TAKES_ALL.value, _("Winner takes all")),
]
STAKE_RULE_CHOICES = [
    (scoring.StakeRule.LOSER_PAYS.value, _("Loser pays everyone")),
    (scoring.StakeRule.PER_CARD.value, _("Pay by the card")),
    (scoring.StakeRule.PRO_PLAY.value, _("Pro-Play")),
    (scoring.StakeRule.NONE.value, _("No stakes, points only")),
]
BEATER_CHOICES = [
    (scoring.Beater.CUTUP.value, _("Cutup")),
    (scoring.Beater.BOMB.value, _("Bomb")),
]
INSTANT_WIN_CHOICES = [
    (scoring.InstantWinKind.SIX_PAIRS.value, _("Six pairs")),
    (scoring.InstantWinKind.FIVE_CONSECUTIVE_PAIRS.value, _("5 consecutive pairs (no 2s)")),
    (scoring.InstantWinKind.THREE_TRIPLES.value, _("Three triples in a row")),
    (scoring.InstantWinKind.DRAGON.value, _("Dragon (3 to A)")),
    (scoring.InstantWinKind.FOUR_TWOS.value, _("Four 2s")),
]
# The session options, with a line saying what each one does.
OPTION_FIELDS = [
    ("penalties", _("2s and bombs pay"), _("Chopped 2s, beaten cutups, unused 2s and bombs")),
    ("guaransheed", _("Guaransheed"), _("A player bets before the deal that they finish first")),
    ("got_to_get_in", _("Got to Get In"), _("Whoever has not played a card pays the player out")),
    (
        "instant_wins",
        _("Instant wins"),
        _("Six pairs, three triples, dragon, four 2s; one pack only (2 to 4 players)"),
    ),
    ("trading", _("Trading reminders"), _("The loser gives the winner their best cards")),
    (
        "five_consecutive_pairs",
        _("5 consecutive pairs"),
        _("Alternate instant win hand: five pairs in a row, not including 2s"),
    ),
]


MAX_ID = 2**63 - 1  # the largest id a database id column holds


class IdField(forms.IntegerField):
    """An id sent by a form: ASCII digits, from 1 to what an id column holds. Anything
    else ("abc", "1.5", "٣", a number past the column) is refused here, not by the
    database."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> int | None:
        if isinstance(value, str) and value.strip() and not value.strip().isascii():
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class PageForm(forms.Form):
    """`?page=` of a paged list: a whole number from 1 (left out: the first page)."""

    page = IdField(required=False, max_value=10**6)


class KeyedForm(forms.Form):
    """A form that writes: it carries the idempotency key its page was rendered with, so
    a retried or doubled submit is applied once (`tracker.views.doors.write`)."""

    key = forms.CharField(max_length=64, required=False, widget=forms.HiddenInput)


class SignUpForm(UserCreationForm):
    """An account; the view gives it a circle of its own."""


class TokenRevokeForm(KeyedForm):
    """Revoke one API token (`token`), or every one (no `token`)."""

    token = IdField(required=False)


class MemberForm(KeyedForm):
    """A member of the circle, by account id (remove, hand over)."""

    member = IdField()


INVITE_DAYS_CHOICES = [(1, _("1 day")), (7, _("7 days")), (30, _("30 days"))]
INVITE_USES_CHOICES = [("1", _("One person")), ("10", _("Up to 10 people")), ("any", _("Anyone"))]


class InviteForm(KeyedForm):
    """A new invite: how long it works, and for how many."""

    days = forms.TypedChoiceField(
        label=_("Works for"), choices=INVITE_DAYS_CHOICES, coerce=int, initial=7
    )
    uses = forms.ChoiceField(label=_("For"), choices=INVITE_USES_CHOICES, initial="1")

    def max_uses(self) -> int | None:
        uses = self.cleaned_data["uses"]
        return None if uses == "any" else int(uses)


class InviteRevokeForm(KeyedForm):
    invite = IdField()


class CircleForm(KeyedForm):
    name = forms.CharField(label=_("Circle name"), max_length=80)


class PlayerForm(KeyedForm):
    name = forms.CharField(label=_("Player name"), max_length=40)


class NewSessionForm(KeyedForm):
    """Who sits where, and the rules. Every field has a default, so "Start" is one tap."""

    name = forms.CharField(label=_("Session name"), max_length=80)
    format = forms.ChoiceField(label=_("Format"), choices=FORMAT_CHOICES, widget=forms.RadioSelect)
    stake_rule = forms.ChoiceField(
        label=_("Stakes"), choices=STAKE_RULE_CHOICES, widget=forms.RadioSelect
    )
    stake = forms.CharField(
        label=_("Stake"),
        max_length=20,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    currency = forms.CharField(
        label=_("Currency"),
        min_length=3,
        max_length=3,
        widget=forms.TextInput(
            attrs={"autocapitalize": "characters", "autocomplete": "off", "size": 3}
        ),
    )
    hand_size = forms.TypedChoiceField(
        label=_("Cards each"),
        coerce=int,
        choices=[(size, str(size)) for size in range(13, 21)],
        help_text=_("13; up to 17 with three players; more with two decks"),
    )
    penalties = forms.BooleanField(required=False)
    guaransheed = forms.BooleanField(required=False)
    got_to_get_in = forms.BooleanField(required=False)
    instant_wins = forms.BooleanField(required=False)
    trading = forms.BooleanField(required=False)
    five_consecutive_pairs = forms.BooleanField(required=False)

    def __init__(
        self, *args: Any, players: Sequence[Player], new_slots: int, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.circle_players = list(players)
        self.new_slots = new_slots
        seat_choices = [("", _("Sits out"))] + [(n, str(n)) for n in range(1, MOST_SEATS + 1)]
        for player in self.circle_players:
            self.fields[f"seat_{player.pk}"] = forms.TypedChoiceField(
                label=player.name,
                choices=seat_choices,
                coerce=int,
                empty_value=None,
                required=False,
            )
        for slot in range(1, new_slots + 1):
            self.fields[f"new_{slot}"] = forms.CharField(
                label=_("New player %(number)s") % {"number": slot},
                max_length=40,
                required=False,
                widget=forms.TextInput(attrs={"autocomplete": "off"}),
            )
        for name, label, help_text in OPTION_FIELDS:
            self.fields[name].label = label
            self.fields[name].help_text = help_text

    @staticmethod
    def defaults(start: NewSession) -> dict[str, Any]:
        """The last session's table and rules, so the same friends start again in one tap;
        the first session seats the circle's first players."""
        # Today as each language names a night: "Fri 4 Dec"; "Thứ 6, 4/12" (Django's
        # "Thứ 6 4 Tháng 12" read as a row of numbers, cut to "Thứ 6 4 T…" on the tap screen).
        today = formats.date_format(timezone.localdate(), pgettext("a new session's name", "D j M"))
        initial: dict[str, Any] = {
            "name": today,
            "format": scoring.Format.PODIUM.value,
            "stake_rule": scoring.StakeRule.LOSER_PAYS.value,
            "stake": "1.00",
            "currency": "USD",
            "hand_size": 13,
        }
        last = start.last
        if last is None:
            for position, player in enumerate(start.players[:MOST_SEATS], start=1):
                initial[f"seat_{player.pk}"] = position
            return initial
        initial.update(
            format=last.format,
            stake_rule=last.stake_rule,
            stake=stake_text(last.stake),
            currency=last.currency,
            hand_size=last.hand_size,
            **{name: getattr(last, name) for name, _label, _help in OPTION_FIELDS},
        )
        for seat in last.seats.all():
            initial[f"seat_{seat.player_id}"] = seat.position
        return initial

    def clean_stake(self) -> str:
        return typed_stake(self.cleaned_data["stake"])

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{player.pk}"] for player in self.circle_players]

    def new_player_fields(self) -> list[forms.BoundField]:
        return [self[f"new_{slot}"] for slot in range(1, self.new_slots + 1)]

    def option_fields(self) -> list[forms.BoundField]:
        return [self[name] for name, _label, _help in OPTION_FIELDS]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        seated = sorted(
            (cleaned[f"seat_{player.pk}"], player.name.lower(), player.pk)
            for player in self.circle_players
            if cleaned.get(f"seat_{player.pk}")
        )
        new_names = [
            " ".join(cleaned.get(f"new_{slot}", "").split())
            for slot in range(1, self.new_slots + 1)
        ]
        players: list[int | str] = [pk for _seat, _name, pk in seated]
        players += [name for name in new_names if name]
        if len(players) < 2:
            raise forms.ValidationError(_("Seat at least two players."))
        if len(players) > MOST_SEATS:
            raise forms.ValidationError(_("A table has at most 8 players."))
        cleaned["players"] = players
        cleaned["options"] = scoring.Options(
            **{name: bool(cleaned.get(name)) for name, _label, _help in OPTION_FIELDS}
        )
        return cleaned


class LeaderboardRangeForm(forms.Form):
    """The leaderboard's date range, from the query string: both days count (inclusive),
    either may be left out."""

    since = forms.DateField(
        required=False,
        label=_("From"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    until = forms.DateField(
        required=False,
        label=_("To"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # `<input type="date">` always sends ISO dates, whatever the page's language.
        for name in ("since", "until"):
            self.fields[name].input_formats = ["%Y-%m-%d"]
            self.fields[name].error_messages["invalid"] = _(
                "Write dates as year-month-day, like 2026-11-30."
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("The first day is after the last day."))
        return cleaned

    def days(self) -> DayRange:
        """The chosen days; a form that is not valid is all time."""
        if not self.is_valid():
            return DayRange()
        return DayRange(since=self.cleaned_data["since"], until=self.cleaned_data["until"])


STAKE_UNCLEAR = _("Type the stake with at most 2 decimal places, such as 0.50 or 10,000.")


def grouped_whole() -> str:
    """A whole number with its thousands grouped the reader's way ("10,000" in English,
    "10.000" in Vietnamese), as a pattern: a stake and a payment's amount read it alike.
    No group after a leading zero: "0,500" is a half typed with three decimals, never 500."""
    grouping = re.escape(str(formats.get_format("THOUSAND_SEPARATOR")))
    return rf"[1-9][0-9]{{0,2}}(?:{grouping}[0-9]{{3}})+"


def typed_stake(text: str) -> str:
    """A stake as a person types it, written as the service reads it ("10000", "0.50"):
    thousands grouped the reader's way ("10,000" in English, "10.000" in Vietnamese, where
    it was read as 10: a night in dong scored a thousand times too small), and a decimal
    comma or point before at most 2 decimals ("0,50" is how Vietnamese writes 0.50), as a
    payment's amount is read (`TypedAmountField`). Three digits or more after a mark that
    does not group thousands here ("10.000" in English: ten, or ten thousand?) and a zero
    before a group ("0,500": a half, not five hundred) are refused rather than guessed.
    Anything else is passed on as typed, for the service to refuse with its sentence."""
    text = text.strip()
    decimal = re.escape(str(formats.get_format("DECIMAL_SEPARATOR")))
    grouped = re.fullmatch(rf"({grouped_whole()})(?:{decimal}([0-9]{{1,2}}))?", text)
    if grouped:
        whole = re.sub(r"[^0-9]", "", grouped[1])
        return f"{whole}.{grouped[2]}" if grouped[2] else whole
    plain = re.fullmatch(r"([0-9]*)[.,]([0-9]+)", text)
    if plain and len(plain[2]) > 2:
        raise forms.ValidationError(STAKE_UNCLEAR, code="invalid")
    if plain:
        return f"{plain[1] or '0'}.{plain[2]}"
    return text


def stake_text(stake: Decimal) -> str:
    """A stake written the reader's way, as `typed_stake` reads it back: "10.000" in
    Vietnamese (not "10000.00"), "1.00", "0.375"."""
    places = max(2, -stake.normalize().as_tuple().exponent)  # type: ignore[operator]
    if stake == stake.to_integral_value() and stake >= 1000:
        places = 0
    return formats.number_format(stake, decimal_pos=places, use_l10n=True, force_grouping=True)
