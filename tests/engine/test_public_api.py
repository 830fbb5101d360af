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


def test_the_type_checking_imports_name_exactly_the_public_api():
    tree = ast.parse(Path(engine.__file__).read_text())
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
    )
    names = {alias.asname or alias.name for stmt in block.body for alias in stmt.names}
    assert names == set(engine.__all__)


def test_import_engine_loads_neither_numpy_nor_onnxruntime():
    code = "import sys, engine; print(sorted({'numpy', 'onnxruntime'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
