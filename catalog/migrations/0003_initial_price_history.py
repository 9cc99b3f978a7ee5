"""Start the price history of catalog rows that existed before history was kept.

Each current price becomes the first entry of its history, effective from its `as_of`,
so that "the price in effect on a date" has a starting point for every row.
"""

from decimal import Decimal

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

SOURCE = "price history started (migration)"
PRICE_MODELS = (
    ("cloud", "CloudOffering", "price_per_hour"),
    ("servers", "ServerModel", "list_price"),
    ("items", "InfrastructureItem", "price"),
)


def start_history(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    PriceChange = apps.get_model("catalog", "PriceChange")
    started = set(PriceChange.objects.values_list("kind", "key").distinct())
    entries = []
    for kind, model_name, field in PRICE_MODELS:
        for row in apps.get_model("catalog", model_name).objects.all():
            if (kind, row.key) in started:
                continue
            entries.append(
                PriceChange(
                    kind=kind,
                    key=row.key,
                    field=field,
                    old_value=None,
                    new_value=getattr(row, field),
                    currency=row.currency,
                    effective_from=row.as_of,
                    source=SOURCE,
                )
            )
    previous: dict[str, Decimal] = {}
    for rate in apps.get_model("catalog", "FxRate").objects.order_by("base", "quote", "as_of"):
        key = f"{rate.base}-{rate.quote}"
        if ("fx", key) not in started:
            entries.append(
                PriceChange(
                    kind="fx",
                    key=key,
                    field="rate",
                    old_value=previous.get(key),
                    new_value=rate.rate,
                    currency=rate.quote,
                    effective_from=rate.as_of,
                    source=SOURCE,
                )
            )
        previous[key] = rate.rate
    PriceChange.objects.bulk_create(entries, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0002_price_history")]

    operations = [migrations.RunPython(start_history, migrations.RunPython.noop)]
