"""Write-back: the only code that edits a user's eval-set files, surgically and atomically.

`accept` blesses a recorded actual output as a row's expectation; `add_row` appends a new row built
from one run. Both first compute a `WritePlan` (before/after bytes and a diff) without writing, so a
front-end can show exactly what will change, then `apply_plan` patches what is on disk at that moment.
"""

from .errors import WritebackError
from .plan import Change, WritePlan, apply_plan

__all__ = ["Change", "WritePlan", "WritebackError", "apply_plan"]
