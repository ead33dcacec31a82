"""Issue 32, point 2: snapshots keep the contents only of files that are neither ignored nor secret-looking.
A `secrets.json`, an `id_rsa`, an `.npmrc`... that no `.gitignore` leaves out is noted by its digest:
`compare` (text and --json) says "secrets.json changed (contents not kept)", nothing of it is written
under `.workbench/`, `[history] secret_files` adds patterns, and re-use still notices when it changes."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

from helpers.cli import invoke_json, invoke_workbench
from helpers.project import make_project, row

from workbench.secret_files import SECRET_FILES, SecretFiles
from workbench.snapshots import BLOB_FOLDER

# The target answers with the token it reads from secrets.json: a change to that file changes its output.
TARGET = ("import json, sys\njson.load(sys.stdin)\n"
          "print(json.dumps({'token': json.load(open('secrets.json'))['token'][-1]}))\n")
SECRET_NAMES = ("secrets.json", "id_rsa", ".npmrc", "config/credentials.json", "certs/server.pem", ".env",
                "deploy/service-account-prod.json")


def project(tmp_path: Path, history: str = "") -> Path:
    root = make_project(tmp_path / "project", sets={"s": [row("one", {"n": 1}, {"token": "1"})]},
                        config=f'[runner]\nkind = "command"\ncommand = ["{sys.executable}", "agent.py"]\n'
                               f'timeout = 30\n{history}',
                        files={"agent.py": TARGET, "helper.py": "VALUE = 1\n"})
    (root / ".gitignore").write_text("*.log\n")  # a .gitignore that leaves none of the secrets out
    return root


def write_secrets(root: Path, n: int) -> None:
    for name in SECRET_NAMES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'{{"token": "SECRET-{name}-{n}"}}' if name == "secrets.json" else f"SECRET-{name}-{n}\n")


def stored(root: Path) -> bytes:
    """Every kept content, decompressed, one after the other."""
    return b"".join(zlib.decompress(path.read_bytes()) for path in (root / ".workbench" / BLOB_FOLDER).glob("*.z"))


def everything_under_state(root: Path) -> bytes:
    """The bytes of every file under `.workbench/`, blobs decompressed."""
    found = [path.read_bytes() for path in (root / ".workbench").rglob("*") if path.is_file()]
    return b"".join(found) + stored(root)


def test_secret_files_are_noted_never_stored_and_compare_says_so(tmp_path: Path) -> None:
    root = project(tmp_path)
    write_secrets(root, 1)
    invoke_json("run", str(root))
    write_secrets(root, 2)
    (root / "helper.py").write_text("VALUE = 2\n")
    invoke_json("run", str(root))

    assert b"SECRET-" not in everything_under_state(root)
    assert b"VALUE = 2" in stored(root)  # the rest is kept

    shown = invoke_workbench("compare", str(root))
    assert shown.returncode == 0, shown.stderr
    for name in SECRET_NAMES:
        assert f"{name} changed (contents not kept)" in shown.stdout
    assert "SECRET-" not in shown.stdout
    assert "+VALUE = 2" in shown.stdout  # an ordinary file still has its diff

    _, doc = invoke_json("compare", str(root))
    files = {entry["path"]: entry for entry in doc["files"]}
    assert set(SECRET_NAMES) | {"helper.py"} == set(files)
    secret = files["secrets.json"]
    assert secret["status"] == "changed" and secret["contents_kept"] is False and secret["diff"] == ""
    assert "looks like a secret" in secret["note"]
    assert files["helper.py"]["contents_kept"] is True and files["helper.py"]["diff"]
    assert "SECRET-" not in str(doc)


def test_a_pattern_of_the_users_is_secret_too_and_older_contents_are_dropped(tmp_path: Path) -> None:
    root = project(tmp_path)
    write_secrets(root, 1)
    (root / "settings.prod.ini").write_text("password = SECRET-ini-1\n")
    invoke_json("run", str(root))
    assert b"SECRET-ini-1" in stored(root)  # not secret-looking by name: kept, as before

    config = root / "workbench.toml"
    config.write_text(config.read_text() + '[history]\nsecret_files = ["*.prod.ini"]\n')
    (root / "settings.prod.ini").write_text("password = SECRET-ini-2\n")
    invoke_json("run", str(root))
    assert b"SECRET-ini" not in stored(root)  # the new content never written, the old one dropped

    shown = invoke_workbench("compare", str(root))
    assert "settings.prod.ini changed (contents not kept)" in shown.stdout and "SECRET-ini" not in shown.stdout


def test_reuse_still_notices_a_secret_file_changing(tmp_path: Path) -> None:
    root = project(tmp_path)
    write_secrets(root, 1)
    _, first = invoke_json("run", str(root), "--reuse")
    assert [(r["verdict"], bool(r.get("reused"))) for r in first["results"]] == [("PASS", False)]
    _, again = invoke_json("run", str(root), "--reuse")
    assert [(r["verdict"], bool(r.get("reused"))) for r in again["results"]] == [("PASS", True)]
    write_secrets(root, 2)  # only the secret files change
    _, changed = invoke_json("run", str(root), "--reuse")
    assert [(r["verdict"], bool(r.get("reused"))) for r in changed["results"]] == [("FAIL", False)]


def test_the_list_covers_the_usual_secret_files() -> None:
    secrets = SecretFiles()
    for name in ("secrets.yaml", "app/my-secrets.txt", "client_secret.json", "credentials", "aws/credentials.csv",
                 "tls.key", "keystore.p12", "cert.pfx", "release.keystore", "app.jks", "id_ed25519", "id_ecdsa.pub",
                 "id_dsa", ".netrc", ".pypirc", ".pgpass", ".git-credentials", ".htpasswd", ".env.local",
                 ".appilotsrc", "sub/.npmrc", "secrets/anything.txt"):
        assert name in secrets, name
    for name in ("agent.py", "README.md", "evals/default/eval-sets/s.json", "keys.py", "environment.yml"):
        assert name not in secrets, name
    assert "notes/prod.ini" in SecretFiles(["prod.ini"]) and "notes/prod.ini" not in secrets
    assert len(SECRET_FILES) == len(set(SECRET_FILES))


def test_a_pattern_that_is_not_gitignore_style_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, '[history]\nsecret_files = ["!"]\n')
    proc = invoke_workbench("run", str(root))
    assert proc.returncode != 0
    assert "[history] secret_files" in proc.stderr and "gitignore-style" in proc.stderr
