"""Progress bars: on when asked or interactive, quiet otherwise."""
import pytest

from cellkit.train.progress import ProgressBar, progress_enabled


def test_progress_enabled_follows_request_then_environment(monkeypatch):
    monkeypatch.delenv("CELLKIT_PROGRESS", raising=False)
    assert progress_enabled(True) is True and progress_enabled(False) is False
    monkeypatch.setenv("CELLKIT_PROGRESS", "0")
    assert progress_enabled() is False
    assert progress_enabled(True) is True
    monkeypatch.setenv("CELLKIT_PROGRESS", "1")
    assert progress_enabled() is True


def test_progress_default_is_quiet_without_a_terminal(monkeypatch):
    monkeypatch.delenv("CELLKIT_PROGRESS", raising=False)
    assert progress_enabled() is False  # pytest captures stderr: not a terminal, not a kernel


def test_progress_bar_draws_steps_and_final_values(capsys):
    pytest.importorskip("tqdm")
    bar = ProgressBar(total=2, desc="epoch 1/1", enabled=True)
    bar.step(0.5)
    bar.step(0.25)
    bar.finish({"loss": 0.375, "eval_accuracy": 1.0})
    bar.close()
    err = capsys.readouterr().err
    assert "epoch 1/1" in err and "2/2" in err and "loss=0.3750" in err


def test_disabled_progress_bar_does_nothing(capsys):
    bar = ProgressBar(total=2, enabled=False)
    bar.step(1.0)
    bar.finish({"loss": 1.0})
    bar.close()
    assert not bar.active and capsys.readouterr().err == ""
