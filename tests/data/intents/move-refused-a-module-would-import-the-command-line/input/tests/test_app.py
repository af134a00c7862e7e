from app.cli import main
from app.report import heading


def test_heading():
    assert heading("  Big   news ") == "Big News"


def test_main(capsys):
    main(["A  b"])
    assert capsys.readouterr().out == "a b 2\n"
