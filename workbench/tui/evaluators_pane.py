"""The evaluators pane: each evaluator file, its type, what it compares, and which sets use it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from ..model import EvaluatorKey, Project
from ..output_paths import describe_target
from ..scoring import scorer_for
from ..textsafe import one_line
from .labels import plain


class EvaluatorsTable(DataTable[Any]):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def on_mount(self) -> None:
        self.add_columns("evaluator file", "scope", "type", "compares", "used by", "status")

    def show(self, project: Project | None) -> None:
        self.clear()
        if project is None:
            return
        used: dict[EvaluatorKey, list[str]] = {}
        for eval_set in project.sets:
            for ref in eval_set.evaluator_refs:
                used.setdefault(EvaluatorKey(eval_set.scope, ref), []).append(eval_set.file_name)
        keys = sorted(set(project.evaluators) | set(project.broken_evaluators) | set(used))
        for key in keys:
            scope, ref = key
            evaluator = project.evaluators.get(key)
            users = ", ".join(used.get(key, [])) or "—"
            if evaluator is not None:
                status = Text("ok", "green")
                scorer = scorer_for(evaluator.type_id)
                if scorer is None:
                    status = Text("unsupported type", "bold yellow")
                elif problem := scorer.check_config(evaluator):
                    status = Text(one_line(f"bad config: {problem}", 60), "bold yellow")
                row = (plain(f"{ref}.json", 40), plain(scope), plain(evaluator.type_id, 40),
                       plain(describe_target(evaluator.target_output_key), 40), plain(users, 50), status)
            elif key in project.broken_evaluators:
                row = (plain(f"{ref}.json", 40), plain(scope), plain("?"), plain("?"), plain(users, 50),
                       Text(one_line(f"broken: {project.broken_evaluators[key]}", 60), "bold red"))
            else:
                row = (plain(ref, 40), plain(scope), plain("—"), plain("—"), plain(users, 50),
                       Text("missing: no such evaluator file", "bold red"))
            self.add_row(*row)
