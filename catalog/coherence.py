"""Prices a buyer would find incoherent: comparable servers priced against their rank.

An NVIDIA DGX is the integrated system (the same GPUs and NVLink board as an HGX server,
with NVIDIA's networking, software and support); priced below an HGX server of the same GPU
and count from our own price list, it would undercut the server we sell beside it for no
reason a buyer could see. The catalog page shows staff each such pair, and `load_catalog`
prints them (docs/catalog.md, "Coherent prices").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from .models import FxRate, ServerModel


@dataclass(frozen=True)
class PriceInversion:
    """An integrated system listed below a server it competes with."""

    system: ServerModel
    competitor: ServerModel
    system_usd: Decimal
    competitor_usd: Decimal

    def __str__(self) -> str:
        return (
            f"{self.system.vendor} {self.system.sku} (${self.system_usd:,.0f}) is listed below "
            f"{self.competitor.vendor} {self.competitor.sku} (${self.competitor_usd:,.0f}), "
            f"an HGX server with the same {self.system.gpu_count} × {self.system.gpu.name}"
        )


def is_integrated_system(server: ServerModel) -> bool:
    return server.vendor.upper() == "NVIDIA" and server.sku.upper().startswith("DGX")


def _usd(server: ServerModel, usd_per_eur: Decimal | None) -> Decimal | None:
    if server.currency == "USD":
        return server.list_price
    if usd_per_eur is None:
        return None
    return server.list_price * usd_per_eur


def price_inversions(
    servers: Iterable[ServerModel], usd_per_eur: Decimal | None
) -> list[PriceInversion]:
    """Every DGX listed below an HGX server of the same GPU and GPU count.

    >>> from types import SimpleNamespace as S
    >>> h100 = S(name="H100 SXM5 80GB")
    >>> dgx = S(vendor="NVIDIA", sku="DGX H100", gpu=h100, gpu_id=1, gpu_count=8,
    ...     list_price=Decimal(199000), currency="USD")
    >>> hgx = S(vendor="Supermicro", sku="SYS-821GE-TNHR", gpu=h100, gpu_id=1, gpu_count=8,
    ...     list_price=Decimal(280000), currency="USD")
    >>> [str(i) for i in price_inversions([dgx, hgx], None)]  # doctest: +NORMALIZE_WHITESPACE
    ['NVIDIA DGX H100 ($199,000) is listed below Supermicro SYS-821GE-TNHR ($280,000), an HGX
      server with the same 8 × H100 SXM5 80GB']
    >>> dgx.list_price = Decimal(300000)
    >>> price_inversions([dgx, hgx], None)
    []
    """
    rows = list(servers)
    found: list[PriceInversion] = []
    for system in (s for s in rows if is_integrated_system(s)):
        system_usd = _usd(system, usd_per_eur)
        if system_usd is None:
            continue
        for other in rows:
            if is_integrated_system(other) or (other.gpu_id, other.gpu_count) != (
                system.gpu_id,
                system.gpu_count,
            ):
                continue
            other_usd = _usd(other, usd_per_eur)
            if other_usd is not None and system_usd < other_usd:
                found.append(PriceInversion(system, other, system_usd, other_usd))
    return found


def catalog_price_inversions() -> list[PriceInversion]:
    """The check on the catalog as it is now."""
    fx = FxRate.objects.filter(base="EUR", quote="USD").order_by("-as_of").first()
    servers = ServerModel.objects.select_related("gpu").order_by("vendor", "sku")
    return price_inversions(servers, fx.rate if fx else None)
