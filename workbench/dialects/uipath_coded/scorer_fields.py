"""What a coded evaluator's `evaluatorConfig` and a row's criterion may hold, checked as `uipath eval` checks them.

The SDK validates both with pydantic in its lax mode, so the same declarations here accept the same
values: keys in camelCase or snake_case (`caseSensitive`, `case_sensitive`), `"true"`/`1` for true,
`"2"` or `2.0` for a count of 2, unknown keys ignored; and refuse the same ones (`expectedOutput` that is
neither an object nor a string, a `searchText` that is not a string, a tool call without `args`).
`problem()` turns pydantic's errors into workbench's words.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from ...scoring.common import show


class _Fields(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


# ---- criteria ---------------------------------------------------------------------------------------------

class OutputCriterion(_Fields):
    expected_output: dict[str, Any] | str


class ContainsCriterion(_Fields):
    search_text: str


class OrderCriterion(_Fields):
    tool_calls_order: list[str]


class CountCriterion(_Fields):
    tool_calls_count: dict[str, tuple[str, int]]


class ExpectedCall(BaseModel):
    name: str
    args: dict[str, Any]
    id: str | None = None


class ArgsCriterion(_Fields):
    tool_calls: list[ExpectedCall]


class ExpectedToolOutput(BaseModel):
    name: str
    output: str
    id: str | None = None


class ToolOutputsCriterion(_Fields):
    tool_outputs: list[ExpectedToolOutput]


class ClassCriterion(_Fields):
    expected_class: str


# ---- evaluatorConfig --------------------------------------------------------------------------------------

class _Config(_Fields):
    name: str = ""
    description: str = ""


class OutputConfig(_Config):
    target_output_key: str | list[str] = "*"
    line_by_line_evaluator: bool = False
    line_delimiter: str = "\n"


class _Averaged(_Fields):
    averaging: Literal["macro", "micro"]


class _Precision(_Averaged):
    type: Literal["precision"] = "precision"


class _Recall(_Averaged):
    type: Literal["recall"] = "recall"


class _FScore(_Averaged):
    type: Literal["fscore"] = "fscore"
    f_value: float = Field(default=1.0, gt=0, le=1000)


class _Confusion(_Fields):
    type: Literal["confusion_matrix"] = "confusion_matrix"


Aggregator = Annotated[_Precision | _Recall | _FScore | _Confusion, Field(discriminator="type")]


class ExactMatchConfig(OutputConfig):
    default_evaluation_criteria: OutputCriterion | None = None
    case_sensitive: bool = False
    negated: bool = False
    classes: list[str] | None = None
    aggregators: list[Aggregator] | None = None

    @model_validator(mode="after")
    def _aggregators_need_labels(self) -> ExactMatchConfig:
        """The SDK's load-time rules for dataset metrics on an exact-match evaluator."""
        if not self.aggregators:
            return self
        if not self.classes:
            raise ValueError("aggregators need a classes list (the labels precision/recall are computed over)")
        for flag in ("line_by_line_evaluator", "case_sensitive", "negated"):
            if getattr(self, flag):
                raise ValueError(f"aggregators can't be combined with {to_camel(flag)}")
        lowered = [label.lower() for label in self.classes]
        if any(not label.strip() or label != label.strip() for label in self.classes) or len(set(lowered)) != len(
                lowered):
            raise ValueError("classes must be non-blank, without surrounding spaces, and distinct ignoring case")
        return self


class JsonSimilarityConfig(OutputConfig):
    default_evaluation_criteria: OutputCriterion | None = None


class ContainsConfig(OutputConfig):
    default_evaluation_criteria: ContainsCriterion | None = None
    case_sensitive: bool = False
    negated: bool = False


class OrderConfig(_Config):
    default_evaluation_criteria: OrderCriterion | None = None
    strict: bool = False


class CountConfig(_Config):
    default_evaluation_criteria: CountCriterion | None = None
    strict: bool = False


class ArgsConfig(_Config):
    default_evaluation_criteria: ArgsCriterion | None = None
    strict: bool = False
    subset: bool = False


class ToolOutputConfig(_Config):
    default_evaluation_criteria: ToolOutputsCriterion | None = None
    strict: bool = False


class BinaryConfig(OutputConfig):
    default_evaluation_criteria: ClassCriterion | None = None
    positive_class: str
    metric_type: Literal["precision", "recall", "f-score"] = "precision"
    f_value: float = 1.0


class MulticlassConfig(OutputConfig):
    default_evaluation_criteria: ClassCriterion | None = None
    classes: list[str]
    metric_type: Literal["precision", "recall", "f-score"] = "f-score"
    averaging: Literal["micro", "macro"] = "macro"
    f_value: float = 1.0


# ---- errors in words --------------------------------------------------------------------------------------

_KINDS = {
    "bool": "true or false", "string": "a string", "int": "a whole number", "float": "a number",
    "dict": "an object", "list": "a list", "tuple": "a list", "literal": "one of",
}
# fields whose type the first branch of pydantic's errors doesn't say (unions, pairs)
_FIELD_KINDS = {
    "expectedOutput": "an object or a string", "expected_output": "an object or a string",
    "targetOutputKey": "\"*\", a key path (\"answer\", \"items[0].name\") or a list of them",
    "target_output_key": "\"*\", a key path (\"answer\", \"items[0].name\") or a list of them",
}
_PAIR = "a comparator and a count, e.g. [\">=\", 1] (comparators: = == != > < >= <=)"
_KEYED = {"toolCallsCount", "tool_calls_count"}  # dict fields: the next part of a location is a key


def _where(prefix: str, loc: tuple[Any, ...], known: set[str]) -> tuple[str, str]:
    """(`prefix.field['key'][0].name`, the last field named) from pydantic's location, without its
    union-branch tags."""
    out, field, keyed = prefix, "", False
    for part in loc:
        if keyed:
            out, keyed = out + f"[{part!r}]", False
        elif isinstance(part, int):
            out += f"[{part}]"
        elif part in known:
            out, field, keyed = out + f".{part}", part, part in _KEYED
    return out, field


def _known_names() -> set[str]:
    names: set[str] = set()
    for model in (*_CRITERIA, *_CONFIGS, ExpectedCall, ExpectedToolOutput, _FScore):
        for name, info in model.model_fields.items():
            names.update({name, info.alias or name})
    return names


def _phrase(error: Any, field: str, where: str) -> str:
    kind = str(error["type"]).split("_")[0]
    got = show(error.get("input"))
    if error["type"] == "missing":
        return "is missing"
    if error["type"] == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    if field in _FIELD_KINDS and not where.endswith("]"):
        return f"must be {_FIELD_KINDS[field]}, not {got}"
    if field in _KEYED:
        return f"must be {_PAIR}, not {got}" if where.endswith("']") else f"must be {_KINDS[kind]}, not {got}"
    if kind == "literal":
        return f"must be {error['ctx']['expected']}, not {got}"
    if kind in _KINDS:
        return f"must be {_KINDS[kind]}, not {got}"
    return f"{str(error['msg'])[:1].lower()}{str(error['msg'])[1:]}, not {got}"


def problem(exc: ValidationError, prefix: str) -> str:
    """The first few of pydantic's complaints as `<prefix>.<field> must be ..., not ...`, one per place."""
    known = _known_names()
    said: dict[str, str] = {}
    for error in exc.errors():
        where, field = _where(prefix, tuple(error["loc"]), known)
        said.setdefault(where, _phrase(error, field, where))
    return "; ".join(f"{where} {phrase}" if phrase.startswith(("must ", "is ")) else f"{where}: {phrase}"
                     for where, phrase in list(said.items())[:3])


_CRITERIA = (OutputCriterion, ContainsCriterion, OrderCriterion, CountCriterion, ArgsCriterion,
             ToolOutputsCriterion, ClassCriterion)
_CONFIGS = (ExactMatchConfig, ContainsConfig, JsonSimilarityConfig, OrderConfig, CountConfig, ArgsConfig,
            ToolOutputConfig, BinaryConfig, MulticlassConfig)
