"""The pages' forms: they read what a person sent; the services decide whether it stands.

Forms check shape only (a number is a number, a box that must be ticked is ticked). The
rules of the game — who may be tapped, what a deal holds — are refused by the services,
whose message the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

import scoring
from tracker.models import DealEvent, Player

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
    (scoring.InstantWinKind.THREE_TRIPLES.value, _("Three triples in a row")),
    (scoring.InstantWinKind.DRAGON.value, _("Dragon (3 to A)")),
    (scoring.InstantWinKind.FOUR_TWOS.value, _("Four 2s")),
]
# The session options, with a line saying what each one does.
OPTION_FIELDS = [
    ("penalties", _("2s and bombs pay"), _("Chopped 2s, beaten cutups, unused 2s and bombs")),
    ("guaransheed", _("Guaransheed"), _("A player bets before the deal that they finish first")),
    ("got_to_get_in", _("Got to Get In"), _("Whoever has not played a card pays the player out")),
    ("instant_wins", _("Instant wins"), _("Six pairs, three triples, dragon, four 2s")),
    ("trading", _("Trading reminders"), _("The loser gives the winner their best cards")),
]


class SignUpForm(UserCreationForm):
    """An account; the view gives it a circle of its own."""


class CircleForm(forms.Form):
    name = forms.CharField(label=_("Circle name"), max_length=80)


class PlayerForm(forms.Form):
    name = forms.CharField(label=_("Player name"), max_length=40)


class NewSessionForm(forms.Form):
    """Who sits where, and the rules. Every field has a default, so "Start" is one tap."""

    name = forms.CharField(label=_("Session name"), max_length=80)
    format = forms.ChoiceField(label=_("Format"), choices=FORMAT_CHOICES, widget=forms.RadioSelect)
    stake_rule = forms.ChoiceField(
        label=_("Stakes"), choices=STAKE_RULE_CHOICES, widget=forms.RadioSelect
    )
    stake = forms.CharField(
        label=_("Stake"),
        max_length=12,
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

    def clean_stake(self) -> str:
        # A decimal comma (1,50) is how Vietnamese writes 1.50; the service reads the dot.
        stake = self.cleaned_data["stake"].strip()
        if "," in stake and "." not in stake:
            stake = stake.replace(",", ".")
        return stake

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


class IdListField(forms.Field):
    """Several ids under one name (checkboxes): `not_played=3&not_played=5`."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[int]:
        if not value:
            return []
        try:
            return [int(item) for item in value]
        except (TypeError, ValueError):
            raise forms.ValidationError(_("Pick players from the list.")) from None


class TableForm(forms.Form):
    """What every write from the tap screen carries: the deal it was rendered for and
    the render's idempotency key, so a retried tap is applied once."""

    deal = forms.IntegerField()
    key = forms.CharField(max_length=64, required=False)


class TapForm(TableForm):
    player = forms.IntegerField(required=False)
    loser = forms.IntegerField(required=False)
    not_played = IdListField(required=False)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("player") is None and cleaned.get("loser") is None:
            raise forms.ValidationError(_("Tap a player."))
        return cleaned


def _count(most: int) -> forms.IntegerField:
    return forms.IntegerField(min_value=0, max_value=most, required=False)


class TwoBeatenForm(TableForm):
    by = forms.IntegerField(error_messages={"required": _("Pick who beat the 2.")})
    owner = forms.IntegerField(error_messages={"required": _("Pick whose 2 it was.")})
    beaten_with = forms.ChoiceField(
        choices=BEATER_CHOICES, error_messages={"required": _("Pick cutup or bomb.")}
    )
    black = _count(4)
    red = _count(4)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("by") is not None and cleaned.get("by") == cleaned.get("owner"):
            raise forms.ValidationError(_("Pick two different players."))
        if not (cleaned.get("black") or 0) + (cleaned.get("red") or 0):
            raise forms.ValidationError(_("Count at least one 2, black or red."))
        return cleaned

    def record(self) -> scoring.Record:
        return scoring.TwoBeaten(
            by=self.cleaned_data["by"],
            owner=self.cleaned_data["owner"],
            beaten_with=scoring.Beater(self.cleaned_data["beaten_with"]),
            black=self.cleaned_data.get("black") or 0,
            red=self.cleaned_data.get("red") or 0,
        )


class CutupBeatenForm(TableForm):
    by = forms.IntegerField(error_messages={"required": _("Pick who beat the cutup.")})
    owner = forms.IntegerField(error_messages={"required": _("Pick whose cutup it was.")})

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("by") is not None and cleaned.get("by") == cleaned.get("owner"):
            raise forms.ValidationError(_("Pick two different players."))
        return cleaned

    def record(self) -> scoring.Record:
        return scoring.CutupBeaten(by=self.cleaned_data["by"], owner=self.cleaned_data["owner"])


class GuaransheedForm(TableForm):
    player = forms.IntegerField(error_messages={"required": _("Pick who declares.")})
    blind = forms.BooleanField(required=False)
    approved = forms.BooleanField(
        error_messages={"required": _("Everyone at the table must approve: tick the box.")}
    )

    def record(self) -> scoring.Record:
        return scoring.Guaransheed(
            player=self.cleaned_data["player"], blind=self.cleaned_data["blind"]
        )


class HandForm(TableForm):
    player = forms.IntegerField()
    cards = forms.IntegerField(
        min_value=0, max_value=20, error_messages={"required": _("Tap how many cards are left.")}
    )
    black_twos = _count(4)
    red_twos = _count(4)
    cutups = _count(3)
    bombs = _count(5)

    def record(self) -> scoring.Record:
        data = self.cleaned_data
        return scoring.Hand(
            player=data["player"],
            cards=data["cards"],
            black_twos=data.get("black_twos") or 0,
            red_twos=data.get("red_twos") or 0,
            cutups=data.get("cutups") or 0,
            bombs=data.get("bombs") or 0,
        )


class InstantWinForm(TableForm):
    player = forms.IntegerField(error_messages={"required": _("Pick who won outright.")})
    kind = forms.ChoiceField(
        choices=INSTANT_WIN_CHOICES, error_messages={"required": _("Pick the hand.")}
    )

    def record(self) -> scoring.Record:
        return scoring.InstantWin(
            player=self.cleaned_data["player"],
            kind=scoring.InstantWinKind(self.cleaned_data["kind"]),
        )


EVENT_FORMS: dict[str, type[TableForm]] = {
    DealEvent.Type.TWO_BEATEN: TwoBeatenForm,
    DealEvent.Type.CUTUP_BEATEN: CutupBeatenForm,
    DealEvent.Type.GUARANSHEED: GuaransheedForm,
    DealEvent.Type.HAND: HandForm,
    DealEvent.Type.INSTANT_WIN: InstantWinForm,
}


class CorrectionForm(forms.Form):
    """A filed deal's finishing order, again; events to take out; why."""

    reason = forms.CharField(label=_("Why"), max_length=200, required=False)

    def __init__(
        self,
        *args: Any,
        players: Sequence[tuple[int, str]],
        places: int,
        ask_loser: bool,
        events: Sequence[tuple[int, str]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "—"), *[(pk, name) for pk, name in players]]
        self.places = places
        for place in range(1, places + 1):
            self.fields[f"place_{place}"] = forms.TypedChoiceField(
                choices=choices, coerce=int, empty_value=None, required=False
            )
        if ask_loser:
            self.fields["loser"] = forms.TypedChoiceField(
                label=_("Loser (last holding cards)"),
                choices=choices,
                coerce=int,
                empty_value=None,
                required=False,
            )
        if events:
            self.fields["remove"] = forms.TypedMultipleChoiceField(
                label=_("Take out"),
                choices=list(events),
                coerce=int,
                required=False,
                widget=forms.CheckboxSelectMultiple,
            )

    def place_fields(self) -> list[forms.BoundField]:
        return [self[f"place_{place}"] for place in range(1, self.places + 1)]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        order = [cleaned.get(f"place_{place}") for place in range(1, self.places + 1)]
        while order and order[-1] is None:
            order.pop()
        if None in order:
            raise forms.ValidationError(_("Fill the places in order, without gaps."))
        if len(set(order)) != len(order):
            raise forms.ValidationError(_("A player can finish in one place only."))
        cleaned["order"] = order
        return cleaned


class CorrectionAddForm(forms.Form):
    """What goes with an event added to a filed deal: why (optional)."""

    reason = forms.CharField(label=_("Why"), max_length=200, required=False)


class SeatingForm(TableForm):
    """One change to who sits where, between deals: move a player up or down a seat,
    let one sit out, seat a circle player, or seat a new player by name."""

    up = forms.IntegerField(required=False)
    down = forms.IntegerField(required=False)
    drop = forms.IntegerField(required=False)
    add = forms.IntegerField(required=False)
    name = forms.CharField(label=_("New player"), max_length=40, required=False)

    ACTIONS = ("up", "down", "drop", "add", "name")

    def clean_name(self) -> str:
        return " ".join(self.cleaned_data.get("name", "").split())

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        chosen = [action for action in self.ACTIONS if cleaned.get(action) not in (None, "")]
        if len(chosen) != 1:
            raise forms.ValidationError(_("Pick one change to make."))
        cleaned["action"] = chosen[0]
        return cleaned

    def seating(self, current: Sequence[int]) -> list[int | str]:
        """The seat order after this change, from the order the table has now."""
        action = self.cleaned_data["action"]
        target = self.cleaned_data[action]
        order: list[int | str] = list(current)
        if action == "name":
            return [*order, target]
        if action == "add":
            return order if target in order else [*order, target]
        if target not in order:
            raise forms.ValidationError(_("That player is not at the table any more."))
        index = order.index(target)
        if action == "drop":
            del order[index]
        elif action == "up" and index > 0:
            order[index - 1], order[index] = order[index], order[index - 1]
        elif action == "down" and index < len(order) - 1:
            order[index + 1], order[index] = order[index], order[index + 1]
        return order


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
