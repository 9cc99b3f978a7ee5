from django.urls import path

from . import views

app_name = "catalog"
urlpatterns = [
    path("", views.catalog_overview, name="overview"),
    path("import/", views.price_import, name="import"),
    path("import/<int:pk>/", views.price_import_detail, name="import_detail"),
    path("import/<int:pk>/apply/", views.price_import_apply, name="import_apply"),
    path("import/<int:pk>/discard/", views.price_import_discard, name="import_discard"),
    path("export/", views.price_export, name="export"),
    path("prices/<str:kind>/<str:key>/", views.price_history, name="price_history"),
]
