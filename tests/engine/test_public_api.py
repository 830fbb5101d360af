"""``engine``'s public API: every listed name resolves, and importing the package stays cheap."""

import ast
import subprocess
import sys
from pathlib import Path

import engine


def test_every_public_name_resolves_to_a_real_object():
    for name in engine.__all__:
        value = getattr(engine, name)
        assert value is not None, name
    assert "Word" in dir(engine)


def test_an_unknown_name_is_an_attribute_error():
    try:
        engine.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("engine.NoSuchThing resolved")


def test_the_public_api_is_listed_once():
    """``__all__`` is the keys of the one table the names load from: no second list (such as
    imports for type checkers) that could drift from it."""
    tree = ast.parse(Path(engine.__file__).read_text())
    assert engine.__all__ == sorted(engine._PUBLIC)
    assert not any(isinstance(n, ast.If) for n in tree.body)  # no `if TYPE_CHECKING:` copy
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in engine._PUBLIC]
    assert sorted({n.value for n in names}) == engine.__all__  # each name written in the table


def test_import_engine_loads_neither_numpy_nor_onnxruntime():
    code = "import sys, engine; print(sorted({'numpy', 'onnxruntime'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
