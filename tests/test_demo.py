import io
import subprocess
import sys
import time

import pytest

from sklearn_precision_stats.__main__ import demo, main

# Perfectly separated classes (iris setosa, digits) make some Wald tests
# undefined: expected here, and tested in test_undefined.py.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")


def test_demo_prints_table_and_summary_quickly():
    stream = io.StringIO()
    start = time.perf_counter()
    result = demo(stream=stream)
    assert time.perf_counter() - start < 30
    text = stream.getvalue()
    assert "GaussianNB ('nb') vs a random forest" in text
    assert "Paired comparison of precision" in text
    assert len(result.table) == 10 and set(result.table["classifier"]) == {"nb"}


def test_module_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "sklearn_precision_stats", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "omnibus" not in proc.stdout  # two classifiers: no omnibus section
    assert "Reference:" in proc.stdout


def test_main_requires_a_command(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    assert "demo" in capsys.readouterr().err
