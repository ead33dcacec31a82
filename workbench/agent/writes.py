"""The write tools, `accept` and `add_row`: the CLI's own actions (`actions/accept.py`, `actions/add_row.py`),
each write surgical and atomic, returning the diff that was written. A refusal is named and writes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

from .. import jsonio
from ..actions.accept import preview_recorded_accept
from ..actions.add_row import check_new_row, try_new_row
from ..actions.checks import check_runnable
from ..actions.writing import write_plan
from ..config import Config
from ..errors import WorkbenchError
from ..project import load_project
from ..textsafe import counted, one_line
from ..writeback.rows import find_set
from .loop import AgentRefusal
from .queries import Answer, locate_row

MAX_DIFF_CHARS = 8000


def _diff(text: str) -> str:
    return text if len(text) <= MAX_DIFF_CHARS else text[:MAX_DIFF_CHARS] + "\n… (diff clipped)"


def accept_answer(config: Config, rows: list[str], set_name: str | None, evaluator: str | None,
                  iteration: int | None) -> Answer:
    """Accept each row's recorded output as its expectation, one write per row; what each did."""
    if not rows:
        raise AgentRefusal("name the rows to accept: rows=[\"<name or id>\", ...]")
    project = load_project(config.root, config)
    outcomes: list[dict[str, Any]] = []
    for ref in rows:
        try:
            eval_set, row = locate_row(project, ref, set_name)
            preview = preview_recorded_accept(config, eval_set.stem if set_name is None else set_name, row.id,
                                              evaluator=evaluator, iteration=iteration)
            if not preview.changed:
                outcomes.append({"row": row.label, "set": eval_set.stem, "written": False, "notes": preview.notes,
                                 "note": f"nothing to change: the expectation already holds the output of "
                                         f"iteration {preview.iteration}"})
                continue
            written = write_plan(preview.plan)
            outcomes.append({"row": row.label, "set": eval_set.stem, "written": True, "file": written.display,
                             "iteration": preview.iteration, "evaluators": [c.label for c in written.changes],
                             "diff": _diff(written.diff()), "notes": preview.notes})
        except WorkbenchError as exc:
            outcomes.append({"row": ref, "written": False, "refused": str(exc)})
    refused = [outcome for outcome in outcomes if outcome.get("refused")]
    lines = []
    if refused and len(refused) < len(outcomes):
        wrote = sum(bool(outcome["written"]) for outcome in outcomes)
        lines.append(f"refused {len(refused)} of {len(outcomes)} rows; wrote {counted(wrote, 'row')}")
    for outcome in outcomes:
        if outcome.get("refused"):
            lines.append(one_line(f"refused {outcome['row']!r}: {outcome['refused']}", 400))
        elif outcome["written"]:
            lines.append(f"accepted the output of iteration {outcome['iteration']} for {outcome['row']!r} in "
                         f"{outcome['file']}:\n{outcome['diff'][:1500]}")
        else:
            lines.append(f"{outcome['row']!r}: {outcome['note']}")
    doc: dict[str, Any] = {"accepted": outcomes}
    if refused:  # an error answer's structured content says why, as every other refusal's does
        doc["error"] = "; ".join(one_line(f"{o['row']!r}: {o['refused']}", 400) for o in refused)
    return Answer(doc, "\n".join(lines)[:6000], refused=bool(refused))


async def add_row_answer(config: Config, set_name: str, name: str, inputs: dict[str, Any],
                         criteria: dict[str, Any] | None) -> Answer:
    """Run the target once on `inputs`, build the row from its output and append it to the set."""
    project = await asyncio.to_thread(check_runnable, config, watching=False)
    eval_set = find_set(project, set_name)
    check_new_row(eval_set, name, jsonio.dumps(inputs))
    new_row = await try_new_row(config, project, eval_set, name, inputs, criteria=criteria or {})
    written = await asyncio.to_thread(write_plan, new_row.plan)
    diff = _diff(written.diff())
    doc = {"set": eval_set.stem, "row": name, "row_id": new_row.run.row_id, "file": written.display,
           "output": new_row.run.output, "diff": diff, "notes": new_row.notes}
    return Answer(doc, f"added row {name!r} (id {new_row.run.row_id}) to {written.display}:\n{diff[:3000]}")
