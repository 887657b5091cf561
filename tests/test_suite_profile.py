"""benchmarks/suite_profile.py reads pytest's JUnit XML into test files (pure parsing, no server)."""
import importlib.util
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "suite_profile.py"
# registered before it runs (its dataclasses look their module up); conftest's --suite-budget
# may have loaded it under this name already
if "suite_profile" not in sys.modules:
    _SPEC = importlib.util.spec_from_file_location("suite_profile", _PATH)
    sys.modules["suite_profile"] = importlib.util.module_from_spec(_SPEC)
    _SPEC.loader.exec_module(sys.modules["suite_profile"])
suite_profile = sys.modules["suite_profile"]


def case(classname: str, name: str) -> ET.Element:
    return ET.fromstring(f'<testcase classname="{classname}" name="{name}" time="1.5"/>')


def test_a_test_case_names_its_module_file_and_class():
    assert suite_profile.junit_nodeid(case("tests.test_x", "test_y[p]")) == "tests/test_x.py::test_y[p]"
    assert (suite_profile.junit_nodeid(case("tests.test_x.TestGroup", "test_y"))
            == "tests/test_x.py::TestGroup::test_y")


def test_a_module_skipped_whole_counts_under_its_own_file_not_a_file_called_dot_py():
    # pytest's record of `pytest.importorskip` at module level: no classname, the module as name
    nodeid = suite_profile.junit_nodeid(case("", "tests.test_backends_vllm"))
    assert nodeid == "tests/test_backends_vllm.py"
    assert suite_profile.file_of(nodeid) == "tests/test_backends_vllm.py"
