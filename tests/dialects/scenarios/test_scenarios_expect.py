"""The scenario `expect` evaluator (seed 000): every mode × every matching rule, reply folding,
forbidActionTypes under every mode, anyOf, and the exact detail a user reads when it fails."""

from __future__ import annotations

from typing import Any

import pytest

from workbench.dialects.scenarios.expect import SCENARIO_EXPECT, judge
from workbench.dialects.scenarios.match import maximum_matching
from workbench.dialects.scenarios.spec import ExpectError, ResponseError, parse_expect
from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import ScoreInput, scorer_for
from workbench.scoring.base import CriterionError


def act(kind: str, **payload: Any) -> dict[str, Any]:
    return {"type": kind, "payload": payload} if payload else {"type": kind}


def fill(*fields: tuple[str, Any] | str) -> dict[str, Any]:
    """A form_fill action: "name" is an unpinned field, ("email", "a@b") a pinned one."""
    out = [{"fieldId": f} if isinstance(f, str) else {"fieldId": f[0], "value": f[1]} for f in fields]
    return act("form_fill", fields=out)


def response(*actions: dict[str, Any], reply: str = "") -> dict[str, Any]:
    return {"actions": list(actions), "reply": reply}


def check(expect: dict[str, Any], output: dict[str, Any]) -> tuple[bool, str]:
    result = judge(expect, output)
    return result.ok, "\n".join(result.lines)


def failure_lines(expect: dict[str, Any], output: dict[str, Any]) -> list[str]:
    """The lines of a check that must fail (the test fails here if it passed)."""
    ok, detail = check(expect, output)
    assert not ok, detail
    return detail.splitlines()


SIGNUP = response(fill(("email", "jane@example.com"), ("name", "Jane Doe"), ("newsletter", False)),
                  act("click", id="btn-submit-signup", source="voice"))


# -- mode any ----------------------------------------------------------------------------------------------


def test_any_matches_form_fill_fields_by_field_id_in_any_order() -> None:
    ok, detail = check({"mode": "any", "actions": [fill("name", "email")]}, SIGNUP)
    assert ok, detail
    assert "form_fill(name, email) = actions[0]" in detail


def test_any_pinned_value_must_be_equal_unpinned_takes_any() -> None:
    assert check({"actions": [fill(("email", "jane@example.com"), "name")]}, SIGNUP)[0]
    ok, detail = check({"actions": [fill(("name", "Jane"))]}, SIGNUP)
    assert not ok
    assert detail == "form_fill: field 'name': value is \"Jane Doe\", expected \"Jane\""


def test_any_missing_field_names_the_fields_that_are_there() -> None:
    ok, detail = check({"actions": [fill("email")]}, response(fill("name")))
    assert not ok
    assert detail == "form_fill: no field 'email' (fields: name)"


def test_any_partial_payload_allows_extra_keys_but_not_different_values() -> None:
    assert check({"actions": [act("click", id="btn-submit-signup")]}, SIGNUP)[0]
    assert check({"actions": [act("click")]}, SIGNUP)[0]  # no payload listed: any payload
    ok, detail = check({"actions": [act("click", id="btn-cancel")]}, SIGNUP)
    assert not ok and detail == 'click: payload.id is "btn-submit-signup", expected "btn-cancel"'
    ok, detail = check({"actions": [act("click", target="x")]}, SIGNUP)
    assert not ok and "payload has no 'target' (payload keys: id, source)" in detail


def test_payload_values_compare_by_the_exact_match_rules() -> None:
    out = response(act("set", value=1, on=True))
    assert check({"actions": [act("set", value=1.0)]}, out)[0]  # 1 equals 1.0
    assert not check({"actions": [act("set", value="1")]}, out)[0]  # "1" is not 1
    assert not check({"actions": [act("set", on=1)]}, out)[0]  # true is not 1


def test_any_allows_extra_actions_and_reports_a_missing_type() -> None:
    assert check({"mode": "any", "actions": [act("click")]}, SIGNUP)[0]
    ok, detail = check({"actions": [act("navigate", screen="Home")]}, SIGNUP)
    assert not ok
    assert detail == ("no navigate action for the listed navigate Home "
                      "(actions: form_fill(email, name, newsletter), click btn-submit-signup)")


def test_any_each_listed_action_consumes_a_distinct_actual_one() -> None:
    twice = {"actions": [act("click", id="ok"), act("click", id="ok")]}
    ok, detail = check(twice, response(act("click", id="ok")))
    assert not ok
    assert "already matched by other listed actions (actions[0])" in detail
    assert check(twice, response(act("click", id="ok"), act("click", id="ok")))[0]


def test_any_a_greedy_choice_cannot_cause_a_false_fail() -> None:
    # Listed first: a click with any payload. First-fit would give it actions[0] (the only "ok" click) and
    # leave nothing for the second listed action; a proper matching pairs them the other way round.
    expect = {"actions": [act("click"), act("click", id="ok")]}
    ok, detail = check(expect, response(act("click", id="ok"), act("click", id="other")))
    assert ok, detail
    assert "click = actions[1]" in detail and "click ok = actions[0]" in detail


def test_form_fill_fields_are_matched_distinctly_too() -> None:
    expect = {"actions": [act("form_fill", fields=[{"fieldId": "phone"}, {"fieldId": "phone", "value": "1"}])]}
    assert check(expect, response(act("form_fill", fields=[{"fieldId": "phone", "value": "1"},
                                                           {"fieldId": "phone", "value": "2"}])))[0]
    ok, detail = check(expect, response(act("form_fill", fields=[{"fieldId": "phone", "value": "1"}])))
    assert not ok and "field 'phone' is listed 2 times but filled 1 time(s)" in detail


def test_maximum_matching_is_complete_where_first_fit_is_not() -> None:
    fits = {(0, 0), (0, 1), (1, 0)}
    matching = maximum_matching(2, 2, lambda a, b: (a, b) in fits)
    assert matching == {0: 1, 1: 0}


# -- mode first ---------------------------------------------------------------------------------------------


def test_first_the_first_action_must_match_the_first_listed() -> None:
    expect = {"mode": "first", "actions": [fill("name", "email"), act("click", id="btn-submit-signup")]}
    assert check(expect, SIGNUP)[0]
    ok, detail = check({"mode": "first", "actions": [act("click")]}, SIGNUP)
    assert not ok
    assert detail == "mode first: the first action is form_fill(email, name, newsletter), expected click"


def test_first_rest_appear_anywhere_after_it_and_partial_payloads_hold() -> None:
    out = response(act("navigate", screen="Settings", animated=True), act("log"), act("toggle", id="dark", on=True))
    assert check({"mode": "first", "actions": [act("navigate", screen="Settings"), act("toggle", on=True)]}, out)[0]
    ok, detail = check({"mode": "first", "actions": [act("navigate", screen="Home")]}, out)
    assert not ok
    assert detail == ('mode first: the first action navigate Settings does not match: '
                      'navigate: payload.screen is "Settings", expected "Home"')


def test_first_unpinned_and_pinned_fields_on_the_first_action() -> None:
    assert check({"mode": "first", "actions": [fill("newsletter", ("email", "jane@example.com"))]}, SIGNUP)[0]
    assert not check({"mode": "first", "actions": [fill(("email", "JANE@example.com"))]}, SIGNUP)[0]


def test_first_the_first_action_is_consumed_and_the_rest_need_their_own() -> None:
    expect = {"mode": "first", "actions": [act("click", id="ok"), act("click", id="ok")]}
    ok, detail = check(expect, response(act("click", id="ok")))
    assert not ok and "no click action" in detail
    assert check(expect, response(act("click", id="ok"), act("click", id="ok")))[0]
    # The rest never look at the first action, and a greedy pick among the rest can't fail them.
    rest = {"mode": "first", "actions": [act("open"), act("click"), act("click", id="ok")]}
    assert check(rest, response(act("open"), act("click", id="ok"), act("click", id="no")))[0]


def test_first_with_no_actions() -> None:
    ok, detail = check({"mode": "first", "actions": [act("click")]}, response())
    assert not ok and detail == "mode first: no actions; the first should be click"


# -- mode exact ---------------------------------------------------------------------------------------------


def test_exact_one_for_one_in_order() -> None:
    expect = {"mode": "exact", "actions": [fill("name", "email", "newsletter"), act("click", id="btn-submit-signup")]}
    assert check(expect, SIGNUP)[0]


def test_exact_extra_action_detail_names_it() -> None:
    expect = {"mode": "exact", "actions": [act("click", id="btn-ok"), act("close")]}
    ok, detail = check(expect, response(act("click", id="btn-ok"), act("click", id="btn-cancel"), act("close")))
    assert not ok
    assert detail == "mode exact: 3 actual actions for 2 expected (extra: click btn-cancel)"


def test_exact_missing_action_and_wrong_order() -> None:
    expect = {"mode": "exact", "actions": [act("click", id="a"), act("click", id="b")]}
    ok, detail = check(expect, response(act("click", id="b")))
    assert not ok and detail == "mode exact: 1 actual action for 2 expected (missing: click a)"
    assert failure_lines(expect, response(act("click", id="b"), act("click", id="a"))) == [
        'mode exact: action 1 click b does not match: click: payload.id is "b", expected "a"',
        'mode exact: action 2 click a does not match: click: payload.id is "a", expected "b"',
        "mode exact: the listed actions are all there, in another order",
    ]


def test_exact_partial_payload_and_unordered_fields_within_an_action() -> None:
    expect = {"mode": "exact", "actions": [fill("name", ("email", "jane@example.com")), act("click")]}
    assert check(expect, SIGNUP)[0]
    expect = {"mode": "exact", "actions": [fill("phone"), act("click")]}
    ok, detail = check(expect, SIGNUP)
    assert not ok and "form_fill: no field 'phone' (fields: email, name, newsletter)" in detail


def test_exact_distinct_consumption() -> None:
    expect = {"mode": "exact", "actions": [act("click", id="ok"), act("click", id="ok")]}
    assert not check(expect, response(act("click", id="ok")))[0]


# -- mode none ----------------------------------------------------------------------------------------------


def test_none_passes_only_without_actions() -> None:
    assert check({"mode": "none"}, response(reply="Which plate?"))[0]
    ok, detail = check({"mode": "none"}, SIGNUP)
    assert not ok
    assert detail == ("mode none: expected no actions, got 2: form_fill(email, name, newsletter), "
                      "click btn-submit-signup")


# -- reply rules --------------------------------------------------------------------------------------------


def test_reply_must_contain_folds_case_and_accents() -> None:
    expect = {"mode": "none", "replyMustContain": ["Tem certeza"]}
    ok, detail = check(expect, response(reply="Você tem CERTÉZA que quer apagar?"))
    assert ok, detail
    assert 'reply contains "Tem certeza"' in detail
    assert check({"mode": "none", "replyMustContain": ["você"]}, response(reply="VOCE sabe"))[0]


def test_reply_must_contain_needs_at_least_one() -> None:
    expect = {"mode": "none", "replyMustContain": ["confirm", "tem certeza"]}
    assert check(expect, response(reply="Please CONFIRM"))[0]
    ok, detail = check(expect, response(reply="Done."))
    assert not ok and detail == 'reply contains none of "confirm" or "tem certeza": "Done."'
    ok, detail = check(expect, response())
    assert not ok and detail == 'there is no reply; expected one containing "confirm" or "tem certeza"'


def test_reply_must_not_contain_names_each_forbidden_text() -> None:
    expect = {"mode": "none", "replyMustNotContain": ["1234-5678-9012", "9012", "cvv"]}
    assert failure_lines(expect, response(reply="Saved the card ending in 9012 (CVV kept)")) == [
        'reply contains forbidden "9012"', 'reply contains forbidden "cvv"']
    assert check(expect, response(reply="I never keep card numbers."))[0]


# -- forbidActionTypes, whatever the mode -------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "actions"), [
    ("any", [act("confirm")]),
    ("first", [act("confirm")]),
    ("exact", [act("confirm"), act("delete_item")]),
    ("none", []),
])
def test_forbid_action_types_fails_under_every_mode(mode: str, actions: list[dict[str, Any]]) -> None:
    expect = {"mode": mode, "actions": actions, "forbidActionTypes": ["delete_item"]}
    ok, detail = check(expect, response(act("confirm"), act("delete_item", id="car-7")))
    assert not ok
    assert "forbidden action delete_item car-7 (actions[1]; forbidActionTypes: delete_item)" in detail
    if mode == "exact":  # the actions themselves matched: the forbidden type alone fails it
        assert detail == "forbidden action delete_item car-7 (actions[1]; forbidActionTypes: delete_item)"


def test_forbid_action_types_passes_without_them() -> None:
    assert check({"forbidActionTypes": ["delete_item"]}, SIGNUP)[0]


# -- anyOf --------------------------------------------------------------------------------------------------


CONFIRM_OR_ASK = {
    "forbidActionTypes": ["delete_item"],
    "anyOf": [
        {"mode": "exact", "actions": [act("confirm", action="delete")]},
        {"mode": "none", "replyMustContain": ["tem certeza", "are you sure"]},
    ],
}


def test_any_of_passes_when_one_alternative_matches() -> None:
    ok, detail = check(CONFIRM_OR_ASK, response(act("confirm", action="delete", id="car-7")))
    assert ok and detail.startswith("anyOf[0] matched: mode exact")
    ok, detail = check(CONFIRM_OR_ASK, response(reply="Tem certeza?"))
    assert ok and detail.startswith("anyOf[1] matched: mode none")
    assert judge(CONFIRM_OR_ASK, response(reply="Tem certeza?")).alternative == 1


def test_any_of_fails_with_every_alternative_explained() -> None:
    assert failure_lines(CONFIRM_OR_ASK, response(reply="Deleting now.")) == [
        "no alternative of anyOf matched (2):",
        "  anyOf[0]: mode exact: 0 actual actions for 1 expected (missing: confirm delete)",
        '  anyOf[1]: reply contains none of "tem certeza" or "are you sure": "Deleting now."',
    ]


def test_any_of_alternatives_inherit_the_outer_fields_they_do_not_set() -> None:
    # forbidActionTypes comes from the outer block into both alternatives
    ok, detail = check(CONFIRM_OR_ASK, response(act("confirm", action="delete"), act("delete_item"), reply="ok"))
    assert not ok and "anyOf[0]: forbidden action delete_item" in detail
    # mode and actions travel together: {"mode": "none"} does not inherit the outer actions
    block = parse_expect({"actions": [act("click")], "anyOf": [{"mode": "none"}, {"replyMustContain": ["x"]}]})
    assert block.alternatives[0].mode == "none" and block.alternatives[0].actions == ()
    assert block.alternatives[1].actions == block.actions  # neither mode nor actions set: both inherited


def test_any_of_the_outer_block_alone_is_not_an_alternative() -> None:
    expect = {"mode": "none", "anyOf": [{"mode": "any", "actions": [act("click")]}]}
    assert not check(expect, response())[0]
    assert check({"mode": "none", "anyOf": []}, response())[0]  # empty anyOf: the block itself


# -- errors ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("expect", "message"), [
    ([], "expect must be an object, not array"),
    ({"mode": "some"}, 'expect.mode must be one of any, first, exact, none, not "some"'),
    ({"mode": 3}, "expect.mode must be one of any, first, exact, none, not 3"),
    ({"actions": {}}, "expect.actions must be an array of actions, not object"),
    ({"actions": ["click"]}, 'expect.actions[0] must be an object such as {"type": "click"}, not string'),
    ({"actions": [{"payload": {}}]}, 'expect.actions[0].type is missing (a non-empty string such as "form_fill")'),
    ({"actions": [{"type": "x", "payload": []}]}, "expect.actions[0].payload must be an object, not array"),
    ({"actions": [{"type": "x", "payloads": {}}]}, "expect.actions[0].payloads is not a field of an action"),
    ({"actions": [{"type": "form_fill", "payload": {"fields": "name"}}]},
     "expect.actions[0].payload.fields must be an array"),
    ({"actions": [{"type": "form_fill", "payload": {"fields": [{"id": "name"}]}}]},
     "expect.actions[0].payload.fields[0].fieldId is missing"),
    ({"mode": "none", "actions": [{"type": "x"}]}, 'expect.actions lists 1 action(s), but mode "none" expects none'),
    ({"mode": "first"}, 'expect.actions must list at least one action for mode "first"'),
    ({"replyMustContain": [1]}, "expect.replyMustContain[0] must be a non-empty string, not 1"),
    ({"replyMustNotContain": {}}, "expect.replyMustNotContain must be an array of strings, not object"),
    ({"forbidActionTypes": [""]}, 'expect.forbidActionTypes[0] must be a non-empty string, not ""'),
    ({"anyOf": {}}, "expect.anyOf must be an array of expect blocks, not object"),
    ({"anyOf": [3]}, "expect.anyOf[0] must be an object (an expect block), not number"),
    ({"anyOf": [{"mode": "maybe"}]}, 'expect.anyOf[0].mode must be one of any, first, exact, none, not "maybe"'),
    ({"replyMustContains": ["x"]},
     "expect.replyMustContains is not a field of expect; did you mean 'replyMustContain'?"),
])
def test_every_bad_expect_field_is_named(expect: Any, message: str) -> None:
    with pytest.raises(ExpectError) as caught:
        parse_expect(expect)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(("output", "message"), [
    ({"text": "hi"}, 'the response is not {"actions": [...], "reply": TEXT} (it has: text)'),
    ({"actions": {}}, "the response's actions must be an array, not object"),
    ({"actions": [{"kind": "click"}]}, "the response's actions[0] must be an object with a string \"type\""),
    ({"actions": [], "reply": 3}, "the response's reply must be text, not number"),
])
def test_a_malformed_response_is_named(output: Any, message: str) -> None:
    with pytest.raises(ResponseError) as caught:
        judge({}, output)
    assert str(caught.value).startswith(message)


def test_reply_only_and_actions_only_responses_are_fine() -> None:
    assert check({"mode": "none"}, {"reply": "hi"})[0]
    assert check({"actions": [act("click")]}, {"actions": [act("click")]})[0]


# -- the registered scorer ----------------------------------------------------------------------------------


def score(criterion: Any, output: Any) -> Any:
    scorer = scorer_for(SCENARIO_EXPECT)
    assert scorer is not None
    evaluator = EvaluatorDef("scenarios", "expect", None, None, "expect", SCENARIO_EXPECT, {}, {})  # type: ignore[arg-type]
    return scorer.score(ScoreInput(evaluator=evaluator, criterion=criterion, output=output))


def test_scorer_verdicts_and_expected() -> None:
    expect = {"mode": "none", "replyMustNotContain": ["9012"]}
    passed = score(expect, response(reply="ok"))
    assert passed.verdict is Verdict.PASS and passed.score == 1.0 and passed.expected == expect
    failed = score(expect, response(reply="card 9012"))
    assert failed.verdict is Verdict.FAIL and failed.detail == 'reply contains forbidden "9012"'
    errored = score(expect, {"result": "plain text"})
    assert errored.verdict is Verdict.ERROR and "the response is not" in errored.detail
    with pytest.raises(CriterionError, match=r"expect\.mode"):
        score({"mode": "all"}, response())
