"""A server's list price gets its own date, apart from its specifications' (as_of).

Until now one date served both; it was the price's (the price history's dates are), so
each server's price date starts as that date.
"""

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps
from django.db.models import F


def copy_dates(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    ServerModel = apps.get_model("catalog", "ServerModel")
    ServerModel.objects.update(price_as_of=F("as_of"))


class Migration(migrations.Migration):
    dependencies = [("catalog", "0014_dutch_sources")]

    operations = [
        migrations.AddField(
            model_name="servermodel",
            name="price_as_of",
            field=models.DateField(null=True, verbose_name="price as of"),
        ),
        migrations.RunPython(copy_dates, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="servermodel",
            name="price_as_of",
            field=models.DateField(verbose_name="price as of"),
        ),
    ]
