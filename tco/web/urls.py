from django.urls import path

from tco.web import views

app_name = "tco"
urlpatterns = [
    path("", views.calculator, name="calculator"),
    path("workbook.xlsx", views.calculator_workbook, name="workbook"),
]
