"""Bounds on what one scenario document may ask for (docs/scenario.md, "Limits").

Every cloud or API offering is costed, becomes six columns of the workbook's cash flow and
rows of the proposal's tables: a list of thousands held a web worker for minutes. The seed
catalog has 44 cloud and 17 API offerings; repeats are dropped before counting. Text fields
(provider, instance type, …) and the scenario's name end up in headers, file names and
workbook cells. Kept apart from tco/scenario/resolve.py so that the API's schema can name them
without loading the engine when the URLs load.
"""

import re

MAX_CLOUD_OFFERINGS = 50
MAX_API_OFFERINGS = 50
MAX_TEXT_LENGTH = 200

# Characters no text of a scenario may hold: C0 and C1 controls, DEL and unpaired
# surrogates (config/middleware.py refuses the same in a request's fields; the scenario's
# schema is pure Python and cannot import it).
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# A cell that begins with one of these is a formula to a spreadsheet (catalog/schema.py
# neutralises them in exports; a scenario's text may not begin with them).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
