"""The scenario document: its schema, its errors and its published JSON Schema.

A scenario document (docs/scenario.md) describes what to run, on which server and site,
against which rented options. ``parse_document`` turns JSON-shaped data into a typed
``ScenarioDocument`` or a ``ScenarioError`` naming the path at fault; ``tco.scenario.resolve``
then resolves its catalog keys into the engine's inputs.
"""

from tco.scenario.errors import ScenarioError
from tco.scenario.schema import ScenarioDocument, parse_document, parse_server

__all__ = ["ScenarioDocument", "ScenarioError", "parse_document", "parse_server"]
