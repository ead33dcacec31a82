"""The core's scorers are a lazy registry (`scoring.CORE_SCORERS`: type id -> "module:Class"), so a run imports only
the scorers its evaluators use: each entry must name a class of that type id, made once."""

from __future__ import annotations

import importlib

import pytest

from workbench.scoring import CORE_SCORERS, SCORERS, Scorer


@pytest.mark.parametrize("type_id", list(CORE_SCORERS))
def test_each_entry_names_a_scorer_of_its_type_id(type_id: str):
    module, _, name = CORE_SCORERS[type_id].partition(":")
    cls = getattr(importlib.import_module(module), name)
    assert cls.type_id == type_id
    assert isinstance(SCORERS[type_id], cls) and isinstance(SCORERS[type_id], Scorer)
    assert SCORERS[type_id] is SCORERS[type_id]  # made once


def test_the_registry_reads_as_a_mapping_of_every_core_type():
    assert sorted(SCORERS) == sorted(CORE_SCORERS) and len(SCORERS) == len(CORE_SCORERS)
    assert "uipath-exact-match" in SCORERS and "no-such-type" not in SCORERS
    assert SCORERS.get("no-such-type") is None
    with pytest.raises(KeyError):
        SCORERS["no-such-type"]
