"""A section the files leave out is its defaults, made without building its validator (`Section.defaults()`, for a
light start): they must be exactly what validating nothing gives, for every section, the core's and each format's."""

from __future__ import annotations

import pytest

from workbench.config import Config, sections
from workbench.settings.base import Section


@pytest.mark.parametrize("name", list(sections()))
def test_defaults_are_what_validation_gives(name: str):
    cls = sections()[name]
    made, validated = cls.defaults(), cls.model_validate({})
    assert type(made) is cls
    assert made == validated and made.model_dump() == validated.model_dump() == cls().model_dump()
    assert made.model_fields_set == validated.model_fields_set == set()


def test_each_default_is_its_own_copy():
    """A default list or table is the section's own (as validation makes it), never shared between configs."""
    for cls in sections().values():
        one, two = cls.defaults(), cls.defaults()
        for key, value in one:
            if isinstance(value, (list, dict, set)):
                assert value is not getattr(two, key), f"{cls.__name__}.{key}"


def test_a_config_without_a_file_holds_every_core_sections_defaults(tmp_path):
    config = Config(root=tmp_path)
    for name, cls in sections().items():
        section = config.section_named(name)
        assert isinstance(section, Section) and section == cls()
