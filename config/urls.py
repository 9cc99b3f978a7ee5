from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from .health import healthz

urlpatterns = [
    path("", TemplateView.as_view(template_name="pages/home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("catalog/", include("catalog.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
