"""Issue 38, item 1: a built wheel holds every file the package reads, and a game typed
entirely in Italian, Czech or German plays from that install (not from the repository).

The wheel is built from a copy of the package without build isolation (nothing is
downloaded when the test environment has the build backend the project asks for), installed
into a fresh venv without pip; the test environment's site-packages give it its
dependencies through a path file, which does not run that folder's own path files (the
editable install of the repository stays out).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from dokobot import languages
from dokobot.host.i18n import render

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dokobot"


def _backend_is_recent_enough() -> bool:
    """The test environment's setuptools satisfies the build-system's ``setuptools>=N``."""
    wanted = re.search(r'"setuptools>=(\d+)', (ROOT / "pyproject.toml").read_text("utf-8"))
    try:
        have = int(metadata.version("setuptools").split(".")[0])
    except metadata.PackageNotFoundError:
        return False
    return wanted is None or have >= int(wanted.group(1))


def _run(args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)  # type: ignore[call-overload]
    assert res.returncode == 0, f"{args}: {res.stdout[-2000:]}{res.stderr[-2000:]}"
    return res  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(PACKAGE, src / "dokobot", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    isolation = [] if not _backend_is_recent_enough() else ["--no-build-isolation"]
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", *isolation, "-w", str(out)])
    (built,) = out.glob("dokobot-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(home)])
    python = home / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    _run([*pip, "install", "--no-deps", "--no-index", str(wheel)])
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(site.stdout.strip(), "dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return home


def test_the_wheel_holds_every_file_the_package_reads(wheel: Path) -> None:
    files = {
        p.relative_to(ROOT).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".py", ".pyc")
    }
    assert "dokobot/host/locales/words/it.yaml" in files
    held = set(zipfile.ZipFile(wheel).namelist())
    assert sorted(files - held) == []


def test_the_install_is_the_wheel_not_the_repository(venv: Path, tmp_path: Path) -> None:
    res = _run([str(venv / "bin" / "python"), "-c", "import dokobot; print(dokobot.__file__)"],
               cwd=tmp_path)  # fmt: skip
    assert Path(res.stdout.strip()).is_relative_to(venv)


def _typed_game(lang: str) -> str:
    """A reservation and every card, again and again, in the language's own words (the
    longest word of each rank and suit, with its filler): the refused lines change nothing,
    the others play the game out."""
    words = yaml.safe_load((PACKAGE / "host/locales/words" / f"{lang}.yaml").read_text("utf-8"))
    cards = words["cards"]
    suits = [max(v, key=len) for v in cards["suits"].values()]
    ranks = [max(v, key=len) for v in cards["ranks"].values()]
    filler = (cards.get("fillers") or [""])[0]
    play = words["commands"]["play"][0]
    lines = [words["commands"]["healthy"][0]]
    for _ in range(12):
        lines += [" ".join(w for w in (play, r, filler, s) if w) for s in suits for r in ranks]
    lines += [words["commands"]["score"][0], words["commands"]["quit"][0]]
    for line in lines:
        assert line.split()[0] not in ("play", "healthy", "score", "quit"), line
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", [c for c in languages.codes() if c != languages.DEFAULT])
def test_a_game_typed_in_the_language_plays_from_the_wheel(
    venv: Path, tmp_path: Path, lang: str
) -> None:
    command = ["console", "--lang", lang, "--seed", "3", "--level", "random", "--players", "anna"]
    res = subprocess.run(
        [str(venv / "bin" / "dokobot"), *command],
        input=_typed_game(lang),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert render(lang, "score.progress_open", {"series": 1, "counted": 1}) in out, out[-3000:]
    assert out.count("anna") > 12
    unknown = render(lang, "unknown_command", {"word": "X"}).split("X")[0]
    assert unknown not in out
    assert render(lang, "console.bare_line") not in out
