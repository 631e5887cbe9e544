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
    """A person in a circle: a name, who need not have a login."""

    circle = models.ForeignKey(Circle, on_delete=models.PROTECT, related_name="players")
    name = models.CharField(max_length=40)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "circle", name="player_name_unique_in_circle"),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name
