from django.urls import path

from . import views
from .api import api

urlpatterns = [
    path("v1/", api.urls),
    path("tokens/", views.tokens, name="api_tokens"),
    path("tokens/<uuid:public_id>/revoke/", views.token_revoke, name="api_token_revoke"),
]
