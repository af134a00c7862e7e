import subprocess
import sys


def test_cli_prints_the_amount():
    # The command runs in a subprocess: only the trace of child processes sees render.
    done = subprocess.run([sys.executable, "-m", "pkg.cli", "10", "usd"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "10 USD\n"
