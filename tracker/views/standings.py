"""The standings page (SPEC 6), live: an open page fetches its table again when the
session's version moves on (`tracker.views.live`).

A fragment is kept by the rows' counter (`answers.ROWS`), not by the version: two taps in
three move only the version, and the rows, the sparklines and the words of a fragment with
them. The one thing in it that moves with every version, the version the page then says it
shows, is written into the kept fragment as it is served (`_VERSION_MARK`)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from tracker import answers, selectors
from tracker.glance import Glance
from tracker.views.doors import SessionPage, kept_offline, session_page
from tracker.views.screens.summary import headline
from tracker.views.screens.words import FORMAT_NAMES, RULE_NAMES

SPARK_WIDTH, SPARK_HEIGHT = 64, 18
SPARK_DEALS = 40  # the sparkline shows the last 40 deals: a long night reads no more
# Where a kept fragment says its version. Every name and word in it is escaped, so no text
# of a player's can put these bytes in the fragment.
_VERSION_MARK = "<!--version-->"


def _sparkline(values: Sequence[int], top: int) -> str:
    """SVG polyline points for cumulative points over the deals."""
    if len(values) < 2 or top <= 0:
        return ""
    step = SPARK_WIDTH / (len(values) - 1)
    return " ".join(
        f"{index * step:.1f},{SPARK_HEIGHT - 1 - value * (SPARK_HEIGHT - 2) / top:.1f}"
        for index, value in enumerate(values)
    )


@dataclass
class StandingLine:
    rank: int
    row: selectors.StandingRow
    spark: str
    signature: str
    changed: bool = False


def _signature(row: selectors.StandingRow) -> str:
    text = "|".join(str(value) for value in vars(row).values())
    return f"{zlib.crc32(text.encode()):08x}"


def _kept_as(request: HttpRequest) -> tuple[str, str, str]:
    """What a fragment is kept under, with the rows' counter (`tracker.answers`): the way
    in (the link or the session's address) and the rows the page says it shows."""
    return ("standings", request.path, request.GET.get("seen", ""))


def _at(content: bytes, version: int) -> bytes:
    """A kept fragment as served at `version`."""
    return content.replace(_VERSION_MARK.encode(), str(version).encode())


def _fragment_answer(kept: tuple[str, bytes | None], version: int) -> HttpResponse:
    _seen, content = kept
    return HttpResponse(status=204) if content is None else HttpResponse(_at(content, version))


def _shows(request: HttpRequest, version: int) -> bool:
    """Whether a following page says it shows the session at `version` (`version`)."""
    return request.GET.get("version") == str(version)


def _asked_again(request: HttpRequest, found: Glance) -> HttpResponse | None:
    """A following phone's ask answered from its link's glance: 204 while the session is
    at the version shown, else the fragment another phone's ask left kept at this
    version; None when there is none yet (the view reads and renders it)."""
    if _shows(request, found.version):
        return HttpResponse(status=204)
    name = answers.key_at(
        found.session_id,
        found.standings_version,
        found.started_at,
        *_kept_as(request),
        counter=answers.ROWS,
    )
    kept = answers.peek(name)
    return None if kept is None else _fragment_answer(kept, found.version)


@session_page(asked_again=_asked_again)
def standings(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """A page that follows the session says the version it shows (`version`): while the
    session has not moved on, the answer is 204 and nothing is read. It also says which
    rows it shows (`seen`), so an unchanged table still answers 204 and a changed row
    comes back marked to flash once.

    After a change every phone at the table asks for the same fragment: the first one a
    worker reads and renders, the others get it from memory (`tracker.answers`)."""
    session = page.session
    if not request.htmx:
        context = _table(request, page)
        assert context is not None  # only a fragment answers "unchanged"
        return kept_offline(render(request, "standings/page.html", context))
    if _shows(request, session.version):
        return HttpResponse(status=204)
    shown = request.GET.get("seen", "")
    kept = answers.kept(
        session,
        _kept_as(request),
        lambda: _fragment(request, page, shown),
        counter=answers.ROWS,
    )
    return _fragment_answer(kept, session.version)


def pushed(request: HttpRequest, page: SessionPage, shown: str) -> tuple[str, bytes | None]:
    """What a live stream sends a standings page that shows the rows `shown` (its `seen`):
    the rows there are now (their `seen`) and the fragment, or None when they are the rows
    shown (`tracker.views.live`). Kept like a fetched fragment, so the streams a worker
    holds for one table render a change once between them."""
    seen, content = answers.kept(
        page.session,
        ("standings pushed", request.path, shown),
        lambda: _fragment(request, page, shown),
        counter=answers.ROWS,
    )
    return seen, None if content is None else _at(content, page.session.version)


def _fragment(request: HttpRequest, page: SessionPage, shown: str) -> tuple[str, bytes | None]:
    context = _table(request, page, shown=shown, version=mark_safe(_VERSION_MARK))
    if context is None:
        return shown, None
    return str(context["seen"]), render(request, "standings/_table.html", context).content


def _table(
    request: HttpRequest, page: SessionPage, shown: str | None = None, version: object = None
) -> dict[str, object] | None:
    """The table's context; for a page that says which rows it shows (`shown`, its
    `seen`), None when they are the rows there are. The version it says it shows is the
    session's, or `version` (a kept fragment's `_VERSION_MARK`)."""
    session = page.session
    rows = selectors.session_standings(session)
    signatures = {row.player: _signature(row) for row in rows}
    current = ";".join(f"{player}:{signature}" for player, signature in signatures.items())
    if session.ended_at is not None:
        current += ";ended"  # the page says "ended" instead of "live": not the rows shown
    if shown == current:
        # A tap that files nothing moves the version on but no row: say so before the
        # sparklines are read or anything is rendered.
        return None
    seen = dict(part.split(":", 1) for part in (shown or "").split(";") if ":" in part)
    deal_count, by_deal = selectors.session_points_by_deal(session, last=SPARK_DEALS)
    # Each line starts where the player stood before the deals it shows.
    totals: dict[int, list[int]] = {
        row.player: [row.points - sum(points.get(row.player, 0) for _, points in by_deal)]
        for row in rows
    }
    for _number, points in by_deal:
        for player, line in totals.items():
            line.append(line[-1] + points.get(player, 0))
    top = max((max(line) for line in totals.values()), default=0)
    lines = [
        StandingLine(
            rank=rank,
            row=row,
            spark=_sparkline(totals[row.player], top),
            signature=signatures[row.player],
        )
        for rank, row in enumerate(rows, start=1)
    ]
    if seen:
        for line in lines:
            line.changed = seen.get(str(line.row.player)) != line.signature
    return page.context(
        lines=lines,
        seen=current,
        version=session.version if version is None else version,
        deal_count=deal_count,
        rule_name=RULE_NAMES.get(session.stake_rule, session.stake_rule),
        format_name=FORMAT_NAMES.get(session.format, session.format),
        # What a chat app shows for a shared link (Open Graph): who leads, or won.
        og_description=headline(session, rows, deal_count),
    )
