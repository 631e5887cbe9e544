"""A circle's members and invites in the API: list members, remove one or leave, hand
the circle over; make, list and revoke invites, and join with one; say which player is
you ("this is me"). Members only (an account, never a share link); answers that show an
invite's token are not cached."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import selectors, services
from tracker.access import Role, access_circle, access_invite, access_player
from tracker.api import serializers as io
from tracker.api.base import ApiView, gated, no_store
from tracker.api.fields import ClosedInput, IdField, StringField
from tracker.api.schema import reads, writes

# --- What goes in and out ------------------------------------------------------------------


class MemberOut(serializers.Serializer):
    id = serializers.IntegerField(source="user.pk", help_text="The account's id.")
    username = serializers.CharField(source="user.username")
    owner = serializers.BooleanField()
    player = serializers.IntegerField(
        source="player.pk", allow_null=True, default=None, help_text="Their player, if said."
    )


class HandOverInput(ClosedInput):
    user = IdField(help_text="The member who becomes the owner.")


class InviteInput(ClosedInput):
    days = serializers.IntegerField(
        default=7, min_value=1, max_value=30, help_text="How long it works: 1 to 30 days."
    )
    max_uses = serializers.IntegerField(
        default=1,
        allow_null=True,
        min_value=1,
        max_value=100,
        help_text="How many may join with it (1 to 100), or null for any number.",
    )


class InviteOut(serializers.Serializer):
    id = serializers.IntegerField()
    circle = serializers.IntegerField(source="circle_id")
    token = serializers.CharField(help_text="Send to POST /api/invites/accept/.")
    url = serializers.SerializerMethodField(help_text="The link to hand out (its QR code).")
    max_uses = serializers.IntegerField(allow_null=True)
    uses = serializers.IntegerField()
    active = serializers.BooleanField(source="is_active")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)

    def get_url(self, invite: Any) -> str:
        request = self.context.get("request")
        path = reverse("join", kwargs={"token": invite.token})
        return request.build_absolute_uri(path) if request is not None else path


class InviteAcceptInput(ClosedInput):
    token = StringField(max_length=64, help_text="The invite's token (the end of its link).")


# --- Views ----------------------------------------------------------------------------------


class MembersView(ApiView):
    need = {"GET": Role.MEMBER}

    @reads(MemberOut(many=True), summary="A circle's members, the owner marked")
    def get(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        return Response(MemberOut(selectors.circle_members(circle), many=True).data)


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

    @writes(HandOverInput, 200, io.CircleOut, summary="Hand the circle to another member")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        user_id = self.valid(HandOverInput).validated_data["user"]
        circle = services.circle_hand_over(circle=circle, user_id=user_id, actor=self.actor)
        return Response(io.CircleOut(circle).data)


class InvitesView(ApiView):
    need = {"GET": Role.MEMBER, "POST": Role.MEMBER}

    @reads(InviteOut(many=True), summary="A circle's invites that still work")
    def get(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        invites = selectors.circle_invites(circle)
        data = InviteOut(invites, many=True, context={"request": request}).data
        return no_store(Response(data))

    @writes(InviteInput, 201, InviteOut, summary="Make an invite link")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        wanted = self.valid(InviteInput).validated_data
        invite = services.invite_create(
            circle=circle, actor=self.actor, days=wanted["days"], max_uses=wanted["max_uses"]
        )
        data = InviteOut(invite, context={"request": request}).data
        return no_store(Response(data, status=status.HTTP_201_CREATED))


class InviteRevokeView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(None, 200, InviteOut, summary="Revoke an invite")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        invite = access_invite(self.actor, pk)
        invite = services.invite_revoke(invite_id=invite.pk, actor=self.actor)
        return no_store(Response(InviteOut(invite, context={"request": request}).data))


class InviteAcceptView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(InviteAcceptInput, 200, io.CircleOut, summary="Join a circle with an invite")
    @gated
    def post(self, request: Request) -> Response:
        token = self.valid(InviteAcceptInput).validated_data["token"]
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
