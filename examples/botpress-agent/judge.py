"""A stand-in LLM judge so the example runs offline. workbench writes the prompt on stdin (the
criterion, the conversation, the turn to grade); this judge scores 1-5 by how many of the criterion's
words the graded reply shares, and prints {"score": N, "justification": "..."}. Point [judge] at a
real model (url, model) for real judgements.
"""

import json
import re
import sys


def words(text: str) -> set[str]:
    return {word[:5] for word in re.findall(r"[a-z]{4,}", text.lower())}


prompt = sys.stdin.read()
criterion = prompt.split("Criterion:", 1)[-1].split("The conversation so far:", 1)[0]
graded = prompt.split("The turn to grade", 1)[-1].split("Bot:", 1)[-1]
wanted, said = words(criterion), words(graded)
share = len(wanted & said) / len(wanted) if wanted else 1.0
print(json.dumps({"score": 1 + round(share * 4),
                  "justification": f"the reply shares {len(wanted & said)} of {len(wanted)} criterion words"}))
