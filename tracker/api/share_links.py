"""Share links in the API: list, make, revoke (members only)."""

from __future__ import annotations

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import selectors, services
from tracker.access import Role, access_session, access_share_link
from tracker.api import serializers as io
from tracker.api.base import ApiView, gated, no_store
from tracker.api.schema import reads, writes


class ShareLinksView(ApiView):
    need = {"GET": Role.MEMBER, "POST": Role.MEMBER}

    @reads(io.ShareLinkOut(many=True), summary="The session's share links, newest first")
    def get(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.MEMBER)
        return no_store(Response(io.ShareLinkOut(selectors.share_links(session), many=True).data))

    @writes(
        io.ShareLinkInput,
        201,
        io.ShareLinkOut,
        summary="Make a share link (revokes the active link of the same role)",
    )
    @gated
    def post(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.MEMBER)
        role = self.valid(io.ShareLinkInput).validated_data["role"]
        link = services.share_link_create(session_id=session.pk, role=role, actor=self.actor)
        return no_store(Response(io.ShareLinkOut(link).data, status=status.HTTP_201_CREATED))


class ShareLinkRevokeView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(None, 200, io.ShareLinkOut, summary="Revoke a share link")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        link = access_share_link(self.actor, pk)
        link = services.share_link_revoke(link_id=link.pk, actor=self.actor)
        return no_store(Response(io.ShareLinkOut(link).data))
