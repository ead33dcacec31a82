"""Issue 38 (6): a mistyped command is said as a mistyped setting is (`did you mean`), while `workbench PATH`
still opens PATH — a word that is a file or folder here, or looks like a path, is never taken for a command."""

from helpers.cli import invoke_workbench


def test_a_word_close_to_a_command_gets_did_you_mean(tmp_path):
    for word, command in (("rn", "run"), ("chek", "check"), ("reprot", "report"), ("histroy", "history")):
        result = invoke_workbench(word, cwd=tmp_path)
        assert result.returncode == 2, (word, result.stderr)
        assert f"workbench: no such command '{word}'; did you mean `{command}`?" in result.stderr
        assert "no such folder" not in result.stderr


def test_a_folder_with_such_a_name_is_still_opened(tmp_path):
    (tmp_path / "rn").mkdir()
    result = invoke_workbench("rn", "--help", cwd=tmp_path)  # `open`'s help: PATH taken as the folder, not refused
    assert result.returncode == 0, result.stderr
    assert "no such command" not in result.stderr
    assert "no such command" not in invoke_workbench("./rn", "--help", cwd=tmp_path).stderr


def test_a_word_close_to_no_command_is_a_missing_folder_as_before(tmp_path):
    result = invoke_workbench("xyzzy", cwd=tmp_path)
    assert result.returncode != 0
    assert "no such folder" in result.stderr and "did you mean" not in result.stderr
