from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "TCO analysis"

    def ready(self) -> None:
        # Any catalog write invalidates cached calculator pages (tco/web/page_cache.py) and the
        # in-memory catalog (CatalogSnapshot.current).
        from catalog import models as catalog_models
        from catalog.generation import bump_after_bulk_write, bump_on_every_write
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
            bump_on_every_write(model, uid=f"tco-cache-{model.__name__}")
