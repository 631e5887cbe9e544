"""What every API view shares: who is calling (`Actor`), what role each method needs,
the one write gate every write goes through, and strict pages of lists.

Reach and roles are decided in `tracker.access`, throttling and idempotency in
`tracker.gate`, exactly as for the pages; this module only reads them off a DRF request.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, cast

from django.contrib.auth.models import User
from django.http import Http404, HttpResponseBase, HttpResponseNotModified
from django.http.request import RawPostDataException
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotAcceptable, NotAuthenticated, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from tracker import answers, gate
from tracker.access import Actor, Role, access_deal, access_session, require
from tracker.api import unchanged
from tracker.api.authentication import ApiTokenAuthentication, ShareLinkAuthentication
from tracker.api.exceptions import api_exception_handler
from tracker.api.pagination import StrictPagination
from tracker.api.parsers import JSONBodyParser
from tracker.glance import Glance, deal_of, session_of
from tracker.models import Deal, Session, ShareLink

PARSERS = [JSONBodyParser, FormParser, MultiPartParser]
REPLAYED_HEADER = "Idempotent-Replayed"

NOT_SIGNED_IN = gettext_lazy(
    "Sign in first: send Authorization: Token <token> (from POST /api/auth/token/), "
    "or Authorization: Share <token> with a share link."
)


def actor_of(request: Request) -> Actor | None:
    """The caller of an API request: a share link, an account, or nobody."""
    if isinstance(request.auth, ShareLink):
        return Actor(link=request.auth)
    if request.user is not None and request.user.is_authenticated:
        return Actor(user=cast(User, request.user))
    return None


class RolePermission(BasePermission):
    """Refuse anonymous callers (401), and links on views beyond their role (403)
    before anything is looked up (`access.require`)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        actor = actor_of(request)
        if actor is None:
            raise NotAuthenticated(NOT_SIGNED_IN)
        method = "GET" if request.method in ("HEAD", "OPTIONS") else request.method
        require(actor, view.need.get(method, Role.MEMBER))  # type: ignore[attr-defined]
        return True


class ApiView(APIView):
    """Token, share link or session login (CSRF enforced); `need` maps each HTTP method
    to the least role a caller must have (`tracker.access.Role`)."""

    authentication_classes = [
        ApiTokenAuthentication,
        ShareLinkAuthentication,
        SessionAuthentication,
    ]
    permission_classes = [RolePermission]
    parser_classes = PARSERS
    need: dict[str, Role] = {}
    # A watched read (`fresh`): what the URL's `pk` names, "session" or "deal", so that a
    # token or link asking again is answered from its glance (`tracker.api.unchanged`).
    watches: str | None = None
    # The session's counters a watched read's answer may be kept by (`tracker.answers`),
    # as a glance tries them: its version, or for an answer that shows only what moves
    # `answers.ROWS` (the standings' rows, a closed deal), that counter. The tag (`ETag`)
    # is always the version's.
    kept_by: tuple[str, ...] = (answers.VERSION,)

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        if self.watches is not None and request.method in ("GET", "HEAD"):
            found = unchanged.glance_of(request, kwargs["pk"], deal=self.watches == "deal")
            if found is not None:
                answer = self._answer_from_a_glance(request, found, args, kwargs)
                if answer is not None:
                    # The request log says who asked, as the long way's would.
                    request.caller_ids = (found.user_id, found.link_id)
                    return answer
                # The long way after all: its token check takes the caller the glance read.
                request.glanced = found
        return super().dispatch(request, *args, **kwargs)

    def _answer_from_a_glance(
        self, request: Any, found: Glance, args: Any, kwargs: Any
    ) -> HttpResponseBase | None:
        """A watched read answered from the caller's glance at the session: 304 while it
        holds the tag, else the answer another client left kept at this version, each as
        the long way would send it (`fresh`); None when nothing is kept yet, or when the
        client asks for something other than JSON (the browsable API, a format that is
        not ours): the long way answers that."""
        # What DRF's `dispatch` and `initial` set up before a view, but for the caller: no
        # authentication, no permissions (the glance vouched for both).
        self.args, self.kwargs = args, kwargs
        self.request = self.initialize_request(request, *args, **kwargs)
        self.headers = self.default_response_headers
        self.format_kwarg = self.get_format_suffix(**kwargs)
        try:
            renderer, media_type = self.perform_content_negotiation(self.request)
        except (NotAcceptable, Http404):
            return None
        if not isinstance(renderer, JSONRenderer):
            return None
        self.request.accepted_renderer, self.request.accepted_media_type = renderer, media_type
        etag = unchanged.tag(found.session_id, found.version, found.role)
        if unchanged.holds(request, etag):
            # Nothing to render: DRF's finalizing would add only the view's headers.
            not_modified = HttpResponseNotModified()
            for name, value in self.headers.items():
                not_modified[name] = value
            return unchanged.tagged(not_modified, etag)
        kept_as = self._kept_as(request, found.role)
        for counter in self.kept_by:
            data = answers.peek(
                answers.key_at(
                    found.session_id,
                    getattr(found, counter),
                    found.started_at,
                    *kept_as,
                    counter=counter,
                )
            )
            if data is not None:
                break
        else:
            return None
        response = unchanged.tagged(Response(data), etag)
        return cast(HttpResponseBase, self.finalize_response(self.request, response))

    @staticmethod
    def _kept_as(request: Any, role: Role) -> tuple[str, str, Role]:
        """What a watched read's answer is kept under, with the session's version."""
        return ("api", request.get_full_path(), role)

    def watched_session(self, pk: int) -> Session:
        """`access_session(self.actor, pk)` for a watched read of a session: when the
        request went the long way after a token's glance (nothing kept yet), the session
        the glance read with the caller (`tracker.glance.session_of`), not read again."""
        found = self._token_glance()
        if found is not None and found.deal_id is None and found.session_id == pk:
            require(self.actor, Role.VIEWER)
            return session_of(found)
        return access_session(self.actor, pk)

    def watched_deal(self, pk: int) -> Deal:
        """`access_deal(self.actor, pk)` for a watched read of a deal, as `watched_session`
        is for a session's (`tracker.glance.deal_of`)."""
        found = self._token_glance()
        if found is not None and found.deal_id == pk:
            require(self.actor, Role.VIEWER)
            return deal_of(found)
        return access_deal(self.actor, pk)

    def _token_glance(self) -> Glance | None:
        found: Glance | None = getattr(self.request._request, "glanced", None)
        return found if found is not None and found.token_row is not None else None

    def get_exception_handler(self) -> Any:
        return api_exception_handler

    @property
    def actor(self) -> Actor:
        actor = actor_of(self.request)
        assert actor is not None  # RolePermission let only known callers in
        return actor

    def valid(self, serializer_class: type[Serializer]) -> Any:
        """The request body, validated; a body that is not a JSON object is refused."""
        if not isinstance(self.request.data, dict):
            raise ValidationError(_("The request body must be a JSON object."))
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer

    def fresh(
        self, session: Session, answer: Callable[[], Response], *, counter: str | None = None
    ) -> Response:
        """A read of the session's data, tagged with the session's version (`ETag`): a
        client that sends the tag back (`If-None-Match`) while nothing changed gets 304
        Not Modified, and `answer` is never computed. The tag also holds what changes the
        answer besides the session: the caller's role and the language. The answer is
        kept by `counter`, one of the view's `kept_by` (the first unless given)."""
        counter = self.kept_by[0] if counter is None else counter
        assert counter in self.kept_by  # a glance finds only what it tries
        etag = unchanged.tag(session.pk, session.version, self.actor.role)
        if unchanged.holds(self.request, etag):
            return unchanged.tagged(Response(status=304), etag)
        # The same tag is the same answer for every caller: the first computes it, the
        # session's other readers at this version get it from memory.
        data = answers.kept(
            session,
            self._kept_as(self.request, self.actor.role),
            lambda: answer().data,
            counter=counter,
        )
        return unchanged.tagged(Response(data), etag)

    def paginated(self, queryset: Any, serializer_class: type[Serializer]) -> Response:
        paginator = StrictPagination()
        page = paginator.paginate_queryset(queryset, self.request, view=self)
        return paginator.get_paginated_response(serializer_class(page, many=True).data)


Handler = Callable[..., Response]


def no_store(response: Response) -> Response:
    """An answer that shows a token (a share link's, an API token): never kept by a
    browser or a proxy."""
    add_never_cache_headers(response)
    return response


def _body(request: Request) -> bytes:
    try:
        return request.body
    except RawPostDataException:  # a multipart body already parsed: hash what it holds
        return json.dumps(request.data, sort_keys=True, default=str).encode()


def _answer(response: Response) -> gate.Answer | None:
    if not 200 <= response.status_code < 300:
        return None
    return gate.Answer(response.status_code, JSONRenderer().render(response.data).decode())


def gated(handler: Handler) -> Handler:
    """A view's write method (post, put, patch, delete) through the one write gate:
    counted against the caller's write rate, applied once per `Idempotency-Key`."""

    @functools.wraps(handler)
    def write(view: ApiView, request: Request, *args: Any, **kwargs: Any) -> Response:
        outcome = gate.write_once(
            actor=view.actor,
            key=request.headers.get(gate.HEADER),
            fingerprint=gate.fingerprint(request.method, request.get_full_path(), _body(request)),
            work=lambda: handler(view, request, *args, **kwargs),
            answer=_answer,
        )
        if isinstance(outcome, gate.Replay):
            stored = outcome.answer
            data = json.loads(stored.body) if stored.body else None
            replay = Response(data, status=stored.status, headers={REPLAYED_HEADER: "true"})
            return no_store(replay)  # it may show a token (a share link made)
        return outcome

    write.gated = True  # type: ignore[attr-defined]
    return write
