"""A small URLconf for the middleware tests: views that touch the database or the user,
beside the real /healthz, so the tests do not depend on the pages' or API's views."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from tracker.health import healthz
from tracker.models import Circle


def circle_count(request: HttpRequest) -> HttpResponse:
    return HttpResponse(str(Circle.objects.count()), content_type="text/plain")


def who(request: HttpRequest) -> HttpResponse:
    return HttpResponse(str(request.user.pk), content_type="text/plain")


def broken(request: HttpRequest) -> HttpResponse:
    raise ValueError("not a database problem")


urlpatterns = [
    path("healthz", healthz),
    path("circles/", circle_count),
    path("who/", who),
    path("broken/", broken),
]
