"""The sentences the pages say about the game, in the active language.

Templates only render: who deals, what a deal came to, what Undo takes back — all of it
is put into words here, from the stored records.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

import scoring
from scoring.names import last_words_told_apart
from tracker.errors import Refusal
from tracker.models import Deal, DealEvent, DealPlayer, LedgerLine, Tap
from tracker.templatetags.pages import format_money, place_label
from tracker.views import forms

REASONS = {
    LedgerLine.Reason.LOSER_PAYS: gettext_lazy("loser pays"),
    LedgerLine.Reason.CARDS_LEFT: gettext_lazy("cards left"),
    LedgerLine.Reason.PRO_PLAY_WIN: gettext_lazy("Pro-Play win"),
    LedgerLine.Reason.TWO_BEATEN: gettext_lazy("2 chopped"),
    LedgerLine.Reason.CUTUP_BEATEN: gettext_lazy("cutup beaten"),
    LedgerLine.Reason.UNUSED_BLACK_TWO: gettext_lazy("unused black 2"),
    LedgerLine.Reason.UNUSED_RED_TWO: gettext_lazy("unused red 2"),
    LedgerLine.Reason.UNUSED_CUTUP: gettext_lazy("unused cutup"),
    LedgerLine.Reason.UNUSED_BOMB: gettext_lazy("unused bomb"),
    LedgerLine.Reason.GUARANSHEED_WON: gettext_lazy("Guaransheed won"),
    LedgerLine.Reason.GUARANSHEED_LOST: gettext_lazy("Guaransheed lost"),
    LedgerLine.Reason.GOT_TO_GET_IN: gettext_lazy("Got to Get In"),
    LedgerLine.Reason.INSTANT_WIN: gettext_lazy("instant win"),
}
STATUSES = {
    Deal.Status.OPEN: gettext_lazy("in play"),
    Deal.Status.FILED: gettext_lazy("filed"),
    Deal.Status.ENDED: gettext_lazy("ended"),
}
RULE_NAMES = dict(forms.STAKE_RULE_CHOICES)
FORMAT_NAMES = dict(forms.FORMAT_CHOICES)
KIND_NAMES = dict(forms.INSTANT_WIN_CHOICES)


# The write gate's refusals about keys, as a page says them: a page's key is its own
# doing, not the person's, so these name what happened on the screen instead.
KEY_REFUSALS = {
    "idempotency_key_reused": gettext_lazy(
        "This screen was out of date, so nothing was saved; look at it again and tap once more."
    ),
}


def reason(refusal: Refusal) -> str:
    """Why something was refused, as a page says it (see KEY_REFUSALS)."""
    return str(KEY_REFUSALS.get(refusal.code) or refusal.message)


def not_saved(refusal: Refusal) -> str:
    """A refused write, as the pages say it: "Not saved: Alice is already out (1st)."."""
    return _("Not saved: %(reason)s") % {"reason": reason(refusal)}


def trading_lines(trading: Iterable[dict[str, int]], names: dict[int, str]) -> list[str]:
    """The trading reminders a deal opened with, as sentences."""
    return [
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
        for reminder in trading
    ]


def _twos(black: int, red: int) -> str:
    parts = []
    if black:
        parts.append(ngettext("%(count)s black", "%(count)s black", black) % {"count": black})
    if red:
        parts.append(ngettext("%(count)s red", "%(count)s red", red) % {"count": red})
    return ", ".join(parts)


def describe_event(event: DealEvent, names: dict[int, str], *, cards_pay: bool = True) -> str:
    """One line a person reads: "Ben chopped Alice's 2s with a cutup (1 black)"."""
    player, by, owner = (
        names.get(pk or 0, "?") for pk in (event.player_id, event.by_id, event.owner_id)
    )
    if event.type == DealEvent.Type.TWO_BEATEN:
        count = event.black + event.red
        values = {"by": by, "owner": owner, "twos": _twos(event.black, event.red)}
        if event.beaten_with == DealEvent.Beater.BOMB:
            return (
                ngettext(
                    "%(by)s bombed %(owner)s's 2 (%(twos)s)",
                    "%(by)s bombed %(owner)s's 2s (%(twos)s)",
                    count,
                )
                % values
            )
        return (
            ngettext(
                "%(by)s chopped %(owner)s's 2 with a cutup (%(twos)s)",
                "%(by)s chopped %(owner)s's 2s with a cutup (%(twos)s)",
                count,
            )
            % values
        )
    if event.type == DealEvent.Type.CUTUP_BEATEN:
        if event.beaten_with == DealEvent.Beater.BOMB:
            return _("%(by)s bombed %(owner)s's cutup") % {"by": by, "owner": owner}
        return _("%(by)s beat %(owner)s's cutup") % {"by": by, "owner": owner}
    if event.type == DealEvent.Type.HAND:
        extras = [
            _twos(event.black_twos, event.red_twos)
            and _("2s: %(twos)s") % {"twos": _twos(event.black_twos, event.red_twos)},
            event.cutups
            and ngettext("%(count)s cutup", "%(count)s cutups", event.cutups)
            % {"count": event.cutups},
            event.bombs
            and ngettext("%(count)s bomb", "%(count)s bombs", event.bombs) % {"count": event.bombs},
        ]
        extras = [extra for extra in extras if extra]
        if not cards_pay:  # loser pays: the count was not asked, only the unused cards
            if not extras:
                return _("%(player)s held no unused 2s, cutups or bombs") % {"player": player}
            return _("%(player)s's unused cards: %(cards)s") % {
                "player": player,
                "cards": ", ".join(extras),
            }
        text = ngettext(
            "%(player)s held %(count)s card", "%(player)s held %(count)s cards", event.cards
        ) % {"player": player, "count": event.cards}
        return f"{text} ({', '.join(extras)})" if extras else text
    if event.type == DealEvent.Type.GUARANSHEED:
        if event.blind:
            return _("%(player)s declared a blind Guaransheed") % {"player": player}
        return _("%(player)s declared Guaransheed") % {"player": player}
    return _("%(player)s won outright: %(hand)s") % {
        "player": player,
        "hand": KIND_NAMES.get(event.kind, event.kind),
    }


def record_label(record: Tap | DealEvent, names: dict[int, str]) -> str:
    """A tap or event in a few words: "Alice 1st", "Ben beat Alice's 2"."""
    if isinstance(record, Tap):
        values = {"name": names.get(record.player_id, "?"), "place": place_label(record.place)}
        if record.loser:
            return _("%(name)s lost") % values
        return _("%(name)s %(place)s") % values
    player, by, owner = (
        names.get(pk or 0, "?") for pk in (record.player_id, record.by_id, record.owner_id)
    )
    labels = {
        DealEvent.Type.TWO_BEATEN: _("%(by)s beat %(owner)s's 2"),
        DealEvent.Type.CUTUP_BEATEN: _("%(by)s beat %(owner)s's cutup"),
        DealEvent.Type.HAND: _("%(player)s's hand"),
        DealEvent.Type.GUARANSHEED: _("%(player)s's Guaransheed"),
        DealEvent.Type.INSTANT_WIN: _("%(player)s's instant win"),
    }
    return labels[record.type] % {"player": player, "by": by, "owner": owner}


# A name longer than this is said in Undo by its first word and its last ones.
TOLD_APART_OVER = 20


def told_apart(names: dict[int, str]) -> dict[int, str]:
    """Each name as Undo says it: a long one as its first word and the fewest last words
    (two at least) that no other name at the table ends with: "Nguyễn … Lan Vy". Undo has
    two lines; "Undo Nguyễn Thị Minh Khai Phương Hoà…" named neither the player nor the
    place, and four players of one family read the same (session 25's review). A
    Vietnamese name is told apart by its last words. A name that cannot be told apart
    this way (two alike to the end) stays whole."""
    said = {}
    for player, name in names.items():
        words = name.split()
        said[player] = name
        if len(name) <= TOLD_APART_OVER or len(words) < 4:
            continue
        # Alike but for case is alike: a circle holds names apart only beyond case. The
        # first word is said anyway, so the tail is found among the others.
        tail = last_words_told_apart(
            " ".join(words[1:]),
            (other for pk, other in names.items() if pk != player),
            at_least=2,
        )
        if tail is not None:
            said[player] = f"{words[0]} … {tail}"
    return said


# A name longer than this is said by its last words where Undo names two players.
GIVEN_NAME_OVER = 12
TWO_PLAYERS = (DealEvent.Type.TWO_BEATEN, DealEvent.Type.CUTUP_BEATEN)


def by_given_name(names: dict[int, str]) -> dict[int, str]:
    """Each name as Undo says it beside another: a long one by the fewest last words
    (one at least) that no other name at the table ends with, "Lan Hà", "Fitzgerald".
    "Undo Nguyễn … Lan Hà beat Nguyễn…" lost whose 2 it had been in its two lines at
    320 px, and "Undo Bartholomewson…" both the chop and its owner (session 30)."""
    said = {}
    for player, name in names.items():
        tail = None
        if len(name) > GIVEN_NAME_OVER:
            others = (other for pk, other in names.items() if pk != player)
            tail = last_words_told_apart(name, others)
        said[player] = name if tail is None else tail
    return said


def undo_label(
    record: Tap | DealEvent | None, names: dict[int, str], *, deal: int | None = None
) -> str:
    """What Undo takes back, named: "Undo Alice 1st"; "Undo deal 1: Ben 3rd" when it
    reaches back into a filed deal. `names` are the table's names whole: one player is
    named as `told_apart` says, two (a chop) `by_given_name`."""
    if record is None:
        return _("Nothing to undo")
    if isinstance(record, DealEvent) and record.type in TWO_PLAYERS:
        names = by_given_name(names)
    else:
        names = told_apart(names)
    if deal is not None:
        return _("Undo deal %(number)s: %(what)s") % {
            "number": deal,
            "what": record_label(record, names),
        }
    return _("Undo %(what)s") % {"what": record_label(record, names)}


@dataclass
class MoneyLine:
    payer: str
    payee: str
    amount: Decimal
    reason: str


def money_lines(
    lines: Iterable[scoring.LedgerLine | LedgerLine], names: dict[int, str]
) -> list[MoneyLine]:
    rows = []
    for line in lines:
        payer = line.payer if isinstance(line, scoring.LedgerLine) else line.payer_id
        payee = line.payee if isinstance(line, scoring.LedgerLine) else line.payee_id
        reason = line.reason.value if isinstance(line, scoring.LedgerLine) else line.reason
        rows.append(
            MoneyLine(
                payer=names.get(payer, "?"),
                payee=names.get(payee, "?"),
                amount=line.amount,
                reason=str(REASONS.get(reason, reason)),
            )
        )
    return rows


def deal_summary(
    *,
    number: int,
    deal_players: Sequence[DealPlayer],
    ledger: Sequence[LedgerLine],
    names: dict[int, str],
    currency: str,
) -> str:
    """ "Deal 14: Alice 3 · Cara 2 · Ben 1 · Dev pays 1.00 USD each (loser pays)": each
    kind of money apart, with its reason, so a stake and an unused 2 are not one sum."""
    scored = sorted((dp for dp in deal_players if dp.points), key=lambda dp: dp.place or 99)
    parts = [f"{names.get(dp.player_id, '?')} {dp.points}" for dp in scored]
    owed: dict[tuple[int, str], dict[int, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for line in ledger:
        owed[(line.payer_id, line.reason)][line.payee_id] += line.amount
    players = {dp.player_id for dp in deal_players}
    for (payer, code), payees in owed.items():
        reason = str(REASONS.get(code, code))
        amounts = set(payees.values())
        if len(payees) > 1 and len(amounts) == 1 and set(payees) == players - {payer}:
            parts.append(
                _("%(payer)s pays %(amount)s each (%(reason)s)")
                % {
                    "payer": names.get(payer, "?"),
                    "amount": format_money(amounts.pop(), currency),
                    "reason": reason,
                }
            )
            continue
        for payee, amount in payees.items():
            parts.append(
                _("%(payer)s → %(payee)s %(amount)s (%(reason)s)")
                % {
                    "payer": names.get(payer, "?"),
                    "payee": names.get(payee, "?"),
                    "amount": format_money(amount, currency),
                    "reason": reason,
                }
            )
    if not parts:
        parts.append(_("nobody scored"))
    return _("Deal %(number)s: %(summary)s") % {"number": number, "summary": " · ".join(parts)}


def finish_line(deal_players: Iterable[DealPlayer], names: dict[int, str]) -> list[str]:
    placed = sorted((dp for dp in deal_players if dp.place), key=lambda dp: dp.place or 0)
    return [
        _("%(name)s %(place)s (%(points)s)")
        % {
            "name": names.get(dp.player_id, "?"),
            "place": place_label(dp.place),
            "points": dp.points,
        }
        for dp in placed
    ]


def twos_label(black: int, red: int) -> str:
    """Which 2s one chop beat, as a chip says it: "1 ♠♣", "1 ♠♣ + 1 ♥♦" (black ♠♣,
    red ♥♦: the suits say the colour in any language)."""
    parts = [f"{count} {suits}" for count, suits in ((black, "♠♣"), (red, "♥♦")) if count]
    return " + ".join(parts)


def save_label(preview: scoring.Preview, names: dict[int, str], currency: str) -> str:
    """What a sheet's Save says it will move: "Save · Cara pays Ben 3.00 USD".

    Several payments are counted, not listed: an instant win's three, each with two
    40-character names, made a Save of twelve lines at 320 px that covered the chips
    above it. "3 players pay Ben 3.00 USD each" says the same for the payee the table
    watches; the deal log lists every line once it is saved."""
    if not preview.gained and not preview.lost:
        return _("Save · no money moves now")
    moves = _moves(preview.gained, names, currency, lost=False)
    moves += _moves(preview.lost, names, currency, lost=True)
    return _("Save · %(moves)s") % {"moves": " · ".join(moves)}


def _moves(
    lines: Sequence[scoring.LedgerLine], names: dict[int, str], currency: str, *, lost: bool
) -> list[str]:
    # What each payer pays each payee: a ledger line a reason, so one player's hand (a card
    # left and an unused 2) is two lines from one payer, and was "2 players pay".
    owed: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
    for line in lines:
        owed[line.payer, line.payee] += line.amount
    if not owed:
        return []
    if len(owed) == 1:
        (payer, payee), amount = next(iter(owed.items()))
        said = (
            _("%(payer)s no longer pays %(payee)s %(amount)s")
            if lost
            else _("%(payer)s pays %(payee)s %(amount)s")
        )
        return [
            said
            % {
                "payer": names.get(payer, "?"),
                "payee": names.get(payee, "?"),
                "amount": format_money(amount, currency),
            }
        ]
    total = format_money(sum(owed.values(), Decimal(0)), currency)
    payees = {payee for _payer, payee in owed}
    amounts = set(owed.values())
    if len(payees) == 1:
        values = {
            "count": len(owed),
            "payee": names.get(next(iter(payees)), "?"),
            "amount": format_money(next(iter(amounts)), currency),
            "total": total,
        }
        if lost:
            return [_("%(count)s players no longer pay %(payee)s, %(total)s in all") % values]
        if len(amounts) == 1:
            return [_("%(count)s players pay %(payee)s %(amount)s each") % values]
        return [_("%(count)s players pay %(payee)s, %(total)s in all") % values]
    if lost:
        return [
            _("%(count)s payments fewer, %(total)s in all") % {"count": len(owed), "total": total}
        ]
    return [_("%(count)s payments, %(total)s in all") % {"count": len(owed), "total": total}]
