import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("quotes", "0003_quoteline_priced_at")]

    operations = [
        migrations.AlterField(
            model_name="quoteline",
            name="priced_at",
            field=models.DateTimeField(default=django.utils.timezone.now, verbose_name="priced at"),
        ),
    ]
