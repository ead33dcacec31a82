"""The cluster settings without a cluster: `--cluster` on the loop commands, `[cluster]` checks, the
message when Ray is not installed, what is left out of the shipped project, where a connection goes.
None of these needs Ray (the missing-dependency tests hide it when it is installed)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench, run_workbench
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.cluster import INSTALL_HINT, rows_in_flight
from workbench.cluster.connection import ClusterStatus, endpoint, in_flight_limit
from workbench.cluster.package import shipped_entries
from workbench.config import ClusterConfig, ConfigError, load_config


def without_ray(tmp_path: Path) -> dict[str, str]:
    """A CLI environment in which `import ray` fails, as it does where Ray is not installed."""
    fake = tmp_path / "no-ray" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'ray'\", name='ray')\n")
    return cli_env(PYTHONPATH=str(fake.parent))


def project(root: Path, **cluster: str) -> Path:
    config = {"runner": COMMAND_CONFIG, **({"cluster": cluster} if cluster else {})}
    return make_project(root / "project", sets={"rows": [row("one", {"output": {"a": 1}}, {"a": 1})]}, config=config)


@pytest.mark.process("Ray hidden from a fresh interpreter by PYTHONPATH")
@pytest.mark.parametrize("command", [["run"], ["watch", "--plain", "--max-iterations", "1"], ["open", "--no-watch"]])
def test_without_ray_the_cluster_flag_says_how_to_install_it(tmp_path, command):
    proc = run_workbench(*command, str(project(tmp_path)), "--cluster", "local", env=without_ray(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert INSTALL_HINT in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.process("Ray hidden from a fresh interpreter by PYTHONPATH")
def test_without_ray_the_cluster_setting_says_how_to_install_it(tmp_path):
    proc = run_workbench("run", str(project(tmp_path, engine="ray", address="local")), env=without_ray(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.startswith("workbench: [cluster] engine = \"ray\" needs Ray")
    assert INSTALL_HINT in proc.stderr


def test_without_a_cluster_ray_is_never_imported(tmp_path):
    """The core install doesn't need Ray: a local run imports none of it."""
    root = project(tmp_path)
    code = ("import sys, asyncio\nfrom pathlib import Path\nfrom workbench.config import load_config\n"
            "from workbench.engine import Engine\nfrom workbench.events import Trigger\n"
            f"report = asyncio.run(Engine(load_config(Path({str(root)!r}))).run_iteration(Trigger('run')))\n"
            "assert [r.verdict.value for r in report.results] == ['PASS'], report.results\n"
            "assert 'ray' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=cli_env(), timeout=60)


@pytest.mark.parametrize("command", ["run", "watch", "open"])
def test_the_loop_commands_take_cluster(command):
    proc = invoke_workbench(command, "--help")
    assert "--cluster ADDRESS" in proc.stdout


def test_an_empty_cluster_flag_is_a_usage_error(tmp_path):
    proc = invoke_workbench("run", str(project(tmp_path)), "--cluster", " ")
    assert proc.returncode == 2
    assert "give the cluster's address" in proc.stderr


def test_an_address_without_an_engine_is_refused(tmp_path):
    root = make_project(tmp_path, config={"runner": COMMAND_CONFIG, "cluster": {"address": "auto"}})
    with pytest.raises(ConfigError, match=r"\[cluster\] address is set but engine is not; add engine = \"ray\""):
        load_config(root)


def test_without_a_cluster_rows_in_flight_is_the_runner_concurrency(tmp_path):
    config = load_config(make_project(tmp_path, config={**COMMAND_CONFIG, "concurrency": 3}))
    assert asyncio.run(rows_in_flight(config)) == 3


def test_rows_in_flight_on_a_cluster_is_its_cpus_or_the_setting():
    status = ClusterStatus("auto", cpus=16.0)
    assert in_flight_limit(status, ClusterConfig()) == 16
    assert in_flight_limit(status, ClusterConfig(cpus_per_row=4)) == 4
    assert in_flight_limit(status, ClusterConfig(cpus_per_row=4, max_in_flight=50)) == 50
    assert in_flight_limit(ClusterStatus("auto", cpus=0.0), ClusterConfig()) == 1  # an autoscaler's empty head


def test_the_shipped_project_leaves_out_state_vcs_virtualenvs_and_watch_ignores(tmp_path):
    root = make_project(tmp_path, config={"runner": COMMAND_CONFIG, "watch": {"ignore": ["*.log", "data/raw"]}},
                        files={"tools/py311/pyvenv.cfg": "home = /usr", "tools/py311/lib/site.py": "",
                               "src/app.py": "", ".workbench/history.sqlite": "", ".git/HEAD": "", "venv/x": "",
                               ".venv/x": "", "node_modules/x/index.js": "", "run.log": "", "data/raw/a.csv": "",
                               "data/clean.csv": ""})
    shipped = {entry.rel for entry in shipped_entries(load_config(root))}
    assert {"src/app.py", "data/clean.csv", "workbench.toml"} <= shipped
    assert not [rel for rel in shipped if rel.split("/")[0] in {".workbench", ".git", "venv", ".venv", "node_modules",
                                                                 "tools"} or rel.endswith(".log") or "raw" in rel]


@pytest.mark.parametrize(("address", "expected"), [
    ("local", None),
    ("ray://head.example:10001", ("head.example", 10001)),
    ("ray://head.example", ("head.example", 10001)),
    ("10.0.0.5:6380", ("10.0.0.5", 6380)),
    ("head.example", ("head.example", 6379)),
    ("[::1]:6379", ("::1", 6379)),
])
def test_where_a_connection_to_an_address_goes(address, expected):
    assert endpoint(object(), address) == expected  # type: ignore[arg-type]
