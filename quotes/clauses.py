"""The standard clauses a proposal states beside the company's own terms.

The export-control and cancellation wordings are the company's (CompanyProfile, edited in
the admin); these are their defaults, a distributor's usual wording for NVIDIA data-centre
GPUs. The seeded default terms refer to the proposal's own delivery schedule and the
warranty stated per line instead of "confirmed at order" and "manufacturer warranty"
(migration 0017 replaces the earlier seed where it was not edited).
"""

from __future__ import annotations

EXPORT_CONTROL_EN = (
    "NVIDIA data-centre GPUs and the systems that contain them are subject to US export "
    "controls (Export Administration Regulations, ECCN 3A090 and 4A090) and to the EU "
    "dual-use regulation (EU) 2021/821. Before delivery you state in writing the end use and "
    "the end user of the goods; you do not export, re-export or make them available contrary "
    "to these rules or to the end use and end user you stated. Delivery is subject to any "
    "licence these rules require."
)
EXPORT_CONTROL_NL = (
    "NVIDIA-datacenter-GPU's en de systemen waarin zij zitten vallen onder de Amerikaanse "
    "exportregels (Export Administration Regulations, ECCN 3A090 en 4A090) en de "
    "EU-verordening (EU) 2021/821 voor producten voor tweeërlei gebruik. Vóór de levering "
    "vermeldt u schriftelijk het eindgebruik en de eindgebruiker van de goederen; u voert ze "
    "niet uit, voert ze niet weder uit en stelt ze niet ter beschikking in strijd met deze "
    "regels of met het eindgebruik en de eindgebruiker die u hebt opgegeven. Levering gebeurt "
    "onder voorbehoud van een vergunning die deze regels vereisen."
)
CANCELLATION_EN = (
    "Custom-configured systems are built to your order: after our order confirmation they "
    "cannot be cancelled or returned. Standard stock items can be returned unused, in their "
    "original packaging, within 14 days of delivery, at a restocking fee of 15 % of their "
    "price. This does not affect returns under warranty."
)
CANCELLATION_NL = (
    "Op maat geconfigureerde systemen worden voor uw order gebouwd: na onze orderbevestiging "
    "kunt u ze niet annuleren of retourneren. Standaardartikelen uit voorraad kunt u binnen "
    "14 dagen na levering ongebruikt en in de originele verpakking retourneren, tegen "
    "15 % retourkosten over hun prijs. Dit laat retouren onder garantie onverlet."
)

# The default terms as first seeded (migration 0007) and as seeded now: the delivery and
# warranty lines refer to the proposal itself, and the general terms are named once, by
# the proposal's own sentence that links or attaches them.
OLD_TERMS_EN = (
    "Prices are in the stated currency, excluding VAT, delivered DAP at the buyer's site in "
    "the EU unless stated otherwise.\n"
    "Payment: 30 days net from the invoice date. Ownership passes on full payment.\n"
    "Delivery: hardware lead times are confirmed at order; installation is scheduled with you.\n"
    "Warranty: manufacturer warranty; support as quoted.\n"
    "Our general terms of sale (NLdigital Terms 2020) apply; other terms are rejected."
)
OLD_TERMS_NL = (
    "Prijzen in de genoemde valuta, exclusief btw, geleverd DAP op uw locatie in de EU, "
    "tenzij anders vermeld.\n"
    "Betaling: binnen 30 dagen na factuurdatum. Eigendom gaat over na volledige betaling.\n"
    "Levering: levertijden van hardware bevestigen wij bij de order; de installatie plannen "
    "wij met u.\n"
    "Garantie: fabrieksgarantie; support zoals aangeboden.\n"
    "Op deze aanbieding zijn onze algemene verkoopvoorwaarden (NLdigital Voorwaarden 2020) "
    "van toepassing; andere voorwaarden wijzen wij af."
)
TERMS_EN = (
    "Prices are in the stated currency, excluding VAT, delivered DAP at the buyer's site in "
    "the EU unless stated otherwise.\n"
    "Payment: as in the payment schedule of this proposal, 30 days net from each invoice "
    "date. Ownership passes on full payment."
)
TERMS_NL = (
    "Prijzen in de genoemde valuta, exclusief btw, geleverd DAP op uw locatie in de EU, "
    "tenzij anders vermeld.\n"
    "Betaling: volgens het betalingsschema in dit voorstel, binnen 30 dagen na elke "
    "factuurdatum. Eigendom gaat over na volledige betaling."
)
