"""Re-scoring: every decision "run this row, or re-score its recorded outcome — and why", behind one API.

* planning (`planning.py`): which rows an iteration runs and how each evaluator scores each one — `plan`, the
  one function the engine, `run --reuse`, `check`, the session link, MCP and the TUI's counts use (`RowFilter`
  is the selection; a format's `Dialect.criterion_for` may skip an evaluator for a row, and a row none scores
  is not run);
* the world (`world.py`): everything outside a row that can change its target's output, as one `World`;
* the read digests (`reads.py`): the files a target was seen to read outside the world;
* the records (`records.py`): `ReuseBook` with each row's last recorded run (`RowRecord`), and `decide`;
* an iteration's part (`iteration.py`): `IterationReuse` fingerprints the world before and after, decides each
  row (`ReuseDecision`, its reason in words) and records what ran; `decide_now` for `check`/`--explain-reuse`;
* the proof (`proof.py`): whether an iteration a session has is the answer to a request now (`answers_now`).

Everything else asks this package; nothing outside it plans rows or reads the records itself.
"""

from __future__ import annotations

from .iteration import IterationReuse, KeptState, ReusePolicy, decide_now
from .planning import RowFilter, RowPlan, ScorePlan, plan, planned_errors, planned_keys, run_fingerprint
from .proof import answers_now
from .records import ReuseBook, RowRecord, outcomes_from_results, row_fingerprint
from .world import World, compute_world, digest

__all__ = ["IterationReuse", "KeptState", "ReuseBook", "ReusePolicy", "RowFilter", "RowPlan", "RowRecord",
           "ScorePlan", "World", "answers_now", "compute_world", "decide_now", "digest", "outcomes_from_results",
           "plan", "planned_errors", "planned_keys", "row_fingerprint", "run_fingerprint"]
