"""The configurator of a draft option (sales): a chassis, its components (a choice and a
quantity per row), the check with each violation worded, price, margin and power per
system, updated as the engineer types (htmx GET of the same page, the result swapped in),
and "add to this option" (services.configured).

The configuration travels in the query (`server`, then `part` and `qty` repeated per row),
so the page is a plain GET form without JavaScript and a configuration can be linked.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from catalog.configure.rules import Configuration
from catalog.configure.service import NotConfigurable, check_configuration, default_configuration
from catalog.configure.wording import describe
from catalog.models import Component, ComponentRole, ServerModel
from common.http import AuthenticatedHttpRequest

from .. import selectors, services
from ..models import QuoteRevision
from ..services.bom import main_system
from ..services.configured import figures, revision_add_configured_system
from .access import sales_required
from .actions import detail_url

MAX_QUANTITY = 64  # per system: more than any chassis takes of one part
EXTRA_ROWS = 1  # an empty row to add a part the default has no row for


def configurable_servers() -> list[ServerModel]:
    """The server models with chassis rules, by vendor and SKU."""
    return list(
        ServerModel.objects.filter(rules__isnull=False)
        .select_related("gpu")
        .order_by("vendor", "sku")
    )


def _quantity(text: str) -> int | None:
    try:
        value = Decimal(text)
    except (InvalidOperation, ValueError):
        return None
    if value != value.to_integral_value() or not 0 <= value <= MAX_QUANTITY:
        return None
    return int(value)


def requested_configuration(
    server: ServerModel, query: QueryDict
) -> tuple[Configuration, list[str]]:
    """The configuration in the query (rows of part and quantity; a row with an empty part
    or quantity 0 counts nothing), or the chassis's default when the query has no rows;
    with the rows' input errors worded."""
    parts, quantities = query.getlist("part"), query.getlist("qty")
    if not parts:
        return default_configuration(server), []
    items, errors = [], []
    for part, text in zip(parts, quantities, strict=False):
        if not part:
            continue
        quantity = _quantity(text)
        if quantity is None:
            errors.append(
                _("%(part)s: give a whole number from 0 to %(max)s.")
                % {"part": part, "max": MAX_QUANTITY}
            )
            continue
        items.append((part, quantity))
    return Configuration(server.key, tuple(items)), errors


def _rows(configuration: Configuration, components: Sequence[Component]) -> list[dict[str, Any]]:
    """The form's rows: each part with the components of its role to choose from, then
    empty rows offering every component."""
    by_part = {c.part_number: c for c in components}
    rows = []
    for index, (part, quantity) in enumerate(configuration.items):
        component = by_part.get(part)
        role = component.role if component else ""
        rows.append(
            {
                "index": index,
                "part": part,
                "quantity": quantity,
                "role": role,
                "role_label": ComponentRole(role).label if role else _("part"),
                "choices": [c for c in components if c.role == role] if role else [],
            }
        )
    for extra in range(EXTRA_ROWS):
        rows.append(
            {
                "index": len(rows) + extra,
                "part": "",
                "quantity": 0,
                "role": "",
                "role_label": _("Add a part"),
                "choices": list(components),
            }
        )
    return rows


def configurator_context(
    revision: QuoteRevision | None,
    server: ServerModel,
    query: QueryDict,
    *,
    with_form: bool = True,
) -> dict[str, Any]:
    """What the configurator shows for the configuration in `query`: the check, figures
    and (`with_form`: the whole page, not an edit's answer) the rows to choose from."""
    configuration, errors = requested_configuration(server, query)
    result = check_configuration(server, configuration)
    context: dict[str, Any] = {
        "revision": revision,
        "server": server,
        "input_errors": errors,
        "result": result,
        "violations": [describe(f) for f in result.violations],
        "recommendations": [describe(f) for f in result.recommendations],
        "figures": figures(result),
    }
    if with_form:
        components = list(Component.objects.order_by("role", "manufacturer", "part_number"))
        context.update(
            servers=configurable_servers(),
            rows=_rows(configuration, components),
            fixed=server.rules.fixed,
            systems=query.get("systems") or "1",
        )
    return context


def _server(query: QueryDict, revision: QuoteRevision) -> ServerModel | None:
    """The chassis asked for, else the option's main system's model if configurable,
    else the first that is configured to order (not a fixed DGX or NVL72)."""
    servers = {s.key: s for s in configurable_servers()}
    asked = str(query.get("server") or "")
    if asked in servers:
        return servers[asked]
    main = main_system(revision)
    key = main.catalog_key.partition(":")[2] if main is not None else ""
    open_ones = [s for s in servers.values() if not s.rules.fixed]  # configure to order
    return servers.get(key) or next(iter(open_ones or servers.values()), None)


@require_GET
@sales_required
def configurator(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    server = _server(request.GET, revision)
    if server is None:
        messages.error(request, _("No system in the catalog can be configured part by part."))
        return redirect(detail_url(revision))
    try:
        context = configurator_context(revision, server, request.GET, with_form=not request.htmx)
    except NotConfigurable:
        messages.error(request, _("This system cannot be configured part by part."))
        return redirect(detail_url(revision))
    context["quote"] = revision.quote
    context["current"] = revision
    template = "quotes/_configurator_result.html" if request.htmx else "quotes/configure.html"
    return render(request, template, context)


@require_POST
@sales_required
def configured_add(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    """Add the posted configuration to the option (a draft) and go back to its lines; a
    refused one comes back to the configurator with the reason."""
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    server = _server(request.POST, revision)
    back = f"{request.path.rsplit('add/', 1)[0]}?{request.POST.urlencode()}"
    if server is None:
        return redirect(detail_url(revision))
    configuration, errors = requested_configuration(server, request.POST)
    systems = _quantity(request.POST.get("systems", ""))
    try:
        if errors:
            raise services.QuoteError(errors[0])
        if not systems:
            raise services.QuoteError(_("Give a whole number of systems."))
        revision_add_configured_system(
            revision=revision, configuration=configuration, quantity=Decimal(systems)
        )
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return redirect(back)
    messages.success(
        request,
        _("Added %(n)s × %(sku)s with its components.") % {"n": systems, "sku": server.sku},
    )
    return redirect(f"{detail_url(revision)}#draft-lines")
