"""Bounds on what one scenario document may ask for (docs/scenario.md, "Limits").

Every cloud or API offering is costed, becomes six columns of the workbook's cash flow and
rows of the proposal's tables: a list of thousands held a web worker for minutes. The seed
catalog has 44 cloud and 17 API offerings; repeats are dropped before counting. Text fields
(provider, instance type, …) and the scenario's name end up in headers, file names and
workbook cells. Kept apart from tco/scenario_io.py so that the API's schema can name them
without loading the engine when the URLs load.
"""

MAX_CLOUD_OFFERINGS = 50
MAX_API_OFFERINGS = 50
MAX_TEXT_LENGTH = 200
