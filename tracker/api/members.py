"""A circle's members and invites in the API: list members, remove one or leave, hand
the circle over; make, list and revoke invites, and join with one; say which player is
you ("this is me"). Members only (an account, never a share link); answers that show an
invite's token are not cached."""

from __future__ import annotations

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import selectors, services
from tracker.access import Role, access_circle, access_invite, access_player
from tracker.api import serializers as io
from tracker.api.base import ApiView, gated, no_store
from tracker.api.schema import reads, writes


class MembersView(ApiView):
    need = {"GET": Role.MEMBER}

    @reads(io.MemberOut(many=True), summary="A circle's members, the owner marked")
    def get(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        return Response(io.MemberOut(selectors.circle_members(circle), many=True).data)


class MemberDetailView(ApiView):
    need = {"DELETE": Role.MEMBER}

    @writes(None, 204, None, summary="Remove a member (the owner), or leave (your own id)")
    @gated
    def delete(self, request: Request, pk: int, user_id: int) -> Response:
        circle = access_circle(self.actor, pk)
        services.member_remove(circle=circle, user_id=user_id, actor=self.actor)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CircleOwnerView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(io.HandOverInput, 200, io.CircleOut, summary="Hand the circle to another member")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        user_id = self.valid(io.HandOverInput).validated_data["user"]
        circle = services.circle_hand_over(circle=circle, user_id=user_id, actor=self.actor)
        return Response(io.CircleOut(circle).data)


class InvitesView(ApiView):
    need = {"GET": Role.MEMBER, "POST": Role.MEMBER}

    @reads(io.InviteOut(many=True), summary="A circle's invites that still work")
    def get(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        invites = selectors.circle_invites(circle)
        data = io.InviteOut(invites, many=True, context={"request": request}).data
        return no_store(Response(data))

    @writes(io.InviteInput, 201, io.InviteOut, summary="Make an invite link")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        wanted = self.valid(io.InviteInput).validated_data
        invite = services.invite_create(
            circle=circle, actor=self.actor, days=wanted["days"], max_uses=wanted["max_uses"]
        )
        data = io.InviteOut(invite, context={"request": request}).data
        return no_store(Response(data, status=status.HTTP_201_CREATED))


class InviteRevokeView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(None, 200, io.InviteOut, summary="Revoke an invite")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        invite = access_invite(self.actor, pk)
        invite = services.invite_revoke(invite_id=invite.pk, actor=self.actor)
        return no_store(Response(io.InviteOut(invite, context={"request": request}).data))


class InviteAcceptView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(io.InviteAcceptInput, 200, io.CircleOut, summary="Join a circle with an invite")
    @gated
    def post(self, request: Request) -> Response:
        token = self.valid(io.InviteAcceptInput).validated_data["token"]
        assert self.actor.user is not None  # an account: RolePermission let no link in
        circle = services.invite_accept(token=token, user=self.actor.user)
        return Response(io.CircleOut(circle).data)


class PlayerClaimView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(None, 200, io.PlayerOut, summary='"This is me": link the player to your account')
    @gated
    def post(self, request: Request, pk: int) -> Response:
        player = access_player(self.actor, pk)
        return Response(io.PlayerOut(services.player_claim(player=player, actor=self.actor)).data)


class PlayerUnclaimView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(None, 200, io.PlayerOut, summary='"Not me": unlink the player from its member')
    @gated
    def post(self, request: Request, pk: int) -> Response:
        player = access_player(self.actor, pk)
        player = services.player_unclaim(player=player, actor=self.actor)
        return Response(io.PlayerOut(player).data)
