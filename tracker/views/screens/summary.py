"""The end of the night in words: the podium, everyone's points, who pays whom — as the
summary page shows it and as text to share in a chat — and the Open Graph lines a chat app
shows for a shared link."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tracker import selectors
from tracker.models import Session
from tracker.templatetags.pages import format_money

MEDALS = ("🥇", "🥈", "🥉")


@dataclass
class Podium:
    medal: str
    name: str
    points: int


@dataclass
class Transfer:
    payer: str
    payee: str
    amount: Decimal


def podium(rows: Sequence[selectors.StandingRow]) -> list[Podium]:
    """The first three in the standings, with their medals."""
    return [
        Podium(medal=medal, name=row.name, points=row.points)
        for medal, row in zip(MEDALS, rows, strict=False)
    ]


def points_words(points: int) -> str:
    return ngettext("%(count)s point", "%(count)s points", points) % {"count": points}


def deals_words(count: int) -> str:
    return ngettext("after %(count)s deal", "after %(count)s deals", count) % {"count": count}


def headline(session: Session, rows: Sequence[selectors.StandingRow], deal_count: int) -> str:
    """ "Alice won with 29 points after 14 deals", or leads while the night goes on."""
    if not deal_count or not rows:
        return _("No deal has counted yet.")
    leader = rows[0]
    template = (
        _("%(name)s won with %(points)s %(deals)s")
        if session.ended_at
        else _("%(name)s leads with %(points)s %(deals)s")
    )
    return template % {
        "name": leader.name,
        "points": points_words(leader.points),
        "deals": deals_words(deal_count),
    }


def share_text(
    session: Session, summary: selectors.Summary, transfers: Sequence[Transfer], url: str
) -> str:
    """The night as plain text for a chat: title, podium, the others' points, who pays
    whom (or that nobody owes anybody), and the link to follow, if any."""
    lines = [f"{session.name} · {deals_words(summary.deal_count)}"]
    places = podium(summary.rows) if summary.deal_count else []
    if places:
        lines.append(" · ".join(f"{p.medal} {p.name} {p.points}" for p in places))
    others = summary.rows[len(places) :]
    if others and summary.deal_count:
        lines.append(" · ".join(f"{row.name} {row.points}" for row in others))
    if transfers:
        lines.append(_("Who pays whom:"))
        lines += [
            f"{t.payer} → {t.payee} {format_money(t.amount, session.currency)}" for t in transfers
        ]
    elif summary.settlement.balances:
        lines.append(_("Nobody owes anybody."))
    if url:
        lines.append(url)
    return "\n".join(lines)
