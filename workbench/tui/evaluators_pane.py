"""The evaluators pane: each evaluator file, its type, what it compares, and which sets use it. A broken or
missing evaluator is named as the sets refer to it (its file is not known: the status says what is wrong)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from ..dialects.base import relative
from ..model import EvaluatorDef, EvaluatorKey, Project
from ..scoring import scorer_of
from ..textsafe import one_line
from .columns import Cell, Column, FittedTable, Names
from .labels import compared, plain
from .state import Changes, RunState

# Narrower than every column: the scope goes first, then "compares" and "used by" give way (cut between
# names), then the type goes, the status is cut (with …), and only then is the evaluator's file name cut.
COLUMNS = (Column("evaluator file", shrink_to=16, give=1), Column("scope", drop=6),
           Column("type", drop=4), Column("compares", shrink_to=16, give=5),
           Column("used by", shrink_to=12, give=5), Column("status", shrink_to=6, give=3))


def evaluator_file(project: Project, evaluator: EvaluatorDef) -> Text:
    """The file the evaluator was read from, as it is named (in a format whose sets refer to evaluators by id,
    `ExactMatch` may live in `exact-match.json`); an evaluator its format brings without a file of its own (a
    scenario's `expect`) is its ref, said to be built in."""
    if relative(project.root, evaluator.path) in project.eval_files:
        return plain(evaluator.path.name)
    text = plain(evaluator.ref)
    text.append(" (built in)", "dim")
    return text


class EvaluatorsTable(FittedTable):
    def __init__(self, state: RunState, **kwargs: Any) -> None:
        super().__init__(COLUMNS, **kwargs)
        self.state = state

    def state_changed(self, changes: Changes) -> None:
        """The project's shape changed (it was read again): list its evaluators again."""
        if changes.structure:
            self.show(self.state.project)

    def show(self, project: Project | None) -> None:
        if project is None:
            self.set_rows([])
            return
        rows: list[tuple[Sequence[Cell], str | None]] = []
        used: dict[EvaluatorKey, list[str]] = {}
        for eval_set in project.sets:
            for ref in eval_set.evaluator_refs:
                used.setdefault(EvaluatorKey(eval_set.scope, ref), []).append(eval_set.file_name)
        keys = sorted(set(project.evaluators) | set(project.broken_evaluators) | set(used))
        for key in keys:
            scope, ref = key
            evaluator = project.evaluators.get(key)
            users = Names(tuple(used.get(key, [])) or ("—",), "set")
            if evaluator is not None:
                status = Text("ok", "green")
                scorer = scorer_of(evaluator)
                if scorer is None:
                    status = Text("unsupported type", "bold yellow")
                elif problem := scorer.check_config(evaluator):
                    status = Text(one_line(f"bad config: {problem}", 60), "bold yellow")
                row: tuple[Cell, ...] = (evaluator_file(project, evaluator), plain(scope), plain(evaluator.type_id, 40),
                                         Names(compared(evaluator), "path"), users, status)
            elif key in project.broken_evaluators:
                row = (plain(ref), plain(scope), plain("?"), plain("?"), users,
                       Text(one_line(f"broken: {project.broken_evaluators[key]}", 60), "bold red"))
            else:
                row = (plain(ref), plain(scope), plain("—"), plain("—"), users,
                       Text("missing: no such evaluator file", "bold red"))
            rows.append((row, None))
        self.set_rows(rows)
