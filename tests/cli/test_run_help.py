"""`workbench run --help` takes its words about a format's own gate and baseline from the formats
(`Words.gate_help`, `Words.baseline_help`): what the user reads is the same, cli/run.py names none."""

from __future__ import annotations

from helpers.cli import invoke_workbench

from workbench.dialects import all_dialects


def squashed(text: str) -> str:
    """Without any whitespace: click wraps lines, and breaks a long word after a hyphen."""
    return "".join(text.split())


def test_run_help_has_each_formats_gate_and_baseline_words() -> None:
    text = squashed(invoke_workbench("run", "--help").stdout)
    gates = [dialect.words.gate_help for dialect in all_dialects() if dialect.words.gate_help]
    assert gates and all(squashed(gate) in text for gate in gates)
    assert squashed("Scenarios (.appilots/scenarios/*.json) have a gate of their own: at least 95% of them pass, "
                    "none that passed on .appilots/eval-baseline.json fails now, and none costs more tokens than "
                    "the baseline allows (--max-token-regression).") in text
    assert squashed("--baseline FILE Baseline file (default workbench-baseline.json at the project root; in a "
                    "project with scenarios, the scenario baseline, default .appilots/eval-baseline.json).") in text
    assert text.index(squashed("Exit status: 0 when")) > text.index(squashed(gates[-1]))
