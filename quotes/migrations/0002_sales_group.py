from django.db import migrations


def create_sales_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name="sales")


class Migration(migrations.Migration):
    dependencies = [("quotes", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(create_sales_group, migrations.RunPython.noop)]
