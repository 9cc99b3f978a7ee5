from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quotes", "0021_job_state"),
    ]

    operations = [
        migrations.AddField(
            model_name="team",
            name="remind_buyers",
            field=models.BooleanField(
                default=False,
                help_text="The buyer gets an email with the link to the proposal, once per revision.",
                verbose_name="remind buyers before a quote expires",
            ),
        ),
        migrations.AlterField(
            model_name="outboxemail",
            name="kind",
            field=models.CharField(
                choices=[
                    ("proposal", "proposal to buyer"),
                    ("lead_pdf", "calculator PDF"),
                    ("decision", "decision notice to owner"),
                    ("acceptance", "signed acceptance"),
                    ("lead_new", "new lead notice to team"),
                    ("approval", "margin approval notice"),
                    ("confirm", "address confirmation to visitor"),
                    ("unlock", "account unlock link to its owner"),
                    ("reminder", "reminder before a quote expires"),
                ],
                max_length=10,
            ),
        ),
    ]
