from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quotes", "0026_tiers"),
    ]

    operations = [
        migrations.AddField(
            model_name="quoterevision",
            name="lease_term_months",
            field=models.PositiveSmallIntegerField(
                blank=True, null=True, verbose_name="lease term (months)"
            ),
        ),
    ]
