"""How a request comes in through the pages: who is asking, which session page it reached
and by which way in, and the one write gate every page write passes.

A session's pages are reached by a member of its circle (`/sessions/<id>/...`) or through
a share link (`/s/<token>/...`). Who may see and do what is decided in `tracker.access`,
exactly as for the API; throttling and idempotency in `tracker.gate`. A refusal from
either (or from a service a view did not handle itself) becomes a page with its status
and sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, TypeVar, cast
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from tracker import gate, glance
from tracker.access import Actor, Role, access_circle, access_session, link_by_token
from tracker.errors import Forbidden, Refusal, TooManyWrites
from tracker.models import Circle, Session
from tracker.views.screens.words import not_saved, reason

T = TypeVar("T")
View = Callable[..., HttpResponse]

# Not part of what the person sent: the CSRF token changes with every render.
UNSENT_FIELDS = frozenset({"csrfmiddlewaretoken"})


@dataclass
class SessionPage:
    """A session's page as this request reached it: the session, who is asking, and the
    URLs of the session's pages by the same way in (`{{ urls.standings }}`)."""

    session: Session
    actor: Actor
    namespace: str  # "member" or "link", the URL namespace of the way in
    url_kwargs: dict[str, Any]
    urls: _Urls = field(init=False)

    def __post_init__(self) -> None:
        self.urls = _Urls(self)

    @property
    def can_score(self) -> bool:
        return self.actor.role.allows(Role.SCORER)

    @property
    def is_member(self) -> bool:
        return self.actor.role is Role.MEMBER

    @property
    def is_viewer(self) -> bool:
        return self.actor.role is Role.VIEWER

    def url(self, name: str, **kwargs: Any) -> str:
        return reverse(f"{self.namespace}:{name}", kwargs={**self.url_kwargs, **kwargs})

    def context(self, **more: Any) -> dict[str, Any]:
        """What every session page's template gets, and `more`."""
        return {"page": self, "urls": self.urls, "session": self.session, **more}


class _Urls:
    def __init__(self, page: SessionPage) -> None:
        self._page = page

    def __getitem__(self, name: str) -> str:
        return self._page.url(name)


# What a following page's ask gets from the link's glance alone, or None (`session_page`).
AskedAgain = Callable[[HttpRequest, glance.Glance], HttpResponse | None]


def reach(
    request: HttpRequest, *, session_id: int | None, token: str | None, need: Role
) -> SessionPage:
    """The session page `request` reached, by a link (`token`) or as a signed-in member
    (`session_id`), with at least the role `need`; a refusal otherwise."""
    if token is not None:
        # A following page that asked its glance first and found nothing kept: the link
        # as the glance read it with its session and circle, not read again.
        found: glance.Glance | None = getattr(request, "glanced", None)
        if found is not None and found.link_row is not None:
            link = glance.link_of(found)
        else:
            link = link_by_token(token)
        actor = Actor(link=link)
        session = access_session(actor, link.session_id, need=need)
        request.share_link = link  # type: ignore[attr-defined]  # named in the request log
        return SessionPage(session, actor, "link", {"token": token})
    assert session_id is not None
    actor = account(request)
    session = access_session(actor, session_id, need=need)
    return SessionPage(session, actor, "member", {"session_id": session_id})


def session_page(
    *,
    need: Role = Role.VIEWER,
    methods: Sequence[str] = ("GET",),
    asked_again: AskedAgain | None = None,
) -> Callable[[View], View]:
    """A view of one session, reached by a member or a link, called as
    `view(request, page, **kwargs)`.

    Anonymous on a member URL: to the login page. Not a member, or an unknown or revoked
    link: 404. A role below `need` (a viewer link that scores, a link on a members' page):
    403. A refusal the view raises and does not handle itself becomes its page too.

    A page that follows the session by asking again (htmx) through a link is first
    offered to `asked_again` with the link's glance (the session's version, read with the
    link in one statement: `tracker.glance`): it answers what needs nothing more (the
    session unchanged, an answer kept at this version), or None and the view answers, as
    it always did. Only for a page whose asks are mostly answered so: a page that asks
    only once a stream said the version moved, and whose answer is not kept (the tap
    screen), would pay the glance for nothing.
    """

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapper(
            request: HttpRequest,
            session_id: int | None = None,
            token: str | None = None,
            **kwargs: Any,
        ) -> HttpResponse:
            if request.method not in methods:
                return HttpResponseNotAllowed(list(methods))
            if asked_again is not None and token is not None:
                answer = _page_from_a_glance(request, token, asked_again)
                if answer is not None:
                    return answer
            if token is None and not request.user.is_authenticated:
                if wants_json(request):
                    # The offline queue's fetch follows a redirect: the sign-in page's 200
                    # would read as saved, and the write be dropped unsent.
                    return signed_out()
                return redirect_to_login(request.get_full_path())
            try:
                page = reach(request, session_id=session_id, token=token, need=need)
                response = _said_when_to_retry(request, view(request, page, **kwargs))
            except Refusal as refusal:
                response = refused(request, refusal)
            if token is not None:
                # The token is in the address and in every link of the page: a page
                # reached by it is never kept by a browser's or a proxy's cache.
                add_never_cache_headers(response)
            return response

        return wrapper

    return decorate


def member_page(*, methods: Sequence[str] = ("GET",)) -> Callable[[View], View]:
    """A page for a signed-in account (its circles, a new session): anonymous to the login
    page; a refusal (a circle not theirs: 404) becomes its page."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                return HttpResponseNotAllowed(list(methods))
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            try:
                return _said_when_to_retry(request, view(request, *args, **kwargs))
            except Refusal as refusal:
                return refused(request, refusal)

        return wrapper

    return decorate


def account(request: HttpRequest) -> Actor:
    """The signed-in account behind a page (views that need one are `login_required`)."""
    return Actor(user=cast(User, request.user))


def member_circle(request: HttpRequest, circle_id: int) -> Circle:
    """A circle of the signed-in member's (a refusal otherwise: see `refused`)."""
    return access_circle(account(request), circle_id)


LINK_SAID = frozenset({"link_revoked", "link_not_valid"})


def refused(request: HttpRequest, refusal: Refusal) -> HttpResponse:
    """A refusal as a page: its sentence, with its status (and Retry-After when over the
    write rate)."""
    if isinstance(refusal, TooManyWrites):
        request.retry_after = refusal.wait  # type: ignore[attr-defined]
    if wants_json(request):
        answer = {"code": refusal.code, "detail": reason(refusal)}
        return _said_when_to_retry(request, JsonResponse(answer, status=refusal.status))
    # "Ask the table for a new link" is advice for a share link's page that is gone, and
    # only when its sentence does not already say so; a member's page that is not found
    # (another circle's, a mistyped address) was given it too.
    by_link = request.path.startswith("/s/") and refusal.code not in LINK_SAID
    context = {"refusal": refusal, "reason": reason(refusal), "by_link": by_link}
    response = render(request, "refused.html", context, status=refusal.status)
    return _said_when_to_retry(request, response)


CSRF_FAILED = gettext_noop(
    "This page was open too long, or its form came from another site, so nothing was "
    "saved; load the page again and retry."
)


CSRF_RELOADED = gettext_noop(
    "This page was out of date, so nothing was saved; it has been loaded again: tap once more."
)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Django's CSRF check refused a page write (`CSRF_FAILURE_VIEW`): said like every
    other refusal, with a sentence and the code `csrf_failed` (in JSON to the offline
    queue), where Django's own page gives neither. Nothing was written: the check runs
    before the view.

    htmx swaps no 403, and a retry would send the same stale token: an htmx write is
    answered by loading the page again (`HX-Refresh`, with a fresh token), which then
    says why."""
    refusal = Forbidden(CSRF_FAILED, code="csrf_failed")
    if request.headers.get("HX-Request") == "true" and not wants_json(request):
        messages.error(request, _(CSRF_RELOADED))
        response = HttpResponse(status=403)
        response["HX-Refresh"] = "true"
        return response
    return refused(request, refusal)


def _page_from_a_glance(
    request: HttpRequest, token: str, asked_again: AskedAgain
) -> HttpResponse | None:
    """`asked_again`'s answer to a following page whose link is live, from the link's
    glance; None when the view must answer: a refused link, a page not following."""
    if request.method != "GET" or not request.htmx:
        return None
    found = glance.by_link(token)
    if found is None:
        return None
    response = asked_again(request, found)
    if response is None:
        request.glanced = found  # type: ignore[attr-defined]  # for `reach`: the link read
        return None
    request.caller_ids = (None, found.link_id)  # type: ignore[attr-defined]  # the request log
    add_never_cache_headers(response)  # as every page reached by a link
    return response


def _said_when_to_retry(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A page refused for too many writes (429), with the seconds to wait, however the
    view showed the refusal."""
    wait = getattr(request, "retry_after", None)
    if response.status_code == 429 and wait is not None:
        response["Retry-After"] = str(wait)
    return response


# --- Writes -----------------------------------------------------------------------------


def fingerprint(request: HttpRequest) -> str:
    """The form as the person sent it: every field but the CSRF token, in a fixed order,
    with the method and the path it was sent to."""
    sent = sorted(
        (name, value)
        for name, values in request.POST.lists()
        if name not in UNSENT_FIELDS
        for value in values
    )
    return gate.fingerprint(
        request.method or "POST", request.get_full_path(), urlencode(sent).encode()
    )


def write(request: HttpRequest, actor: Actor, key: str | None, work: Callable[[], T]) -> T | None:
    """Apply a page write through the one gate: counted against the caller's write rate
    (shared with the API) and applied once per form key. Returns what `work` returned, or
    None when this key and form were applied before (the page then just shows the state
    as it is). Refusals propagate."""
    try:
        outcome = gate.write_once(
            actor=actor,
            key=key or None,
            fingerprint=fingerprint(request),
            work=work,
            answer=lambda _result: gate.Answer(status=200),
        )
    except TooManyWrites as refusal:
        request.retry_after = refusal.wait  # type: ignore[attr-defined]  # for the response
        raise
    return None if isinstance(outcome, gate.Replay) else outcome


Screen = Callable[..., HttpResponse]


def write_and_show(
    request: HttpRequest,
    page: SessionPage,
    key: str | None,
    work: Callable[[], object],
    *,
    screen: Screen,
    then: str,
) -> HttpResponse:
    """A session page's write, answered as every screen answers one: refused, the screen
    as it is now saying "Not saved: why"; done, the screen again for htmx (it swaps it in)
    or, for a plain form post, a redirect to page `then`. `screen(request, page,
    message=..., status=...)` draws the screen; what the write returned is in
    `request.written` (None for a replay), the refusal in `request.refusal`."""
    try:
        # What the write returned (None for a replay), for a screen drawn from it.
        request.written = write(request, page.actor, key, work)  # type: ignore[attr-defined]
    except Refusal as refusal:
        request.refusal = refusal  # type: ignore[attr-defined]  # for a JSON answer
        return screen(request, page, message=not_saved(refusal), status=refusal.status)
    if request.htmx or wants_json(request):  # type: ignore[attr-defined]
        return screen(request, page)
    return redirect(page.url(then))


def wants_json(request: HttpRequest) -> bool:
    """A phone's offline queue sending what waited (static/js/offline.js): it reads a
    status and a code, not a screen."""
    return request.headers.get("Accept", "") == "application/json"


def signed_out() -> JsonResponse:
    """What the offline queue is told when the account's sign-in ran out while it waited:
    a refusal it stops on (and keeps the write), not the sign-in page."""
    answer = {
        "code": "not_authenticated",
        "detail": _("Sign in again to send what waits on this phone."),
    }
    return JsonResponse(answer, status=401)


# --- Offline ----------------------------------------------------------------------------

KEEP_OFFLINE = "X-Keep-Offline"


def kept_offline(response: HttpResponse) -> HttpResponse:
    """A session page the service worker keeps on the phone, to open it without a
    signal: the tap screen, standings and deal history as last seen (templates/offline/
    sw.js keeps nothing else: not the share page, which shows the links' tokens, nor an
    account's pages)."""
    if response.status_code == 200:
        response[KEEP_OFFLINE] = "1"
    return response


# --- Small helpers ----------------------------------------------------------------------


def first_error(form: Any) -> str:
    for errors in form.errors.values():
        return str(errors[0])
    return _("Something in the form is not right.")


def safe_next(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback
