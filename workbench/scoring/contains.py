"""`uipath-contains`: does the selected output contain the row's `searchText`? Boolean.

As in the UiPath SDK: case-insensitive unless `caseSensitive` is true, inverted by `negated`. The
selected value is searched as text: a string as itself, anything else as compact JSON.
"""

from __future__ import annotations

from typing import ClassVar

from ..model import EvaluatorDef
from ..output_paths import MISSING
from .base import CriterionError, Score, ScoreInput, Scorer
from .common import (
    as_text,
    boolean,
    check_flags,
    check_single_target,
    check_threshold,
    flag,
    missing_output,
    require,
    selected,
    show,
)


class Contains(Scorer):
    type_id: ClassVar[str] = "uipath-contains"

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return (check_single_target(evaluator) or check_flags(evaluator, "caseSensitive", "negated")
                or check_threshold(evaluator))

    def score(self, data: ScoreInput) -> Score:
        ref = data.evaluator.ref
        search = require(data.criterion, "searchText", ref, '"searchText": "refund"')
        if not isinstance(search, str):
            raise CriterionError(f"evaluationCriterias[{ref!r}].searchText must be a string, not {show(search)}")
        if not search:
            raise CriterionError(f"evaluationCriterias[{ref!r}].searchText is empty, which every output "
                                 "contains; write the text to look for")
        path, value = selected(data)
        if value is MISSING:
            return missing_output(path, search)
        case_sensitive = flag(data.evaluator, "caseSensitive")
        negated = flag(data.evaluator, "negated")
        haystack = as_text(value)
        found = (search in haystack) if case_sensitive else (search.casefold() in haystack.casefold())
        where = "the output" if path == "*" else path
        how = "" if case_sensitive else " (ignoring case)"
        if negated:
            detail = (f"{where} contains {show(search)}{how}, but negated is set" if found
                      else f"{where} does not contain {show(search)}{how}")
            return boolean(not found, detail, search)
        detail = (f"{where} contains {show(search)}{how}" if found
                  else f"{where} does not contain {show(search)}{how}: {show(haystack, 200)}")
        return boolean(found, detail, search)

