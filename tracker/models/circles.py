"""Circles of friends and their players."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone


class Circle(models.Model):
    """People who play together: owns players, sessions and a leaderboard."""

    name = models.CharField(max_length=80)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_circles"
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="circles")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A person in a circle: a name, who need not have a login. A member of the circle
    may say a player is them ("this is me": `user`), one player per member per circle."""

    circle = models.ForeignKey(Circle, on_delete=models.PROTECT, related_name="players")
    name = models.CharField(max_length=40)
    created_at = models.DateTimeField(default=timezone.now)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="players",
    )

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "circle", name="player_name_unique_in_circle"),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_blank"),
            models.UniqueConstraint(
                fields=["circle", "user"],
                condition=Q(user__isnull=False),
                name="one_player_per_member_in_circle",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Invite(models.Model):
    """A link a member makes for friends to join the circle: whoever opens it signed in
    becomes a member. It works until `expires_at`, for `max_uses` joins (None: any
    number), until revoked. The token is a secret, like a share link's: backups leave it
    out unless asked (docs/backup.md)."""

    circle = models.ForeignKey(Circle, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    max_uses = models.PositiveIntegerField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Invite to {self.circle_id}"

    @property
    def used_up(self) -> bool:
        return self.max_uses is not None and self.uses >= self.max_uses

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.used_up and self.expires_at > timezone.now()
