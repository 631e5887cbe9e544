"""The scoring core stays plain Python: nothing under scoring/ may import Django."""

import ast
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SCORING_DIR = REPO_ROOT / "scoring"


def _is_django(module: str) -> bool:
    # Also catches django_htmx and friends: the core needs no Django package at all.
    return module.startswith("django")


def _django_imports(source_file: Path) -> list[str]:
    tree = ast.parse(source_file.read_text(encoding="utf-8"), filename=str(source_file))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:  # relative stays inside
            names = [node.module or ""]
        else:
            continue
        found += [name for name in names if _is_django(name)]
    return [f"{source_file.relative_to(REPO_ROOT)}: {name}" for name in found]


def test_scoring_sources_have_no_django_import() -> None:
    source_files = sorted(SCORING_DIR.rglob("*.py"))
    assert source_files != [], "scoring/ has no Python files to check"

    offenders = [line for source in source_files for line in _django_imports(source)]

    assert offenders == []


def test_scoring_import_loads_no_django_module() -> None:
    # A fresh interpreter: this test process already has Django loaded by pytest-django.
    script = (
        "import importlib, pkgutil, sys\n"
        "import scoring\n"
        "for module in pkgutil.walk_packages(scoring.__path__, 'scoring.'):\n"
        "    importlib.import_module(module.name)\n"
        "loaded = sorted(name for name in sys.modules if name.startswith('django'))\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr


LONGEST_MODULE = 400  # lines; split a module by noun before it grows past this


def test_no_module_of_the_app_is_longer_than_a_screenful_or_two() -> None:
    modules = [
        path
        for package in ("scoring", "tracker")
        for path in sorted((REPO_ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    ]

    too_long = {
        str(path.relative_to(REPO_ROOT)): lines
        for path in modules
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_MODULE
    }

    assert len(modules) > 50
    assert too_long == {}
