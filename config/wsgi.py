import os

from django.core.wsgi import get_wsgi_application

from common.memory import settle_after_startup

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()
settle_after_startup()
