"""A tool-call-output miss says what it was compared with: the output as the SDK compares it, which for a
string the tool returned is its JSON text, quotes included (`"Nairobi"` misses Nairobi, scoring 0.5 of two)."""

from __future__ import annotations

from coded_scoring import score, span

from workbench.model import Verdict

OUTPUT = "uipath-tool-call-output"
TRACE = [span("find_capital", output='"Nairobi"'), span("write_answer", output='{"content": "done"}')]
CRITERION = {"toolOutputs": [{"name": "find_capital", "output": "Nairobi"}, {"name": "write_answer", "output": "done"}]}
NOTE = "a string a tool returns is compared as its JSON text, quotes included"


def test_a_missed_output_says_the_output_it_was_compared_with_and_why_quotes_count() -> None:
    result = score(OUTPUT, CRITERION, trace=TRACE)
    assert (result.verdict, result.score) == (Verdict.FAIL, 0.5)
    assert ("1 of 2 expected outputs matched; not matched: find_capital 'Nairobi' (compared with its output "
            "'\"Nairobi\"')") in result.detail, result.detail
    assert NOTE in result.detail, result.detail


def test_strict_says_it_too() -> None:
    result = score(OUTPUT, CRITERION, trace=TRACE, strict=True)
    assert result.detail.startswith("strict: find_capital output '\"Nairobi\"', expected 'Nairobi'; " + NOTE)


def test_an_output_that_is_no_string_s_json_text_needs_no_note_and_a_tool_not_called_says_so() -> None:
    result = score(OUTPUT, {"toolOutputs": [{"name": "write_answer", "output": "Done"},
                                            {"name": "book", "output": "x"}]}, trace=TRACE)
    assert "write_answer 'Done' (compared with its output 'done')" in result.detail, result.detail
    assert "book 'x' (compared with no call of it)" in result.detail and NOTE not in result.detail, result.detail


def test_the_view_shows_the_output_as_compared_for_the_output_evaluator_only() -> None:
    """The detail view's recorded calls: for tool-call-output, `→ compared as "\\"Nairobi\\""` and the note;
    for the other evaluators the tool's output as it returned it."""
    from types import SimpleNamespace

    from test_html import _result, _span

    from workbench.tui.detail_views.uipath_coded import tools_text

    trace = [_span("find_capital", {"country": "Kenya"}, "Nairobi")]
    criterion = {"toolOutputs": [{"name": "find_capital", "output": "Nairobi"}]}
    context = SimpleNamespace(result=_result("T", OUTPUT, trace=trace), evaluator=None)
    shown = tools_text(context, criterion, True).plain  # type: ignore[arg-type]
    assert '→ compared as "\\"Nairobi\\""' in shown and NOTE in shown, shown
    context = SimpleNamespace(result=_result("T", "uipath-tool-call-order", trace=trace), evaluator=None)
    shown = tools_text(context, {"toolCallsOrder": ["find_capital"]}, True).plain  # type: ignore[arg-type]
    assert '→ "Nairobi"' in shown and "compared as" not in shown and NOTE not in shown, shown
