"""QuoteLine.priced_at: when the line's unit price was copied from the catalog.

Existing lines get the creation time of their quote: the earliest moment their price can
have been copied (a revise copies lines with their prices). Erring early means a draft may
show a catalog change its line already has; re-pricing it is harmless, a missed change
is not.

The column becomes required in 0004, in a transaction of its own (PostgreSQL refuses to
alter a table that has pending trigger events from the backfill).
"""

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps
from django.db.models import OuterRef, Subquery


def backfill_priced_at(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    QuoteLine = apps.get_model("quotes", "QuoteLine")
    Quote = apps.get_model("quotes", "Quote")
    created = Quote.objects.filter(revisions=OuterRef("revision_id")).values("created_at")[:1]
    QuoteLine.objects.update(priced_at=Subquery(created))


class Migration(migrations.Migration):
    dependencies = [("quotes", "0002_sales_group")]

    operations = [
        migrations.AddField(
            model_name="quoteline",
            name="priced_at",
            field=models.DateTimeField(null=True, verbose_name="priced at"),
        ),
        migrations.RunPython(backfill_priced_at, migrations.RunPython.noop),
    ]
