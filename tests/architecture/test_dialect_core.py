"""`Dialect` is a small core and the rest are capabilities (issue 34): the core's members are `CORE` (at most ten),
the base class answers no capability's question with a default, and a registered format has no member that is
neither core nor part of a capability it has whole (a hook of a half-declared capability would never be asked)."""

from __future__ import annotations

import pytest

from workbench.dialects import all_dialects
from workbench.dialects.base import CAPABILITIES, CORE, Dialect, Words, members_of

DIALECTS = all_dialects()


def _public(cls: type) -> set[str]:
    return {name for name in (*vars(cls).get("__annotations__", {}), *vars(cls)) if not name.startswith("_")}


def _final(name: str) -> bool:
    return bool(getattr(getattr(Dialect, name, None), "__final__", False))


def test_the_core_is_at_most_ten_members_and_they_are_core() -> None:
    overridable = {name for name in _public(Dialect) if not _final(name)}
    assert overridable == set(CORE)
    assert len(CORE) <= 10
    assert {name for name in _public(Dialect) if _final(name)} == {"evaluator_file", "missing_evaluator"}


def test_the_base_class_has_no_capability_member() -> None:
    """No default: a format without a capability is asked nothing of it."""
    for capability in CAPABILITIES:
        assert not members_of(capability) & _public(Dialect), capability.__name__
        assert not isinstance(Dialect(), capability), capability.__name__


def test_words_are_data() -> None:
    assert Words.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert Words().missing_evaluator is None and Words().unsupported_type is None


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.name for d in DIALECTS])
def test_a_formats_members_are_core_or_capabilities_it_has_whole(dialect: Dialect) -> None:
    own = set().union(*(_public(cls) for cls in type(dialect).__mro__ if cls not in (Dialect, object)))
    had = [capability for capability in CAPABILITIES if isinstance(dialect, capability)]
    allowed = set(CORE).union(*(members_of(capability) for capability in had))
    assert not own - allowed, f"{dialect.name}: members no capability it has asks for: {sorted(own - allowed)}"
    for capability in CAPABILITIES:
        partial = members_of(capability) & own
        assert not partial or capability in had, f"{dialect.name} has {sorted(partial)} of {capability.__name__} only"
    assert not any(_final(name) and name in own for name in _public(Dialect)), "a format overrides a final member"
