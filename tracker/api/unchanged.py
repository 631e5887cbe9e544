"""A watched read's tag (`ETag`), and the caller's glance at the session for a client
asking again: with a token or a share link, the caller and the session's version are
read in one statement (`tracker.glance`), so that an unchanged session is answered 304,
and a version another client already asked about from memory, with nothing else read
(`ApiView.dispatch`). Every other case goes the long way (`ApiView.fresh`), which answers
as it always did.
"""

from __future__ import annotations

from typing import TypeVar

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags, quote_etag
from django.utils.translation import get_language
from rest_framework.authentication import get_authorization_header

from tracker import glance


def tag(session_id: int, version: int, role: str) -> str:
    """What changes a watched read's answer: the session's version, and besides it the
    caller's role and the language."""
    return quote_etag(f"{session_id}.{version}.{role}.{get_language()}")


def holds(request: HttpRequest, etag: str) -> bool:
    """Whether the client sent back the tag (`If-None-Match`): it holds this answer."""
    sent = parse_etags(request.headers.get("If-None-Match", ""))
    return etag in sent or "*" in sent


Tagged = TypeVar("Tagged", bound=HttpResponseBase)


def tagged(response: Tagged, etag: str) -> Tagged:
    response["ETag"] = etag
    patch_cache_control(response, private=True, no_cache=True)  # always ask again
    return response


def glance_of(request: HttpRequest, pk: int, *, deal: bool) -> glance.Glance | None:
    """The session (`pk`, or deal `pk`'s) as the caller's token or share link reaches it,
    from one statement; None for every other caller, and for one the long way must
    answer (`tracker.glance`)."""
    words = get_authorization_header(request).split()
    if len(words) != 2:
        return None
    try:
        scheme, credential = words[0].decode("ascii").lower(), words[1].decode("ascii")
    except UnicodeDecodeError:
        return None
    if scheme == "token":
        return glance.by_token(credential, pk, deal=deal)
    if scheme == "share":
        return glance.by_link(credential, pk, deal=deal)
    return None
