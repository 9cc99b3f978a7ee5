"""``python -m tco.scenario [docs/scenario.md]``: print or publish the JSON Schema."""

import sys

from tco.scenario.publish import main

raise SystemExit(main(sys.argv[1:]))
