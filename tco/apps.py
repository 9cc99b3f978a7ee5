from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "TCO analysis"
