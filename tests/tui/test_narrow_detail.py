"""Issue 22 point 3: at 80 columns expected and actual stack vertically (each the pane's full width)
instead of two narrow columns whose wrapped lines drift apart; a wide terminal keeps them side by side.
(The 80x24 layout is also pinned by test_tui_snapshots.py's stacked snapshot.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import app_for, example_project, settled, wait_idle

from workbench.tui.app import WorkbenchApp


def sides(app: WorkbenchApp) -> tuple[object, object]:
    return (app.main.detail.query_one("#detail-expected").region, app.main.detail.query_one("#detail-actual").region)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_a_narrow_detail_stacks_expected_above_actual(tmp_path: Path, size: tuple[int, int]) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        detail = app.main.detail
        assert detail.has_class("stacked")
        detail.scroll_home(animate=False)
        await settled(app, pilot)
        expected, actual = sides(app)
        assert actual.y > expected.bottom and actual.x == expected.x  # type: ignore[attr-defined]
        assert expected.width >= detail.scrollable_content_region.width - 2  # type: ignore[attr-defined]


async def test_a_wide_detail_keeps_them_side_by_side(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        assert not app.main.detail.has_class("stacked")
        expected, actual = sides(app)
        assert actual.y == expected.y and actual.x > expected.right  # type: ignore[attr-defined]
