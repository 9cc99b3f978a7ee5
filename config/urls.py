from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from .health import healthz, ping
from .language import switch_language

urlpatterns = [
    path("", TemplateView.as_view(template_name="pages/home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("ping", ping, name="ping"),
    path("catalog/", include("catalog.urls")),
    path("calculator/", include("tco.urls")),
    path("quotes/", include("quotes.urls")),
    path("api/", include("api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("language/", switch_language, name="switch_language"),
    path("admin/", admin.site.urls),
]
