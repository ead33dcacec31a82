"""Every setting declared once (pydantic models): `base.py` the building blocks a section is made of,
`sections.py` the core sections, `discovery.py` the sections and options each format declares in its
own package, `fields.py` a field in words (kind, bounds, refusals), `docs.py` the JSON Schema of
workbench.toml and docs/settings.md's table. Reading the files is `config.py`'s job."""
