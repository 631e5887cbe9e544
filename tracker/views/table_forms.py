"""The forms that record on a deal, from the tap screen, the deal page and the players page:
what each sends, read into scoring records. Shape only: the rules refuse the rest."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

import scoring
from scoring.vietqr import BANKS
from tracker.models import DealEvent
from tracker.records import event_record
from tracker.services.players import SEAT_CHANGES
from tracker.views.forms import (
    BEATER_CHOICES,
    INSTANT_WIN_CHOICES,
    IdField,
    KeyedForm,
    grouped_whole,
)


class IdListField(forms.Field):
    """Several ids under one name (checkboxes): `not_played=3&not_played=5`."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[int]:
        if not value:
            return []
        ids = IdField()
        try:
            return [ids.clean(item) for item in value]
        except forms.ValidationError:
            raise forms.ValidationError(_("Pick players from the list.")) from None


class TableForm(KeyedForm):
    """What every write about a deal carries: the deal it was rendered for, and its key."""

    deal = IdField()


class UndoForm(TableForm):
    """Undo; `reopen` says the person confirmed re-opening a filed deal. `undoes` is the
    record the screen's Undo named: "3:2", deal 3's second record (`services.deal_undo`
    refuses the undo if the deal's last record is another one now). Absent (a form from
    before it was drawn): not checked."""

    reopen = forms.BooleanField(required=False)
    undoes = forms.CharField(required=False, max_length=30, strip=True)

    def clean_undoes(self) -> tuple[int, int] | None:
        text = self.cleaned_data["undoes"]
        if not text:
            return None
        match = re.fullmatch(r"([1-9][0-9]{0,8}):([1-9][0-9]{0,4})", text)
        if match is None:
            raise forms.ValidationError(_("Load the screen again: its Undo was not readable."))
        return int(match[1]), int(match[2])


class TapForm(TableForm):
    player = IdField(required=False)
    loser = IdField(required=False)
    not_played = IdListField(required=False)
    # Who was out on the deal as the screen showed it, in order ("12,9"; "" for nobody):
    # the tap is refused if the deal has moved on since (`services.deal_tap`). Absent
    # (a form from before it was drawn): not checked.
    # Not "after": a form input of that name hides the form element's own after() in the
    # browser (`form.after`), which the offline screen calls.
    out_before = forms.CharField(required=False, max_length=200, strip=True)

    def clean_out_before(self) -> list[int] | None:
        if "out_before" not in self.data:
            return None
        text = self.cleaned_data["out_before"]
        ids = IdField()
        try:
            return [ids.clean(item) for item in text.split(",")] if text else []
        except forms.ValidationError:
            raise forms.ValidationError(_("Pick players from the list.")) from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("player") is None and cleaned.get("loser") is None:
            raise forms.ValidationError(_("Tap a player."))
        # The loser's button sends `loser`, every other button `player`.
        cleaned["tapped"] = (
            cleaned["loser"] if cleaned.get("loser") is not None else cleaned["player"]
        )
        cleaned["not_played"] = sorted(cleaned.get("not_played") or [])
        return cleaned


def _count(most: int) -> forms.IntegerField:
    return forms.IntegerField(min_value=0, max_value=most, required=False)


class EventForm(TableForm):
    """An event's form: its `type` names the scoring fact its fields make; `rules` are the
    session's (a hand's form reads whether its card count pays)."""

    type = forms.ChoiceField(choices=DealEvent.Type.choices)
    # How many records the deal held as the screen showed it: the same event recorded
    # since is refused, not counted twice (`services.deal_event_record`). Absent: not
    # checked (the deal page's additions, which are corrections, never send it).
    seen = forms.IntegerField(required=False, min_value=0, max_value=10_000)

    def __init__(self, *args: Any, rules: scoring.Rules | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules = rules

    def record(self) -> scoring.Record:
        return event_record(self.cleaned_data["type"], self.cleaned_data)


class TwoBeatenForm(EventForm):
    by = IdField(error_messages={"required": _("Pick who beat the 2.")})
    owner = IdField(error_messages={"required": _("Pick whose 2 it was.")})
    beaten_with = forms.ChoiceField(
        choices=BEATER_CHOICES, error_messages={"required": _("Pick cutup or bomb.")}
    )
    # The sheets send which 2s in one tap, as "black-red" ("1-0": one black 2); black and
    # red counts on their own are read too.
    twos = forms.RegexField(regex=r"^[0-3]-[0-3]$", required=False)
    black = _count(4)
    red = _count(4)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("by") is not None and cleaned.get("by") == cleaned.get("owner"):
            raise forms.ValidationError(_("Pick two different players."))
        if cleaned.get("twos"):
            cleaned["black"], cleaned["red"] = (int(n) for n in cleaned["twos"].split("-"))
        if not (cleaned.get("black") or 0) + (cleaned.get("red") or 0):
            raise forms.ValidationError(_("Pick which 2s were chopped."))
        return cleaned


class CutupBeatenForm(EventForm):
    by = IdField(error_messages={"required": _("Pick who beat the cutup.")})
    owner = IdField(error_messages={"required": _("Pick whose cutup it was.")})
    # Left out, a cutup: as the API reads a `cutup_beaten` without `with` (SPEC 9).
    beaten_with = forms.ChoiceField(choices=BEATER_CHOICES, required=False)

    def clean_beaten_with(self) -> str:
        return self.cleaned_data.get("beaten_with") or scoring.Beater.CUTUP.value

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("by") is not None and cleaned.get("by") == cleaned.get("owner"):
            raise forms.ValidationError(_("Pick two different players."))
        return cleaned


class GuaransheedForm(EventForm):
    player = IdField(error_messages={"required": _("Pick who declares.")})
    blind = forms.BooleanField(required=False)
    approved = forms.BooleanField(
        error_messages={"required": _("Everyone at the table must approve: tick the box.")}
    )


class HandForm(EventForm):
    """A hand. Where the number of cards left pays nothing (loser pays) the sheet does not
    ask it: the hand is stored with the fewest cards its unused ones take."""

    player = IdField()
    cards = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=20,
    )
    black_twos = _count(4)
    red_twos = _count(4)
    cutups = _count(3)
    bombs = _count(5)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("cards") is None:
            if self.rules is None or self.rules.needs_hands:
                raise forms.ValidationError(_("Tap how many cards are left."))
            cleaned["cards"] = scoring.fewest_cards(
                **{name: cleaned.get(name) or 0 for name in self.UNUSED}
            )
        return cleaned

    UNUSED = ("black_twos", "red_twos", "cutups", "bombs")


class InstantWinForm(EventForm):
    player = IdField(error_messages={"required": _("Pick who won outright.")})
    kind = forms.ChoiceField(
        choices=INSTANT_WIN_CHOICES, error_messages={"required": _("Pick the hand.")}
    )


EVENT_FORMS: dict[str, type[EventForm]] = {
    DealEvent.Type.TWO_BEATEN: TwoBeatenForm,
    DealEvent.Type.CUTUP_BEATEN: CutupBeatenForm,
    DealEvent.Type.GUARANSHEED: GuaransheedForm,
    DealEvent.Type.HAND: HandForm,
    DealEvent.Type.INSTANT_WIN: InstantWinForm,
}


class CorrectionForm(KeyedForm):
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

    up = IdField(required=False)
    down = IdField(required=False)
    drop = IdField(required=False)
    add = IdField(required=False)
    name = forms.CharField(label=_("New player"), max_length=40, required=False)

    ACTIONS = SEAT_CHANGES

    def clean_name(self) -> str:
        return " ".join(self.cleaned_data.get("name", "").split())

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        chosen = [action for action in self.ACTIONS if cleaned.get(action) not in (None, "")]
        if len(chosen) != 1:
            raise forms.ValidationError(_("Pick one change to make."))
        cleaned["action"] = chosen[0]
        cleaned["target"] = cleaned[chosen[0]]
        return cleaned


class TransferForm(KeyedForm):
    """A transfer of the settlement, marked paid (or, with `undo`, paid no more)."""

    payer = IdField()
    payee = IdField()
    amount = forms.DecimalField(max_digits=20, decimal_places=3, min_value=0)
    undo = forms.BooleanField(required=False)


class ShareLinkForm(KeyedForm):
    """A new share link for a role, or (with `link`) one to revoke."""

    role = forms.CharField(max_length=10, required=False)
    link = IdField(required=False)


class TypedAmountField(forms.Field):
    """An amount as a person types it on a phone: "2.50" or "2,50" (a payment has at most
    2 decimals, so either mark reads the same before one or two digits), with thousands
    grouped the reader's way ("10,000" in English, "10.000" in Vietnamese). Anything else,
    such as "3.000" in English (three decimals, or a grouping the other way?), is refused
    rather than guessed."""

    default_error_messages = {
        "invalid": _("Type an amount such as 2.50, with at most 2 decimal places."),
    }

    def to_python(self, value: Any) -> Decimal | None:
        text = str(value or "").strip()
        if not text:
            return None
        whole = rf"(?P<whole>{grouped_whole()}|[0-9]{{1,20}})"
        typed = re.fullmatch(f"(?:{whole})?" + r"(?:[.,](?P<decimals>[0-9]{1,2}))?", text)
        if typed is None or not (typed.group("whole") or typed.group("decimals")):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        whole = re.sub(r"[^0-9]", "", typed.group("whole") or "0")
        decimals = typed.group("decimals")
        return Decimal(f"{whole}.{decimals}" if decimals else whole)


class PaymentForm(KeyedForm):
    """Money paid from one player to another: all of a transfer, part of it, or any."""

    payer = IdField(error_messages={"required": _("Pick who paid.")})
    payee = IdField(error_messages={"required": _("Pick who was paid.")})
    amount = TypedAmountField(error_messages={"required": _("Type how much was paid.")})


class PaymentCancelForm(KeyedForm):
    """A payment to cancel (entered by mistake); its row is kept."""

    payment = IdField()


class PaymentDetailsForm(KeyedForm):
    """How a player is paid: the shape only; the service checks the bank, the account
    number and the link and says what is wrong."""

    bank_bin = forms.ChoiceField(
        label=_("Bank"),
        required=False,
        choices=[("", "—"), *((bank.bin, bank.short_name) for bank in BANKS)],
    )
    account_number = forms.CharField(
        label=_("Account number"),
        max_length=40,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    account_name = forms.CharField(
        label=_("Name on the account"),
        max_length=100,
        required=False,
        help_text=_("As the bank shows it, so the payer can check it."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )
    link = forms.CharField(
        label=_("Payment link"),
        max_length=400,
        required=False,
        help_text=_(
            "PayPal.me, Venmo, Revolut, MoMo…: paste the link. PayPal.me and Venmo links "
            "open with the amount filled in."
        ),
        widget=forms.TextInput(
            attrs={
                "inputmode": "url",
                "autocomplete": "off",
                "spellcheck": "false",
                "placeholder": "https://",
            }
        ),
    )
