from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from tracker.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("", include("tracker.page_urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("tracker.api.urls")),
]

handler404 = "tracker.api.exceptions.not_found"
