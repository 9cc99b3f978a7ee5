from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "TCO analysis"

    def ready(self) -> None:
        # Any catalog write invalidates cached calculator pages (tco/web/page_cache.py) and the
        # in-memory catalog (CatalogSnapshot.current).
        from catalog import models as catalog_models
        from catalog.generation import bump_after_bulk_write, bump_catalog_generation
        from catalog.signals import catalog_written

        # Imports and the seed load write in bulk (no post_save per row) and say so once.
        catalog_written.connect(bump_after_bulk_write, weak=False, dispatch_uid="tco-cache-bulk")

        for model in (
            catalog_models.Gpu,
            catalog_models.ServerModel,
            catalog_models.CloudOffering,
            catalog_models.CloudRegion,
            catalog_models.Site,
            catalog_models.InfrastructureItem,
            catalog_models.FxRate,
            # The result's "What is in it" (tco.web.views.default_parts).
            catalog_models.Component,
            catalog_models.ChassisDefault,
        ):
            for signal in (post_save, post_delete):
                signal.connect(
                    bump_catalog_generation,
                    sender=model,
                    weak=False,
                    dispatch_uid=f"tco-cache-{signal is post_save}-{model.__name__}",
                )
