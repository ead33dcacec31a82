"""A tiny target: grade an exam score. Reads {"score": N} on stdin, prints the result as JSON.

It has a bug on purpose: a score of exactly 50 should pass. Fix the comparison in `band()` and
watch the failing row turn green.
"""

import json
import sys


def band(score: float) -> str:
    if score >= 85:
        return "distinction"
    if score >= 70:
        return "merit"
    if score > 50:  # the rubric says 50 passes: this should be >=
        return "pass"
    return "fail"


def grade(inputs: dict) -> dict:
    score = inputs["score"]
    result = band(score)
    return {
        "grade": "FAIL" if result == "fail" else "PASS",
        "details": {"rawScore": score, "band": result, "outOf": 100},
    }


if __name__ == "__main__":
    print(json.dumps(grade(json.load(sys.stdin))))
