from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuotesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "quotes"
    verbose_name = _("Quotes")

    def ready(self) -> None:
        # Every page's header and footer show the company profile (templates/base.html):
        # cached anonymous calculator pages (tco/web/page_cache.py) must not keep an old one.
        from catalog.generation import bump_on_every_write

        from .models import CompanyProfile

        bump_on_every_write(CompanyProfile, uid="quotes-company-page-cache")

        # Registers the quote path's Celery tasks in this process too, so that
        # quotes/services/queue.py finds them by name (a worker finds them by autodiscovery).
        from . import tasks  # noqa: F401
