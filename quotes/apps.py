from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save
from django.utils.translation import gettext_lazy as _


class QuotesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "quotes"
    verbose_name = _("Quotes")

    def ready(self) -> None:
        # Every page's header and footer show the company profile (templates/base.html):
        # cached anonymous calculator pages (tco/web/page_cache.py) must not keep an old one.
        from catalog.generation import bump_catalog_generation

        from .models import CompanyProfile

        for signal in (post_save, post_delete):
            signal.connect(
                bump_catalog_generation,
                sender=CompanyProfile,
                weak=False,
                dispatch_uid=f"quotes-company-page-cache-{signal is post_save}",
            )

        # Registers the quote path's Celery tasks in this process too, so that
        # quotes/services/queue.py finds them by name (a worker finds them by autodiscovery).
        from . import tasks  # noqa: F401
