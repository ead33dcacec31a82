"""Generated scoring cases for the differential test: (evaluator document, criterion, agent output, tool spans),
many per evaluator type, built from a seeded random generator so a failure names a case that comes back.

The values lean on what the SDK's rules make delicate: strings differing by case, numbers as ints and floats,
multi-line texts scored line by line,
`true` beside `1`, `null`, nested objects and lists, paths that exist and paths that don't, keys that are
lists, tool names with spaces and punctuation (sanitised), tool spans with ids, synthesized spans, arguments
as JSON and as Python literals, outputs with and without `content`.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

TOOLS = ["lookup", "weather", "book", "look up", "wea!ther"]
WORDS = ["Paris", "paris", "PARIS", "par", "", "Lyon", "a b", "42", "42.0", "true", "True", "None", "{'a': 1.0}",
         "Paris\nLyon", "paris\nLYON\n", "a,b", "Lyon\n\nParis, Nice"]
# mostly paths that exist; "missing" and "b.items[5]" make the SDK raise (an ERROR in workbench)
KEYS = ["*", "*", "*", "answer", "answer", "a", "b.c", "b.c", "b.items[1]", "b.items[5]", "missing", ["answer", "a"],
        ["answer", "a"], ["b.c"]]
COMPARATORS = [">", "<", ">=", "<=", "=", "==", "!="]
# what a hand-written file may hold where a flag belongs: pydantic (the SDK) takes some of these as booleans
ODD_FLAGS = ["true", "false", 1, 0, "yes", "no", "on", None, "maybe", 2, 1.0, [], "True"]
ODD_KEYS = ["", "a..b", "[0]", "b.items.1", 5, ["answer", 1], [], "b . c", "*.a"]

Case = dict[str, Any]


class Cases:
    """Case builders over one random generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def leaf(self) -> Any:
        pick = self.rng.randrange(7)
        if pick == 0:
            return self.rng.randint(-3, 20)
        if pick == 1:
            return round(self.rng.uniform(-5, 20), self.rng.choice([0, 1, 3]))
        if pick == 2:
            return self.rng.choice([True, False])
        if pick == 3:
            return None
        return self.rng.choice(WORDS)

    def value(self, depth: int = 0) -> Any:
        pick = self.rng.randrange(6 if depth < 2 else 4)
        if pick == 4:
            return {self.rng.choice("abc"): self.value(depth + 1) for _ in range(self.rng.randint(0, 3))}
        if pick == 5:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 3))]
        return self.leaf()

    def output(self) -> Any:
        if self.rng.random() < 0.08:
            return self.rng.choice(WORDS)
        return {"answer": self.value(), "a": self.leaf(),
                "b": {"c": self.value(1), "items": [self.leaf(), self.leaf()]}}

    def mutated(self, value: Any, depth: int = 0) -> Any:
        """Something like `value`: itself, its strings' case changed, numbers moved, keys dropped or added."""
        roll = self.rng.random()
        if roll < 0.3:
            return copy.deepcopy(value)
        if isinstance(value, dict):
            out = {k: self.mutated(v, depth + 1) for k, v in value.items() if self.rng.random() > 0.1}
            if self.rng.random() < 0.2:
                out[self.rng.choice("xyz")] = self.leaf()
            return out
        if isinstance(value, list):
            items = [self.mutated(v, depth + 1) for v in value]
            return items[: self.rng.randint(0, len(items))] if self.rng.random() < 0.2 else items
        if isinstance(value, str):
            return self.rng.choice([value.upper(), value.lower(), value.swapcase(), value + "s", value[1:]])
        if isinstance(value, bool):
            return self.rng.choice([not value, int(value), float(value)])
        if isinstance(value, (int, float)):
            return self.rng.choice([float(value), value + 1, value * 1.1, -value, str(value), 0])
        return self.leaf()

    def evaluator(self, type_id: str, **config: Any) -> dict[str, Any]:
        return {"version": "1.0", "id": "E", "name": "E", "evaluatorTypeId": type_id,
                "evaluatorConfig": {"name": "E", **config}}

    def flag(self) -> Any:
        return self.rng.choice(ODD_FLAGS) if self.rng.random() < 0.1 else self.rng.choice([True, False])

    def output_config(self) -> dict[str, Any]:
        keys = ODD_KEYS if self.rng.random() < 0.06 else KEYS
        config: dict[str, Any] = {"targetOutputKey": copy.deepcopy(self.rng.choice(keys))}
        for flag in ("caseSensitive", "negated"):
            if self.rng.random() < 0.5:
                config[flag] = self.flag()
        if self.rng.random() < 0.15:  # scored line by line: each line alone, the scores averaged
            config["lineByLineEvaluator"] = True
            config["lineDelimiter"] = self.rng.choice(["\n", "\n", ",", ", ", ""])
        return config

    def exact_match(self) -> Case:
        output = self.output()
        config = self.output_config()
        expected = self.mutated(output) if self.rng.random() < 0.9 else self.rng.choice(WORDS)
        return self.case(self.evaluator("uipath-exact-match", **config), {"expectedOutput": expected}, output)

    def contains(self) -> Case:
        output = self.output()
        config = self.output_config()
        text: Any = self.rng.choice([*WORDS, "'answer'", "items", "1.0", "False"])
        if self.rng.random() < 0.04:
            text = self.rng.choice([42, None, ["Paris"], True])
        return self.case(self.evaluator("uipath-contains", **config), {"searchText": text}, output)

    def json_similarity(self) -> Case:
        output = self.output()
        config = {key: value for key, value in self.output_config().items() if key not in ("caseSensitive", "negated")}
        return self.case(self.evaluator("uipath-json-similarity", **config), {"expectedOutput": self.mutated(output)},
                         output)

    def spans(self) -> list[dict[str, Any]]:
        spans = []
        for _ in range(self.rng.randint(0, 5)):
            name = self.rng.choice(TOOLS)
            attrs: dict[str, Any] = {"span_type": "tool", "tool.name": name}
            if self.rng.random() < 0.15:
                attrs["tool.id"] = self.rng.choice(["t1", "t2", name])
            if self.rng.random() < 0.1:
                attrs["tool.synthesized"] = True
            args: dict[str, Any] = {"city": self.rng.choice(["Paris", "paris", "Rome"])}
            if self.rng.random() < 0.3:
                args["n"] = self.rng.randint(0, 2)
            attrs["input.value"] = json.dumps(args) if self.rng.random() < 0.7 else repr(args)
            content = self.rng.choice(["sunny", "rain", "", "42"])
            attrs["output.value"] = self.rng.choice([json.dumps({"content": content}), json.dumps(content), content,
                                                     json.dumps({"other": content})])
            spans.append({"name": name, "attributes": attrs})
        if self.rng.random() < 0.2:
            spans.append({"name": "not a tool", "attributes": {"span_type": "function"}})
        self.rng.shuffle(spans)
        return spans

    def tool_keys(self) -> list[str]:
        return [self.rng.choice([*TOOLS, "t1", "look_up", "weather"]) for _ in range(self.rng.randint(0, 4))]

    def tool_call_order(self) -> Case:
        config = {"strict": self.flag()}
        order: Any = self.tool_keys()
        if self.rng.random() < 0.04:
            order = self.rng.choice(["lookup", [1, 2], None, [None]])
        return self.case(self.evaluator("uipath-tool-call-order", **config), {"toolCallsOrder": order}, {},
                         self.spans())

    def tool_call_count(self) -> Case:
        counts: dict[str, Any] = {key: [self.rng.choice(COMPARATORS), self.rng.randint(0, 3)]
                                  for key in self.tool_keys()}
        if counts and self.rng.random() < 0.1:
            counts[next(iter(counts))] = self.rng.choice([["=>", 1], [">", "2"], [">", 1.5], ["=", 1, 2], 3, ["<"]])
        config = {"strict": self.flag()}
        return self.case(self.evaluator("uipath-tool-call-count", **config), {"toolCallsCount": counts}, {},
                         self.spans())

    def tool_call_args(self) -> Case:
        calls = []
        for key in self.tool_keys():
            args: dict[str, Any] = {}
            if self.rng.random() < 0.8:
                args["city"] = self.rng.choice(["Paris", "paris", "Rome"])
            if self.rng.random() < 0.3:
                args["n"] = self.rng.randint(0, 2)
            calls.append({"name": key, "args": args})
        config = {"strict": self.flag(), "subset": self.flag()}
        return self.case(self.evaluator("uipath-tool-call-args", **config), {"toolCalls": calls}, {}, self.spans())

    def tool_call_output(self) -> Case:
        outputs = [{"name": key, "output": self.rng.choice(["sunny", "rain", "", '"sunny"', "42"])}
                   for key in self.tool_keys()]
        config = {"strict": self.flag()}
        return self.case(self.evaluator("uipath-tool-call-output", **config), {"toolOutputs": outputs}, {},
                         self.spans())

    @staticmethod
    def case(evaluator: dict[str, Any], criterion: dict[str, Any], output: Any,
             spans: list[dict[str, Any]] | None = None) -> Case:
        return {"evaluator": evaluator, "criterion": criterion, "output": output, "spans": spans or []}


BUILDERS = {
    "uipath-exact-match": Cases.exact_match,
    "uipath-contains": Cases.contains,
    "uipath-json-similarity": Cases.json_similarity,
    "uipath-tool-call-order": Cases.tool_call_order,
    "uipath-tool-call-count": Cases.tool_call_count,
    "uipath-tool-call-args": Cases.tool_call_args,
    "uipath-tool-call-output": Cases.tool_call_output,
}


def generated_cases(type_ids: list[str], per_type: int, seed: int = 26) -> list[Case]:
    """`per_type` cases of each type in `type_ids`, the same ones for the same seed."""
    cases = Cases(seed)
    return [BUILDERS[type_id](cases) for type_id in type_ids for _ in range(per_type)]
