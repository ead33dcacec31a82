"""A stand-in LLM judge so the example runs offline: it scores how many words the actual reply
shares with the expected one. workbench writes the prompt on stdin; the judge prints
{"score": 0-100, "justification": "..."}. Point [judge] at a real model for real judgements.
"""

import json
import re
import sys


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9-]+", text.lower()))


prompt = sys.stdin.read()
expected = prompt.split("EXPECTED:", 1)[-1].split("ACTUAL:", 1)[0]
actual = prompt.split("ACTUAL:", 1)[-1]
a, b = words(expected), words(actual)
overlap = len(a & b) / len(a | b) if a | b else 1.0
print(json.dumps({"score": round(overlap * 100),
                  "justification": f"{len(a & b)} of {len(a | b)} words in common"}))
