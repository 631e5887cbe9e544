from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from tracker.api.exceptions import api_nowhere
from tracker.health import healthz
from tracker.views import offline

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("manifest.webmanifest", offline.manifest, name="manifest"),
    path("sw.js", offline.service_worker, name="service_worker"),
    path("offline/", offline.offline, name="offline"),
    path("", include("tracker.page_urls")),
    # Django's sign-in, sign-out and password change. Not its password reset: accounts
    # have no email address to send a link to (docs/deploy.md, "Accounts").
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("admin/", admin.site.urls),
    # The API is versioned: /api/v1/ is its address (the schema lists it alone). The
    # paths before versioning (/api/...) keep working, on the same views, for clients
    # written against them (docs/api.md, "Versions").
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI with its start-up script as a file of its own (not inline), so the page
    # lives within the site's Content-Security-Policy.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/", include("tracker.api.urls", namespace="v1")),
    path("api/", include("tracker.api.urls", namespace="api")),
    # Whatever no route above takes under /api/ (and /api itself): JSON, with DEBUG on
    # too. `[\s\S]`, not `.`: an address ending in a newline (%0A) is one of them.
    re_path(r"^api(?:/[\s\S]*)?\Z", api_nowhere),
]

handler404 = "tracker.api.exceptions.not_found"
handler403 = "tracker.api.exceptions.forbidden"
