"""axe-core in the browser tests: the accessibility check every tested page runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "vendor" / "axe-4.14.1.min.js"


def serious_accessibility_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations of serious or critical impact on the page as it stands, and
    any duplicate element id (axe 4.14 no longer checks plain duplicates, but a label or a
    script that finds the wrong element is no minor matter)."""
    # Evaluated through the DevTools protocol: the page's Content-Security-Policy (rightly)
    # refuses an injected inline <script>, which is what add_script_tag would add.
    page.evaluate(AXE.read_text() + "\n;undefined")
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
            .filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 3)}))"""
    )
    duplicates: list[str] = page.evaluate(
        """() => {
            const seen = new Map();
            for (const el of document.querySelectorAll("[id]")) {
                seen.set(el.id, (seen.get(el.id) || 0) + 1);
            }
            return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
        }"""
    )
    if duplicates:
        found.append({"id": "duplicate-id", "nodes": duplicates[:3]})
    return found
