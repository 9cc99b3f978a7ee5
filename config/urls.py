from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from . import auth_views
from .health import healthz, ping
from .language import switch_language

# A database outage raised in a middleware answers 503, not 500 (config/outage.py).
handler500 = "config.outage.server_error"

urlpatterns = [
    path("", TemplateView.as_view(template_name="pages/home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("ping", ping, name="ping"),
    path("catalog/", include("catalog.urls")),
    path("calculator/", include("tco.web.urls")),
    path("quotes/", include("quotes.urls")),
    path("api/", include("api.urls")),
    # Throttled (common/throttle.py); the rest of Django's sign-in views as they are.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path(
        "accounts/password_reset/",
        auth_views.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    path("language/", switch_language, name="switch_language"),
    path("admin/", admin.site.urls),
]
