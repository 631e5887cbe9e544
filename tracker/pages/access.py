"""Who may see and do what on a session's pages, and writes applied once per key.

A session's pages are reached by a member of its circle (`/sessions/<id>/...`) or through
a share link (`/s/<token>/...`): a scorer link may tap, a viewer link may only look.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from tracker.models import Circle, IdempotencyKey, Session, ShareLink
from tracker.services import Actor


class _Urls:
    """`{{ urls.standings }}` in a template: the session's pages, by the way in."""

    def __init__(self, access: Access) -> None:
        self._access = access

    def __getitem__(self, name: str) -> str:
        return self._access.url(name)


@dataclass
class Access:
    """How this request reached the session: as a member, or with a scorer/viewer link."""

    session: Session
    role: str
    actor: Actor
    namespace: str
    url_kwargs: dict[str, Any]

    MEMBER = "member"

    @property
    def can_score(self) -> bool:
        return self.role in (self.MEMBER, ShareLink.Role.SCORER)

    @property
    def is_member(self) -> bool:
        return self.role == self.MEMBER

    @property
    def is_viewer(self) -> bool:
        return self.role == ShareLink.Role.VIEWER

    def url(self, name: str, **kwargs: Any) -> str:
        return reverse(f"{self.namespace}:{name}", kwargs={**self.url_kwargs, **kwargs})

    @cached_property
    def urls(self) -> _Urls:
        return _Urls(self)

    @property
    def scope(self) -> str:
        """Whose idempotency keys these are: the account, or the link."""
        if self.actor.link is not None:
            return f"link:{self.actor.link.pk}"
        return f"user:{self.actor.user.pk if self.actor.user else 0}"


def _access(request: HttpRequest, *, session_id: int | None, token: str | None) -> Access:
    if token is not None:
        link = (
            ShareLink.objects.select_related("session__circle")
            .filter(token=token, revoked_at__isnull=True)
            .first()
        )
        if link is None:
            raise Http404("No such link")
        return Access(
            session=link.session,
            role=link.role,
            actor=Actor(link=link),
            namespace="link",
            url_kwargs={"token": token},
        )
    session = (
        Session.objects.select_related("circle")
        .filter(pk=session_id, circle__members=request.user)
        .first()
    )
    if session is None:
        raise Http404("No such session")
    return Access(
        session=session,
        role=Access.MEMBER,
        actor=Actor(user=request.user),
        namespace="member",
        url_kwargs={"session_id": session_id},
    )


def session_page(
    *, score: bool = False, member: bool = False, methods: Sequence[str] = ("GET",)
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A view of one session, reached by a member or a link.

    Anonymous on a member URL: to the login page. Not a member, or a revoked link: 404.
    `score`: a viewer link is refused (403). `member`: only members (403 for links).
    """

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(
            request: HttpRequest,
            session_id: int | None = None,
            token: str | None = None,
            **kwargs: Any,
        ) -> HttpResponse:
            if request.method not in methods:
                return HttpResponseNotAllowed(list(methods))
            if token is None and not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            access = _access(request, session_id=session_id, token=token)
            if score and not access.can_score:
                raise PermissionDenied("A viewer link cannot score.")
            if member and not access.is_member:
                raise PermissionDenied("Only the circle's members can do this.")
            return view(request, access, **kwargs)

        return wrapper

    return decorate


def member_circle(request: HttpRequest, circle_id: int) -> Circle:
    circle = Circle.objects.filter(pk=circle_id, members=request.user).first()
    if circle is None:
        raise Http404("No such circle")
    return circle


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


# --- Retried writes: the same key is applied once ---------------------------------------
# Every render of the tap screen carries a fresh key; a button retried after a failure
# sends the same key and body again. The key is stored (in the API's IdempotencyKey
# table, scoped to the caller like the API's keys) in the same transaction as the write:
# both commit or neither does, and a duplicate — even one racing the first on another
# server process — trips the unique constraint and just gets the current screen.


def _stored_key(key: str, fingerprint: str) -> tuple[str, str]:
    digest = hashlib.sha256(fingerprint.encode()).hexdigest()
    return f"page:{key}:{digest[:16]}", digest


def apply_once(access: Access, key: str, fingerprint: str, write: Callable[[], object]) -> bool:
    """Run `write` unless this key and body were applied before; False if they were.

    A ServiceError from `write` propagates, and the key is not kept: a retry runs afresh.
    """
    if not key:
        write()
        return True
    stored, digest = _stored_key(key, fingerprint)
    with transaction.atomic():
        try:
            # On PostgreSQL a duplicate waits here until the first request's transaction
            # ends: it then finds the key taken (applied) or free (the first failed).
            with transaction.atomic():
                IdempotencyKey.objects.create(
                    scope=access.scope,
                    key=stored,
                    fingerprint=digest,
                    state=IdempotencyKey.State.DONE,
                    status_code=200,
                    finished_at=timezone.now(),
                )
        except IntegrityError:
            return False
        write()
    return True
